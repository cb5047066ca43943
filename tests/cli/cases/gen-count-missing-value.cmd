gen uuidv7 -n
