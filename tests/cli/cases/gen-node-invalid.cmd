gen snowflake --node abc
