#!/usr/bin/env bash
# pg_upgrade.sh — a database using chronoid (snowflake defaults, a serial
# converted to snowflakes, ulid and uuid keys minted by chronoid, btree and
# hash indexes) upgraded with pg_upgrade from one major version to another
# (make check-matrix: 15 to 18): the data and IDs come through intact,
# defaults still reach chronoid's functions (not core's uuidv7() on 18),
# and new IDs mint above every old one, also with the ID space an hour
# ahead of the clock (only the upgraded sequences can know that).  TAP on
# stdout.
#
#   OLD_PG_CONFIG=pg_config NEW_PG_CONFIG=/var/cache/chronoid/pg/18/bin/pg_config \
#       pg/test/pg_upgrade.sh
#
# As root: installs the extension into both servers (make -C pg install),
# runs both as postgres in one temporary directory (scripts/pgcluster.sh),
# removed at exit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# TAP, and q: psql of the running cluster (PGC_BIN, the old server's and
# then the new one's), errors in the output.
. "$root/scripts/scenario.bash"

[ "$(id -u)" -eq 0 ] || skip_all "pg_upgrade.sh must run as root (it runs the servers as postgres)"
: "${OLD_PG_CONFIG:?}" "${NEW_PG_CONFIG:?}"
if ! oldbin=$("$OLD_PG_CONFIG" --bindir) || ! newbin=$("$NEW_PG_CONFIG" --bindir); then
    bail "pg_config: $OLD_PG_CONFIG, $NEW_PG_CONFIG"
fi
oldv=$("$OLD_PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
newv=$("$NEW_PG_CONFIG" --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
label="pg_upgrade $oldv to $newv"

. "$root/scripts/pgcluster.sh"
pgc_mkdir
tmp=$PGC_DIR
for cfg in "$OLD_PG_CONFIG" "$NEW_PG_CONFIG"; do
    if ! make -C "$root/pg" PG_CONFIG="$cfg" install >"$tmp/install.log" 2>&1; then
        not_ok "make -C pg install PG_CONFIG=$cfg"
        tail -n 30 "$tmp/install.log" | diag
        tap_done
    fi
done
ok "chronoid installed into PostgreSQL $oldv and $newv"

# Both clusters get the same settings: an hour of snowflake run-ahead
# (the ID space is set an hour ahead below; the setting is in
# postgresql.conf, which pg_upgrade does not carry over).
settings=("snowflake.max_run_ahead = '2h'")
PG_CONFIG=$OLD_PG_CONFIG pgc_start "${settings[@]}" 2>"$tmp/start.err" ||
    { not_ok "PostgreSQL $oldv starts"; diag <"$tmp/start.err"; tap_done; }
export PGOPTIONS="-c snowflake.node=1 -c client_min_messages=warning"

"$PGC_BIN/createdb" app || bail "createdb app"
export PGDATABASE=app
# Column options the old server keeps on every column go into the dump
# as they are; the new server must know them (Debian 12's 15.20 sets
# pg_attver, which 18.6 rejects: pg_upgrade then fails on any table).
opts=$(q -c "CREATE TABLE probe (a int)" -c "SELECT string_agg(DISTINCT split_part(o, '=', 1), ' ')
    FROM pg_attribute, unnest(attoptions) o WHERE attrelid = 'probe'::regclass" -c "DROP TABLE probe")
[ -n "$opts" ] && diag "PostgreSQL $("$PGC_BIN/postgres" --version | cut -d' ' -f3-) sets column options on every column: $opts"
if ! q >"$tmp/load.log" 2>&1 <<'SQL'; then
CREATE EXTENSION chronoid;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake.nextval(), item text NOT NULL);
CREATE INDEX orders_time ON orders (snowflake.to_timestamp(id));
CREATE TABLE legacy (id serial PRIMARY KEY, v int NOT NULL);
INSERT INTO legacy (v) SELECT g FROM generate_series(1, 100) g;
SELECT snowflake.convert_sequence_to_snowflake('legacy_id_seq');
CREATE TABLE users (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), name text NOT NULL);
CREATE INDEX users_hash ON users USING hash (id);
CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidv7(), body text NOT NULL);
-- The ID space an hour ahead of the clock: after the upgrade only the
-- carried-over sequence state keeps new snowflakes above these.
SELECT setval('snowflake.id_seq',
              ((extract(epoch FROM clock_timestamp()) * 1000)::int8
               - 1672531200000 + 3600000) << 12);
