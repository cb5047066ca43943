gen snowflake -n 2
