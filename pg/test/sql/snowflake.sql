-- Snowflake: decoders (pgEdge 2.6 layout vector), GUC snowflake.node,
-- snowflake.nextval/currval properties and every error path.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
\pset null '(null)'

-- Known vector: node 1, counter 0, 2023-10-16 18:47:12.257 UTC.
SELECT snowflake.get_epoch(104651375538868224) AS epoch,
       snowflake.get_count(104651375538868224) AS count,
       snowflake.get_node(104651375538868224) AS node,
       snowflake.to_timestamp(104651375538868224) AS ts;
SELECT snowflake.format(104651375538868224);
SELECT to_timestamp(snowflake.get_epoch(104651375538868224)) AS via_epoch;
SELECT snowflake.format(104651375538868224 + 4095 + 1022 * 4096) AS max_parts;
-- format's ts follows the session's TimeZone, as pgEdge's does.
SET TimeZone = 'Asia/Kolkata';
SELECT snowflake.format(104651375538868224) ->> 'ts' AS ts_kolkata;
SET TimeZone = 'UTC';

-- from_timestamp: the smallest ID of that millisecond (node 0, counter 0).
SELECT snowflake.from_timestamp('2023-10-16 18:47:12.257+00') AS lo,
       snowflake.from_timestamp('2023-10-16 18:47:12.257+00') <= 104651375538868224 AS le,
       snowflake.from_timestamp('2023-10-16 18:47:12.258+00') > 104651375538868224 AS gt,
       snowflake.to_timestamp(snowflake.from_timestamp('2023-10-16 18:47:12.257999+00')) AS round_trip;
SELECT snowflake.from_timestamp('2023-01-01 00:00:00+00') AS first_id,
       snowflake.from_timestamp('2092-09-06 15:47:35.551+00') AS last_ms;

-- Impossible input is an error naming it; NULL gives NULL.
SELECT regress.err('SELECT snowflake.get_epoch(-1)');
SELECT regress.err('SELECT snowflake.get_count(-9223372036854775808)');
SELECT regress.err('SELECT snowflake.get_node(-4096)');
SELECT regress.err('SELECT snowflake.to_timestamp(-1)');
SELECT regress.err('SELECT snowflake.format(-1)');
SELECT regress.err($$SELECT snowflake.from_timestamp('2022-12-31 23:59:59.999+00')$$);
SELECT regress.err($$SELECT snowflake.from_timestamp('2092-09-06 15:47:35.552+00')$$);
SELECT regress.err($$SELECT snowflake.from_timestamp('infinity')$$);
SELECT snowflake.get_epoch(NULL), snowflake.get_count(NULL), snowflake.get_node(NULL),
       snowflake.to_timestamp(NULL), snowflake.format(NULL), snowflake.from_timestamp(NULL);

-- Flags: decoders IMMUTABLE STRICT PARALLEL SAFE, format STABLE,
-- nextval/currval VOLATILE and not STRICT (NULL is an error).
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args,
       p.provolatile, p.proisstrict, p.proparallel
  FROM pg_proc p
 WHERE p.pronamespace = 'snowflake'::regnamespace
 ORDER BY 1, 2;
-- Usable in an index expression and a generated column.
CREATE TABLE sf_gen (id int8 PRIMARY KEY,
                     node int4 GENERATED ALWAYS AS (snowflake.get_node(id)) STORED);
CREATE INDEX ON sf_gen (snowflake.to_timestamp(id));
INSERT INTO sf_gen (id) VALUES (104651375538868224);
SELECT * FROM sf_gen;
DROP TABLE sf_gen;

