convert --to ulid user_01h455vb4pex5vsknk084sn02q
