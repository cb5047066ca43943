gen ulid uuidv7