-- GUC snowflake.node: unset → nextval refuses with a hint; 1 .. 1023.
-- (A server whose configuration sets it, as every production server does,
-- cannot unset it in a session: there the refusal's text is given as is,
-- and the unset case is checked where the configuration leaves it unset,
-- as in pg/test/run.sh's clusters.)
SELECT current_setting('snowflake.node') = (SELECT reset_val FROM pg_settings WHERE name = 'snowflake.node')
       AS node_is_the_configured_one;
SELECT CASE WHEN current_setting('snowflake.node') = '0' THEN regress.err('SELECT snowflake.nextval()')
            ELSE '55000: snowflake.node is not set (hint: Set snowflake.node in postgresql.conf to a number between 1 and 1023 that is unique per node, then reload.)'
       END AS err;
SELECT regress.err('SET snowflake.node = 0');
SELECT regress.err('SET snowflake.node = 1024');
SELECT regress.err('SET snowflake.node = -1');
SET snowflake.node = 1023;
SET snowflake.node = 1;
SHOW snowflake.node;
-- Only superusers may set it: a node number is an identity.
CREATE ROLE sf_regress_user;
SET ROLE sf_regress_user;
SELECT regress.err('SET snowflake.node = 5');
SHOW snowflake.node;
-- ... but any role may mint IDs from the public default sequence.
SELECT snowflake.get_node(snowflake.nextval()) AS node_as_user;
RESET ROLE;

-- nextval argument errors.
SELECT regress.err('SELECT snowflake.nextval(NULL)');
SELECT regress.err('SELECT snowflake.currval(NULL)');
SELECT regress.err($$SELECT snowflake.nextval('pg_class')$$);
SELECT regress.err($$SELECT snowflake.nextval('no_such_seq')$$);
-- A descending sequence or one too small for the bodies is refused.
CREATE SEQUENCE sf_desc INCREMENT BY -1 MAXVALUE 9223372036854775807 START 1;
SELECT regress.err($$SELECT snowflake.nextval('sf_desc')$$);
CREATE SEQUENCE sf_int4 AS int4;
SELECT regress.err($$SELECT snowflake.nextval('sf_int4')$$);
CREATE SEQUENCE sf_small MAXVALUE 9007199254740991;
SELECT regress.err($$SELECT snowflake.nextval('sf_small')$$);
-- Fixing the sequence makes it usable (the check is not cached stale).
ALTER SEQUENCE sf_desc INCREMENT BY 1;
SELECT snowflake.get_node(snowflake.nextval('sf_desc')) AS fixed;
-- CACHE does not matter: snowflake.nextval() reads and writes the page
-- itself.
CREATE SEQUENCE sf_cached INCREMENT BY 7 CACHE 10;
SELECT count(DISTINCT id) AS distinct_cached,
       bool_and(snowflake.get_node(id) = 1) AS node_ok
  FROM (SELECT snowflake.nextval('sf_cached') AS id FROM generate_series(1, 1000)) s;
CREATE ROLE sf_regress_nopriv;
SET ROLE sf_regress_nopriv;
SELECT regress.err($$SELECT snowflake.nextval('sf_cached')$$);
RESET ROLE;
DROP SEQUENCE sf_desc, sf_cached, sf_int4, sf_small;

-- INCREMENT, as pgEdge snowflake 2.6 has it (snowflake.c,
-- compute_next_flake(), and hibernate.md): within a millisecond a
-- sequence's successive counts step by its INCREMENT, a new millisecond
-- starts at count 0, and a count that would pass 4095 moves to the next
-- millisecond.  chronoid reserves the whole step in the database's ID
-- space and never starts one that would cross the millisecond, so the
-- counts are 0, 100, ..., 3900 (pgEdge's last is 4000) and an application
-- adding up to INCREMENT - 1 to an ID stays in its millisecond and node.
CREATE SEQUENCE sf_inc100 INCREMENT BY 100;
WITH ids AS (
  SELECT i, snowflake.nextval('sf_inc100') AS id FROM generate_series(1, 2000) i
), s AS (
  SELECT snowflake.get_count(id) AS c, snowflake.get_epoch(id) AS ms,
         lag(snowflake.get_count(id)) OVER (ORDER BY i) AS pc,
         lag(snowflake.get_epoch(id)) OVER (ORDER BY i) AS pms
    FROM ids
)
SELECT count(*) AS n,
       count(*) FILTER (WHERE pms = ms AND c <> pc + 100) AS wrong_step,
       count(*) FILTER (WHERE pms < ms AND c <> 0) AS new_ms_not_at_0,
       count(*) FILTER (WHERE pms > ms) AS backwards,
       count(*) FILTER (WHERE pms = ms) >= 1000 AS mostly_same_ms,
       -- the first millisecond may have begun with IDs of an earlier
       -- statement (its counts then step from there): not counted
       max(c) FILTER (WHERE ms > (SELECT min(ms) FROM s)) AS max_count
  FROM s;
-- An INCREMENT of a whole millisecond's counter (4096) or more moves each
-- ID to a millisecond of its own, at count 0.
CREATE SEQUENCE sf_inc_tick INCREMENT BY 4096;
CREATE SEQUENCE sf_inc_huge INCREMENT BY 1000000000;
WITH ids AS (
  SELECT snowflake.nextval(CASE WHEN i % 2 = 0 THEN 'sf_inc_tick' ELSE 'sf_inc_huge' END::regclass) AS id
    FROM generate_series(1, 200) i
)
SELECT count(*) AS n,
       count(*) FILTER (WHERE snowflake.get_count(id) <> 0) AS count_not_0,
       count(DISTINCT snowflake.get_epoch(id)) AS distinct_ms
  FROM ids;
-- Those ran up to 200 ms ahead of the clock: let it catch up, so that the
-- tests below see the ID space at the clock.
SELECT pg_sleep(extract(epoch FROM snowflake.to_timestamp(greatest(snowflake.currval('sf_inc_tick'),
                                                                  snowflake.currval('sf_inc_huge')))
                                   - clock_timestamp()) + 0.002);
-- Other sequences take the values after a step, never inside it: with
-- INCREMENT 50 interleaved with INCREMENT 1 in one statement, no ID of the
-- second lies in [id, id + 49] of the first.
CREATE SEQUENCE sf_inc50 INCREMENT BY 50;
CREATE SEQUENCE sf_inc1;
CREATE TEMP TABLE sf_mix AS
  SELECT i % 3 = 0 AS pooled,
         CASE WHEN i % 3 = 0 THEN snowflake.nextval('sf_inc50')
              ELSE snowflake.nextval('sf_inc1') END AS id
    FROM generate_series(1, 3000) i;
SELECT count(*) FILTER (WHERE pooled) AS pooled, count(*) FILTER (WHERE NOT pooled) AS single,
       count(DISTINCT id) AS distinct_ids,
       max(snowflake.get_count(id)) FILTER (WHERE pooled) <= 4046 AS steps_fit_in_ms,
       (SELECT count(*) FROM sf_mix p JOIN sf_mix o
           ON p.pooled AND NOT o.pooled AND o.id BETWEEN p.id AND p.id + 49) AS inside_a_step
  FROM sf_mix;
-- ALTER SEQUENCE ... INCREMENT takes effect at once.
ALTER SEQUENCE sf_inc50 INCREMENT BY 1;
SELECT count(*) FILTER (WHERE id - prev = 1) >= 100 AS steps_of_1
  FROM (SELECT id, lag(id) OVER (ORDER BY i) AS prev
          FROM (SELECT i, snowflake.nextval('sf_inc50') AS id FROM generate_series(1, 200) i) x) y;
DROP TABLE sf_mix;
DROP SEQUENCE sf_inc100, sf_inc_tick, sf_inc_huge, sf_inc50, sf_inc1;

-- currval: nothing yet for a fresh sequence; then the last ID of this session.
CREATE SEQUENCE sf_seq;
SELECT regress.err($$SELECT snowflake.currval('sf_seq')$$);
SELECT snowflake.nextval('sf_seq') AS v \gset
SELECT snowflake.currval('sf_seq') = :v AS currval_is_last,
       snowflake.get_node(:v) AS node, snowflake.get_count(:v) >= 0 AS count_ok,
       snowflake.to_timestamp(:v) BETWEEN now() - interval '1 minute'
                                      AND clock_timestamp() + interval '1 second' AS time_ok;
SELECT snowflake.nextval() AS d \gset
SELECT snowflake.currval() = :d AS default_currval;

-- 10000 IDs: strictly increasing in call order, node 1 in each.
SELECT count(*) AS n,
       count(*) FILTER (WHERE prev IS NOT NULL AND id <= prev) AS not_increasing,
       count(*) FILTER (WHERE snowflake.get_node(id) <> 1) AS wrong_node
  FROM (SELECT id, lag(id) OVER (ORDER BY i) AS prev
          FROM (SELECT i, snowflake.nextval('sf_seq') AS id
                  FROM generate_series(1, 10000) i) s) t;

-- A burst of more than 4096 in one statement never repeats.
SELECT count(DISTINCT id) AS distinct_ids
  FROM (SELECT snowflake.nextval('sf_seq') AS id FROM generate_series(1, 20000)) s;

-- One ID space per database: sequences never share an ID, not even in
-- the same millisecond, and each still counts up on its own.
CREATE SEQUENCE sf_a;
CREATE SEQUENCE sf_b;
SELECT count(*) FILTER (WHERE a = b) AS equal_pairs, count(*) AS pairs,
       bool_and(a < b) AS a_before_b
  FROM (SELECT snowflake.nextval('sf_a') AS a, snowflake.nextval('sf_b') AS b
          FROM generate_series(1, 1000)) s;
SELECT count(*) = count(DISTINCT id) AS unique_across_sequences,
       bool_and(id > prev) FILTER (WHERE prev IS NOT NULL) AS each_increasing
  FROM (SELECT id, lag(id) OVER (PARTITION BY s ORDER BY i) AS prev
          FROM (SELECT i, s, CASE s WHEN 1 THEN snowflake.nextval('sf_a')
                                   WHEN 2 THEN snowflake.nextval('sf_b')
                                   ELSE snowflake.nextval() END AS id
                  FROM generate_series(1, 3000) i, LATERAL (SELECT i % 3 + 1) x(s)) q) t;

-- Moving a sequence back (setval, RESTART) never lowers the ID space:
-- its next ID is above every ID of the database.
SELECT greatest(snowflake.currval('sf_a'), snowflake.currval('sf_b')) AS top \gset
SELECT setval('sf_a', 1) AS back;
SELECT snowflake.nextval('sf_a') > :top AS above_after_setval_back;
ALTER SEQUENCE sf_b RESTART;
SELECT snowflake.nextval('sf_b') > snowflake.currval('sf_a') AS above_after_restart;

-- After ALTER SEQUENCE and a pause, the next ID carries the clock's time
-- and counter 0: a sequence only sets a floor, and the ID space is not
-- pushed ahead by the change.
ALTER SEQUENCE sf_a CACHE 7;
SELECT pg_sleep(0.01);
SELECT clock_timestamp() AS before \gset
SELECT snowflake.nextval('sf_a') AS v \gset
SELECT snowflake.get_count(:v) AS count_after_alter,
       snowflake.to_timestamp(:v) BETWEEN date_trunc('milliseconds', :'before'::timestamptz)
                                      AND clock_timestamp() AS time_is_the_clocks;
DROP SEQUENCE sf_a, sf_b;

-- Counter overflow: with the sequence at counter 4090 of a millisecond
-- 900 ms ahead of the clock (within snowflake.max_run_ahead, 1 s), the
-- counter carries into the time field.
SELECT setval('sf_seq',
              (((extract(epoch FROM clock_timestamp()) * 1000)::int8
                - 1672531200000 + 900) << 12) | 4090) IS NOT NULL AS set;
SELECT i, snowflake.get_count(id) AS count,
       snowflake.to_timestamp(id) - min(snowflake.to_timestamp(id)) OVER () AS ahead,
       id > lag(id) OVER (ORDER BY i) AS increasing
  FROM (SELECT i, snowflake.nextval('sf_seq') AS id FROM generate_series(1, 8) i) s
 ORDER BY i;
-- A clock behind the high-water mark: IDs continue from it.
SELECT snowflake.to_timestamp(snowflake.nextval('sf_seq')) > clock_timestamp() AS runs_ahead;

-- A sequence moved further ahead than snowflake.max_run_ahead is refused
-- (22023, naming the value), so no sequence owner can push the database's
-- IDs into the future; moving it back (any amount) is always harmless.
CREATE SEQUENCE sf_far;
SELECT setval('sf_far', ((extract(epoch FROM clock_timestamp()) * 1000)::int8
                         - 1672531200000 + 3600000) << 12) AS far \gset
SELECT regexp_replace(regexp_replace(regress.err($$SELECT snowflake.nextval('sf_far')$$),
                                     'value [0-9]+', 'value V'),
                      '[0-9]{4}-[0-9-]+ [0-9:.]+\+00, [0-9]+ ms', 'T, N ms') AS beyond_bound;
SELECT strpos(regress.err($$SELECT snowflake.nextval('sf_far')$$), :'far') > 0 AS names_value;
SELECT setval('sf_far', 1) AS moved_back;
SELECT snowflake.nextval('sf_far') > snowflake.currval('sf_seq') AS above_every_earlier;
DROP SEQUENCE sf_far;

-- Little WAL: a record per second of bodies, not per ID (core nextval()
-- writes one per 32 values).
SELECT pg_current_wal_insert_lsn() AS wal_before \gset
SELECT count(snowflake.nextval('sf_seq')) AS n FROM generate_series(1, 10000);
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'wal_before') < 10000 AS under_a_byte_per_id;

-- snowflake.node_mark holds a mark at or above every ID handed out, so
-- pg_dump and a crash restart from above them.  Nobody mints from it.
SELECT last_value >= (snowflake.currval('sf_seq') >> 22 << 12)
                     + (snowflake.currval('sf_seq') & 4095) AS mark_covers_ids
  FROM snowflake.node_mark;
SELECT regress.err($$SELECT snowflake.nextval('snowflake.node_mark')$$);

-- nextval is not transactional: a rolled-back ID is never handed out again.
BEGIN;
SELECT snowflake.nextval('sf_seq') AS rb \gset
ROLLBACK;
SELECT snowflake.nextval('sf_seq') > :rb AS after_rollback;

-- Read-only transactions: refused as core nextval() is, for a temporary
-- sequence too, since its IDs come from the database's ID space.
BEGIN READ ONLY;
SELECT regress.err($$SELECT snowflake.nextval('sf_seq')$$);
ROLLBACK;
CREATE TEMP SEQUENCE sf_temp_seq;
BEGIN READ ONLY;
SELECT regress.err($$SELECT snowflake.nextval('sf_temp_seq')$$);
ROLLBACK;
SELECT snowflake.get_node(snowflake.nextval('sf_temp_seq')) AS temp_seq_node;
DROP SEQUENCE sf_temp_seq;

-- Within one transaction: a subtransaction rolled back, ALTER and DROP of
-- the sequence after using it (the page path keeps the mark's buffer
-- pinned for the transaction, never a relcache reference).
CREATE SEQUENCE sf_tx;
BEGIN;
SELECT snowflake.get_node(snowflake.nextval('sf_tx')) AS in_tx;
SAVEPOINT sp;
SELECT snowflake.get_node(snowflake.nextval('sf_tx')) AS in_sub;
ROLLBACK TO sp;
SELECT snowflake.currval('sf_tx') AS c \gset
SELECT snowflake.nextval('sf_tx') > :c AS after_sub_rollback;
ALTER SEQUENCE sf_tx CACHE 5;
SELECT snowflake.currval('sf_tx') AS c \gset
SELECT snowflake.nextval('sf_tx') > :c AS after_alter;
DROP SEQUENCE sf_tx;
SELECT regress.err($$SELECT snowflake.nextval('sf_tx')$$);
COMMIT;

-- Core nextval() on the same sequence keeps working meanwhile.
SELECT nextval('sf_seq') > 0 AS core_nextval_ok;

DROP SEQUENCE sf_seq;
DROP ROLE sf_regress_user;
DROP ROLE sf_regress_nopriv;
RESET snowflake.node;
