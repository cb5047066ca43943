inspect --layout
