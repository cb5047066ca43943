-- Snowflake node registry (docs/cluster.md): snowflake.nextval() claims
-- its number in snowflake.node_registry and refuses a number another
-- server claimed first; claim_node() / release_node(); the replication
-- dedup trigger; pg_dump membership.  Server identities vary per run:
-- system identifiers, ports and times are masked in the messages.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS chronoid;
SET DateStyle = 'ISO, YMD';
SET TimeZone = 'UTC';

-- Only this suite's claims count.
DELETE FROM snowflake.node_registry;

-- The first ID under a number claims it for this server, once.
SET snowflake.node = 3;
SELECT snowflake.get_node(snowflake.nextval()) AS node;
SELECT count(snowflake.nextval()) FROM generate_series(1, 1000);
SELECT node,
       system_identifier = (SELECT c.system_identifier FROM pg_control_system() c) AS this_server,
       database = current_database() AS this_database,
       server = snowflake.server_label() AS labelled,
       claimed_at <= clock_timestamp() AS claimed_before_now
  FROM snowflake.node_registry ORDER BY node;
SELECT snowflake.server_label() ~ '^port [0-9]+$' OR snowflake.server_label() = current_setting('cluster_name')
       AS label_is_cluster_name_or_port;

-- A number another server claimed: no ID, an error naming both servers.
INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
VALUES (4, 1, 'appdb', 'other-server', clock_timestamp() - interval '1 hour');
SET snowflake.node = 4;
SELECT regress.err_masked('SELECT snowflake.nextval()');
SELECT count(*) AS claims_of_4 FROM snowflake.node_registry WHERE node = 4;

-- A race: another server's claim of 3 arrives, made before this one's.
-- The earlier claim wins on both servers; this one stops minting under 3.
INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
VALUES (3, 2, 'appdb', 'racer', '2024-01-01 00:00:00+00');
SET snowflake.node = 3;
SELECT regress.err_masked('SELECT snowflake.nextval()');
-- A later claim of a number this server holds loses: minting goes on.
SET snowflake.node = 6;
SELECT snowflake.get_node(snowflake.nextval()) AS node;
INSERT INTO snowflake.node_registry (node, system_identifier, database, server, claimed_at)
VALUES (6, 3, 'appdb', 'latecomer', clock_timestamp() + interval '1 hour');
SET snowflake.node = 5;
SELECT snowflake.get_node(snowflake.nextval()) AS node;
SET snowflake.node = 6;
SELECT snowflake.get_node(snowflake.nextval()) AS node;

-- claim_node(): the lowest free number, or the one asked for, for this
-- server or for a named one (claimed on the coordinator for a new node).
SELECT snowflake.claim_node() AS free;
SELECT snowflake.claim_node(2) AS asked;
SELECT snowflake.claim_node(2) AS again_same_server;
SELECT snowflake.claim_node(p_system_identifier => 424242, p_server => 'new-node') AS for_new_node;
SELECT node, system_identifier, server FROM snowflake.node_registry
 WHERE system_identifier = 424242;
SELECT regress.err_masked('SELECT snowflake.claim_node(4)');
SELECT regress.err_masked('SELECT snowflake.claim_node(1024)');
SELECT regress.err_masked('SELECT snowflake.claim_node(0)');

-- release_node(): every claim of the number goes; the number is usable.
SELECT snowflake.release_node(4) AS released;
SELECT snowflake.release_node(4) AS released_again;
SET snowflake.node = 4;
SELECT snowflake.get_node(snowflake.nextval()) AS node;
SELECT count(*) AS claims_of_4 FROM snowflake.node_registry WHERE node = 4;

-- Superusers only claim and release; other roles still mint, yet cannot
-- write the registry.
CREATE ROLE sf_registry_user;
SET ROLE sf_registry_user;
SELECT regress.err_masked('SELECT snowflake.claim_node()');
SELECT regress.err_masked('SELECT snowflake.release_node(4)');
SELECT regress.err_masked($$INSERT INTO snowflake.node_registry VALUES (9, 9, 'x', 'x', now())$$);
SELECT regress.err_masked('DELETE FROM snowflake.node_registry');
SELECT snowflake.get_node(snowflake.nextval()) AS node_as_user;
SELECT count(*) > 0 AS user_reads_registry FROM snowflake.node_registry;
RESET ROLE;
DROP ROLE sf_registry_user;

-- Replication echo: an apply worker (session_replication_role = replica)
-- skips a claim the registry holds; a local duplicate is still an error.
SET session_replication_role = replica;
INSERT INTO snowflake.node_registry (node, system_identifier, database, server)
VALUES (2, (SELECT c.system_identifier FROM pg_control_system() c), 'echo', 'echo');
RESET session_replication_role;
SELECT count(*) AS claims_of_2, min(database) = current_database() AS original_kept
  FROM snowflake.node_registry WHERE node = 2;
SELECT regress.err_masked($$INSERT INTO snowflake.node_registry (node, system_identifier, database, server)
VALUES (2, (SELECT c.system_identifier FROM pg_control_system() c), 'dup', 'dup')$$);
SELECT t.tgname, t.tgenabled FROM pg_trigger t
 WHERE t.tgrelid = 'snowflake.node_registry'::regclass AND NOT t.tgisinternal;

-- pg_dump keeps the registry's rows.
SELECT 'snowflake.node_registry'::regclass = ANY (e.extconfig) AS dumped
  FROM pg_extension e WHERE e.extname = 'chronoid';

-- check_node() registers only the number the server uses (no argument).
SELECT pg_get_function_identity_arguments('snowflake.check_node'::regproc) AS check_node_args;

DELETE FROM snowflake.node_registry;
RESET snowflake.node;
