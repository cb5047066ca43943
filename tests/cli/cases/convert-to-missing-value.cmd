convert --to
