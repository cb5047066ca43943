-- PostgreSQL 16+: ulid text input reports bad input as a soft error, so
-- pg_input_is_valid() and pg_input_error_info() answer without raising,
-- with the same SQLSTATE and message as the hard error.  Older servers
-- have neither function: there the suite says it is skipped
-- (hostile_soft_errors.out); the output on 16+ is the alternative
-- hostile_soft_errors_1.out, recorded on PostgreSQL 18.6 and read line by line.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
RESET client_min_messages;
SELECT current_setting('server_version_num')::int >= 160000 AS pg16 \gset
\if :pg16

SELECT v.label, pg_input_is_valid(v.txt, 'ulid') AS valid,
       e.sql_error_code, e.message, e.detail
  FROM (VALUES ('valid', '01ARZ3NDEKTSV4RRFFQ69G5FAV'),
               ('lower case', '01arz3ndektsv4rrffq69g5fav'),
               ('largest', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'),
               ('empty', ''),
               ('25 characters', '01ARZ3NDEKTSV4RRFFQ69G5FA'),
               ('27 characters', '01ARZ3NDEKTSV4RRFFQ69G5FAVV'),
               ('I', '01ARZ3NDEKTSV4RRFFQ69G5FAI'),
               ('L', '01ARZ3NDEKTSV4RRFFQ69G5FAL'),
               ('O', 'O1ARZ3NDEKTSV4RRFFQ69G5FAV'),
               ('U', '01ARZ3NDEKTSV4RRFFQ69G5FAU'),
               ('space inside', '01ARZ3NDEK SV4RRFFQ69G5FAV'),
               ('tab inside', E'01ARZ3NDEK\tSV4RRFFQ69G5FAV'),
               ('non-ASCII', '01ARZ3NDEKTSV4RRFFQ69G5FÄ'),
               ('800...0', '80000000000000000000000000'),
               ('9ZZ...Z', '9ZZZZZZZZZZZZZZZZZZZZZZZZZ')) v(label, txt)
  CROSS JOIN LATERAL pg_input_error_info(v.txt, 'ulid') e
 ORDER BY v.label;
-- A 10000-character value: soft too, and the message names its length.
SELECT pg_input_is_valid(repeat('0', 10000), 'ulid') AS valid,
       e.sql_error_code, e.detail
  FROM pg_input_error_info(repeat('0', 10000), 'ulid') e;
-- The hard error is unchanged.
SELECT 'O1ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid;
\else
\echo skipped: pg_input_is_valid() and pg_input_error_info() need PostgreSQL 16 or later
\endif
