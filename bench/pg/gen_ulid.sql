-- chronoid gen_ulid(): 48-bit ms + 80 random bits
SELECT count(x) FROM (SELECT gen_ulid() x FROM generate_series(1, :ids)) s;
