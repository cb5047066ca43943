inspect --json=yes 1
