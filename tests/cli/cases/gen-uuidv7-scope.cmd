gen uuidv7 --scope x
