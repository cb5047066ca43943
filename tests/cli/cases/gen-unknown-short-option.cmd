gen uuidv7 -x
