-- core gen_random_uuid(): random v4, takes no lock
SELECT count(x) FROM (SELECT gen_random_uuid() x FROM generate_series(1, :ids)) s;
