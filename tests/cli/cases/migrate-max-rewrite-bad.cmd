migrate run --table orders --to snowflake --max-rewrite-lock forever
