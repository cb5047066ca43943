gen uuidv7 -n ' 3'
