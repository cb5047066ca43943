inspect --layout nope 1
