gen uuidv7 -n 0
