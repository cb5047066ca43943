gen snowflake --layout sonyflake
