-- chronoid snowflake.nextval() with a sequence per session (bench_sf_0;
-- under pgbench client 1 takes bench_sf_1): both draw from the database's
-- one ID space, so this is what that sharing costs across sequences.
-- The CASE folds to one constant per statement (no lookup per ID).
SELECT count(x) FROM (SELECT snowflake.nextval(CASE :client_id % 2 WHEN 0 THEN 'bench_sf_0'::regclass
                                                ELSE 'bench_sf_1'::regclass END) x
                        FROM generate_series(1, :ids)) s;
