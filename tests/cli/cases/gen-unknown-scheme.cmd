gen uuidv1
