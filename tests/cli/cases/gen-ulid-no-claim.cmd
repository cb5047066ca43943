gen ulid --no-claim
