-- chronoid snowflake.nextval() on snowflake.id_seq (needs snowflake.node)
SELECT count(x) FROM (SELECT snowflake.nextval() x FROM generate_series(1, :ids)) s;
