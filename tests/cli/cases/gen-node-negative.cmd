gen snowflake --node -1
