inspect --json
