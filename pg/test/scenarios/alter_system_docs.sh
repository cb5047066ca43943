#!/usr/bin/env bash
# alter_system_docs.sh — the ALTER SYSTEM statements docs/postgresql.md
# gives for snowflake.max_run_ahead work as written, each from a fresh
# connection (psql reading them as a user types them), on a server that
# preloads chronoid or not.  TAP on stdout; run by pg/test/run.sh.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"
: "${PGBIN:?}"
doc=$(dirname "$0")/../../../docs/postgresql.md
set_stmt="LOAD 'chronoid'; ALTER SYSTEM SET snowflake.max_run_ahead = '1h'; SELECT pg_reload_conf();"
reset_stmt="LOAD 'chronoid'; ALTER SYSTEM RESET snowflake.max_run_ahead; SELECT pg_reload_conf();"
for st in "$set_stmt" "$reset_stmt"; do
    check "docs/postgresql.md gives: $st" "$(tr '\n' ' ' <"$doc" | grep -cF "$st")" 1
done
shown() {
    for _ in $(seq 1 100); do
        [ "$(q -d postgres -c "LOAD 'chronoid'" -c "SHOW snowflake.max_run_ahead")" = "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
out=$(echo "$set_stmt" | "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d postgres 2>&1)
check "the documented SET works from a fresh connection (${CHRONOID_MODE:-?})" "$out" t
shown 1h && ok "  ... and a new session shows 1h" || not_ok "  ... and a new session shows 1h"
out=$(echo "$reset_stmt" | "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d postgres 2>&1)
check "the documented RESET works from a fresh connection" "$out" t
shown 1s && ok "  ... and a new session shows 1s" || not_ok "  ... and a new session shows 1s"
tap_done
