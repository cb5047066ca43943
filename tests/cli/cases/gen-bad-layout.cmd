gen snowflake --node 1 --layout nope