INSERT INTO orders (item) SELECT 'item ' || g FROM generate_series(1, 1000) g;
INSERT INTO legacy (v) SELECT g FROM generate_series(101, 1100) g;
INSERT INTO users (name) SELECT 'user ' || g FROM generate_series(1, 1000) g;
INSERT INTO events (body) SELECT 'event ' || g FROM generate_series(1, 1000) g;
SQL
    not_ok "$label: the database on PostgreSQL $oldv"
    diag <"$tmp/load.log"
    tap_done
fi
ok "$label: 1000 rows per table, snowflake/ulid/uuidv7 keys, on PostgreSQL $oldv"

# A fingerprint of every table, and the largest ID of each.
fingerprint() {
    q -c "SELECT (SELECT md5(string_agg(id || ':' || item, ',' ORDER BY id)) FROM orders),
                 (SELECT md5(string_agg(id || ':' || v, ',' ORDER BY id)) FROM legacy),
                 (SELECT md5(string_agg(id || ':' || name, ',' ORDER BY id)) FROM users),
                 (SELECT md5(string_agg(id || ':' || body, ',' ORDER BY id)) FROM events)"
}
# (ulid and uuid have no max(): ORDER BY, which their btree opclass serves.)
maxima() {
    q -c "SELECT (SELECT max(id) FROM orders), (SELECT max(id) FROM legacy),
                 (SELECT id FROM users ORDER BY id DESC LIMIT 1),
                 (SELECT id FROM events ORDER BY id DESC LIMIT 1)"
}
if ! before=$(fingerprint) || ! old_max=$(maxima) ||
    ! old_ext=$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'"); then
    bail "fingerprint on PostgreSQL $oldv"
fi
pgc_pgctl -m fast stop >/dev/null || bail "stop PostgreSQL $oldv"

# The new cluster, with data checksums as the old one has them: 18's
# initdb enables them by default, earlier ones do not, and pg_upgrade
# refuses a mismatch.
sums=$(_pgc_as_owner "$oldbin/pg_controldata" -D "$PGC_DATA" | sed -nE 's/^Data page checksum version: *([0-9]+)/\1/p')
if [ "$sums" = 0 ]; then
    ck=$([ "$newv" -ge 18 ] && echo --no-data-checksums)
else
    ck=--data-checksums
fi
new=$PGC_DIR/data.new
# shellcheck disable=SC2086 # $ck is empty or one option
if ! _pgc_as_owner "$newbin/initdb" -D "$new" -U postgres -A trust -E UTF8 --locale=C \
    --no-sync $ck >"$tmp/initdb.new.log" 2>&1; then
    not_ok "$label: initdb $newv"
    diag <"$tmp/initdb.new.log"
    tap_done
fi

# pg_upgrade writes its logs into the new data directory and its cwd;
# both servers listen only on our socket directory.
upgrade() {
    (cd "$tmp" && _pgc_as_owner "$newbin/pg_upgrade" -b "$oldbin" -B "$newbin" \
        -d "$PGC_DATA" -D "$new" -U postgres -p "$PGC_PORT" -P "$PGC_PORT" \
        --socketdir "$PGC_SOCK" "$@")
}
if upgrade --check >"$tmp/check.log" 2>&1; then
    ok "$label: pg_upgrade --check"
else
    not_ok "$label: pg_upgrade --check"
    tail -n 30 "$tmp/check.log" | diag
    tap_done
fi
if upgrade >"$tmp/upgrade.log" 2>&1; then
    ok "$label: pg_upgrade (checksums: $([ "$sums" = 0 ] && echo off || echo on) in both)"
else
    not_ok "$label: pg_upgrade"
    tail -n 8 "$tmp/upgrade.log" | diag
    # The errors in pg_upgrade's logs (they go with the temp dir).
    find "$new/pg_upgrade_output.d" -name '*.log' -exec grep -h -B 3 -A 3 -E 'ERROR|FATAL' {} + 2>/dev/null |
        head -n 40 | diag
    tap_done
fi

# From here on pgcluster's functions (and its exit trap) own the new one.
if ! mv "$PGC_DATA" "$PGC_DIR/data.old" || ! mv "$new" "$PGC_DATA"; then
    bail "swap data directories"
fi
PGC_BIN=$newbin
_pgc_conf "port = $PGC_PORT" "listen_addresses = ''" "unix_socket_directories = '$PGC_SOCK'" \
    "fsync = off" "${settings[@]}"
pgc_start 2>"$tmp/start.err" || { not_ok "PostgreSQL $newv starts"; diag <"$tmp/start.err"; tap_done; }

check "$label: every row and ID intact" "$(fingerprint 2>&1)" "$before"
check "$label: extension version carried over" \
    "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'" 2>&1)" "$old_ext"
check "$label: ALTER EXTENSION chronoid UPDATE" \
    "$(q -c "ALTER EXTENSION chronoid UPDATE" -c "SELECT extversion = default_version
        FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname
       WHERE extname = 'chronoid'" 2>&1)"
