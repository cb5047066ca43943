gen snowflake --node 1 --layout 'time:42,seq:12,reserved:9'
