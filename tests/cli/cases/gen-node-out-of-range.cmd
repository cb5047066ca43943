gen snowflake --node 1024
