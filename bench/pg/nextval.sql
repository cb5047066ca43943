-- core nextval() on a default (CACHE 1) sequence: the baseline
SELECT count(x) FROM (SELECT nextval('bench_seq') x FROM generate_series(1, :ids)) s;
