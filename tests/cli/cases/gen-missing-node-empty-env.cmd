gen snowflake
