convert --to ulid 01arz3ndektsv4rrffq69g5fav
