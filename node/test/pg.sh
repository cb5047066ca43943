#!/usr/bin/env bash
# pg.sh — the npm package against a real PostgreSQL: a throwaway cluster
# (scripts/pgcluster.sh), the chronoid extension created in it (installed
# first, under the shared lock, only when the server has none), then
# node --test on test/pg/: node-postgres (from node/node_modules, which
# scripts/setup.sh fills), node leases and block allocators
# (libchronoid_lease in the addon).  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
. scripts/pgcluster.sh

if [ ! -d node/node_modules/pg ]; then
    not_ok "node-postgres is not installed in node/node_modules (scripts/setup.sh installs it)"
    tap_done
    exit 1
fi
node node/scripts/build.js || { not_ok "node/scripts/build.js"; tap_done; exit 1; }
pgc_start >/dev/null || { not_ok "start a throwaway PostgreSQL cluster"; tap_done; exit 1; }
# Held only while the extension's files are read: another session may be
# installing a newer build of them.
ext_dir="$("${PG_CONFIG:-pg_config}" --sharedir)/extension"
if ! flock /tmp/chronoid-pg.lock bash -c '
        [ -f "$1/chronoid.control" ] || make -s -C pg install PG_CONFIG="${PG_CONFIG:-pg_config}" >/dev/null
        psql -qX -v ON_ERROR_STOP=1 -c "CREATE EXTENSION chronoid" >/dev/null' _ "$ext_dir"; then
    not_ok "CREATE EXTENSION chronoid"
    tap_done
    exit 1
fi
node --test --test-reporter=tap node/test/pg/*.test.js