# The restored default names chronoid's function by OID: on 18 it must not
# have become core's pg_catalog.uuidv7().
check "$label: events.id's default is still chronoid's uuidv7()" \
    "$(q -c "SELECT count(*) FROM pg_attrdef a JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass
              AND d.objid = a.oid AND d.refclassid = 'pg_proc'::regclass
             JOIN pg_proc p ON p.oid = d.refobjid JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE a.adrelid = 'events'::regclass AND p.proname = 'uuidv7' AND n.nspname = 'public'" 2>&1)" 1
check "$label: the ulid btree and the snowflake expression index answer" \
    "$(q -c "SET enable_seqscan = off" -c "SELECT count(*) FROM users WHERE id = (SELECT id FROM users ORDER BY id DESC LIMIT 1)" \
        -c "SELECT count(*) FROM orders WHERE snowflake.to_timestamp(id) > '2023-01-01'" 2>&1)" $'1\n1000'
# Without the primary key the planner can only use the hash index.
check "$label: the ulid hash index answers" \
    "$(q -c "ALTER TABLE users DROP CONSTRAINT users_pkey" -c "SET enable_seqscan = off" \
        -c "SET enable_bitmapscan = off" -c "CREATE TEMP TABLE one AS SELECT id FROM users LIMIT 1" \
        -c "EXPLAIN (COSTS OFF) SELECT * FROM users WHERE id = (SELECT id FROM one)" \
        -c "SELECT count(*) FROM users WHERE id = (SELECT id FROM one)" 2>&1 | grep -cE 'users_hash|^1$')" 2

# The upgraded cluster is a new server to the node registry (initdb gave
# it a new system identifier), and the old one's claim of node 1 is in the
# upgraded table: minting is refused until the retired server's claim is
# released (docs/postgresql.md, "PostgreSQL versions").
out=$(q -c "SELECT snowflake.nextval()" 2>&1)
if grep -q 'snowflake node 1 is already claimed by server' <<<"$out"; then
    ok "$label: snowflake.nextval() refused: node 1 is the old server's in the registry"
else
    not_ok "$label: snowflake.nextval() refused: node 1 is the old server's in the registry"
    diag <<<"$out"
fi
check "$label: snowflake.release_node(1) on the upgraded server" \
    "$(q -c "SELECT snowflake.release_node(1)" 2>&1)"

# mint_after TAG: 1000 new rows per table tagged TAG, then whether every
# one of them is above every earlier ID (one line of four booleans).
mint_after() {
    q -v tag="$1" <<'SQL'
CREATE TEMP TABLE old_max AS
SELECT (SELECT max(id) FROM orders) o, (SELECT max(id) FROM legacy) l,
       (SELECT id FROM users ORDER BY id DESC LIMIT 1) u,
       (SELECT id FROM events ORDER BY id DESC LIMIT 1) e;
INSERT INTO orders (item) SELECT :'tag' || g FROM generate_series(1, 1000) g;
INSERT INTO legacy (v) SELECT -g FROM generate_series(1, 1000) g;
INSERT INTO users (name) SELECT :'tag' || g FROM generate_series(1, 1000) g;
INSERT INTO events (body) SELECT :'tag' || g FROM generate_series(1, 1000) g;
SELECT (SELECT min(id) FROM orders WHERE item LIKE :'tag' || '%') > o,
       (SELECT count(*) FROM legacy WHERE id > l) = 1000,
       (SELECT id FROM users WHERE name LIKE :'tag' || '%' ORDER BY id LIMIT 1) > u,
       (SELECT id FROM events WHERE body LIKE :'tag' || '%' ORDER BY id LIMIT 1) > e
  FROM old_max;
SQL
}
check "$label: new snowflake/converted/ulid/uuidv7 IDs above the old ones" "$(mint_after 'new ' 2>&1)" "t|t|t|t"
check "$label: the old IDs kept their maximum" \
    "$(q -c "SELECT max(id) FROM orders WHERE item NOT LIKE 'new %'" 2>&1)" "$(cut -d'|' -f1 <<<"$old_max")"

# And preloaded: the server-wide generators start from an upgraded
# database (pg_upgrade does not copy pg_chronoid.state: the clock decides).
if pgc_restart "shared_preload_libraries = 'chronoid'" 2>"$tmp/restart.err"; then
    check "$label: preloaded, new IDs still above the old ones" "$(mint_after 'preloaded ' 2>&1)" "t|t|t|t"
else
    not_ok "$label: PostgreSQL $newv restarts with shared_preload_libraries"
    diag <"$tmp/restart.err"
fi
tap_done
