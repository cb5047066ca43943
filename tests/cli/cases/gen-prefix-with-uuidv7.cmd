gen uuidv7 --prefix user
