gen uuidv7 --fast
