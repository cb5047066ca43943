-- chronoid gen_monotonic_ulid()
SELECT count(x) FROM (SELECT gen_monotonic_ulid() x FROM generate_series(1, :ids)) s;
