-- uuidv7() (chronoid's on PostgreSQL 13-17; core's wins on 18)
SELECT count(x) FROM (SELECT uuidv7() x FROM generate_series(1, :ids)) s;
