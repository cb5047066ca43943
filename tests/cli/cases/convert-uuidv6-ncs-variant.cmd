convert --to uuidv6 c232ab00-9414-11ec-33c8-9f6bdeced846
