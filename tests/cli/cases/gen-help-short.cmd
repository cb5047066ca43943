gen snowflake -h
