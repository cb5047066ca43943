gen uuidv7 -n 2 --count=3
