gen uuidv7 --node 1
