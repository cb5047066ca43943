gen uuidv7 -n abc
