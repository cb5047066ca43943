convert --to=ulid
