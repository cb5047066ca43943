gen ulid --layout pgedge
