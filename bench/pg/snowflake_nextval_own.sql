-- chronoid snowflake.nextval() with a sequence per session (bench_sf_0;
-- under pgbench client 1 takes bench_sf_1): both draw from the database's
-- one ID space, so this is what that sharing costs across sequences
SELECT count(x) FROM (SELECT snowflake.nextval(('bench_sf_' || :client_id % 2)::regclass) x
                        FROM generate_series(1, :ids)) s;
