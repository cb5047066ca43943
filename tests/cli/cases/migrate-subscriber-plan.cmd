migrate plan --table orders --to uuidv7 --subscriber dbname=replica
