convert --to ulid
