gen snowflake --layout sonyflake --node 65536
