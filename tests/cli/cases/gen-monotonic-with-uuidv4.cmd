gen uuidv4 --monotonic
