gen snowflake --node 5 --node 6 -n 1
