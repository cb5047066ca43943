gen ulid --monotonic=1
