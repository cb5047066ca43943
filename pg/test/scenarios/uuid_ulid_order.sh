#!/usr/bin/env bash
# uuid_ulid_order.sh — cross-session order of UUIDv7s and monotonic ULIDs
# on a server whose clock is frozen (libfaketime, Debian package faketime):
# sessions one after another, then 4 concurrent pgbench sessions.
# Preloaded, one server-wide generator orders them across sessions; without
# preload each session's generator restarts at the same frozen instant, so
# the same checks show the difference (the test can fail).  TAP on stdout;
# run by pg/test/run.sh (PGHOST, PGPORT, PGBIN, PGDATA, PGLOG,
# CHRONOID_TMP, CHRONOID_PGCTL set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}" "${PGDATA:?}" "${PGLOG:?}" "${CHRONOID_TMP:?}" "${CHRONOID_PGCTL:?}"
db=uuid_scenario_order
export PGDATABASE=$db
export PGOPTIONS="-c client_min_messages=warning"

need_faketime

preload=$(q -d postgres -c "SELECT current_setting('shared_preload_libraries') ~ '(^|[ ,])chronoid($|[ ,])'")

# Never leave the server on a frozen clock for what runs next.
faked=
restore() { $CHRONOID_PGCTL restart >/dev/null 2>&1 && faked=; }
trap 'if [ -n "$faked" ]; then restore; fi' EXIT

fresh_db "$db"
q -c "CREATE TABLE o (n bigserial PRIMARY KEY, kind text NOT NULL, u uuid, l ulid)"

# A frozen clock ("YYYY-MM-DD hh:mm:ss" without @ stops libfaketime's
# clock), a few seconds ahead so the IDs carry the frozen millisecond.
frozen=$(date -u -d '+5 seconds' '+%Y-%m-%d %H:%M:%S')
faked=1
if runuser -u postgres -- env LD_PRELOAD="$lib" FAKETIME="$frozen" TZ=UTC \
    DONT_FAKE_MONOTONIC=1 "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w restart \
    >/dev/null 2>&1; then
    ok "server restarted with its clock frozen at $frozen UTC"
else
    not_ok "server restarted with its clock frozen at $frozen UTC"
    tail -n 20 "$PGLOG" | sed 's/^/# /'
    restore
    tap_done
fi
check "the server's clock stands still" \
    "$(q -c "SELECT clock_timestamp() = '$frozen+00' AND statement_timestamp() = '$frozen+00'")" t

# 20 sessions one after another, each calling every name in a fixed
# order.  uuidv7(), chronoid_uuidv7() and uuid_generate_v7() share one
# generator; uuidv7(interval) is ordered among calls with the same shift.
# (public.uuidv7: on PostgreSQL 18 the bare name is core's.)
for i in $(seq 1 20); do
    q -c "INSERT INTO o (kind, u) VALUES ('v7', public.uuidv7()), ('v7', chronoid_uuidv7()),
              ('v7', uuid_generate_v7()), ('v7', chronoid_uuidv7()),
              ('v7shift', public.uuidv7(interval '-1 hour')), ('v7shift', chronoid_uuidv7(interval '-1 hour'));
          INSERT INTO o (kind, l) VALUES ('ulid', gen_monotonic_ulid()), ('ulid', gen_monotonic_ulid())"
done
# out_of_order KIND: values not above the previous one in call order
out_of_order() {
    q -c "SELECT count(*) FILTER (WHERE v <= prev) FROM
            (SELECT v, lag(v) OVER (ORDER BY n) AS prev
             FROM (SELECT n, coalesce(u::text, l::text) COLLATE \"C\" AS v FROM o WHERE kind = '$1') s) t"
}
check "80 UUIDv7s from 20 sessions, all distinct" \
    "$(q -c "SELECT count(DISTINCT u) FROM o WHERE kind = 'v7'")" 80
if [ "$preload" = t ]; then
    check "preloaded: uuidv7/chronoid_uuidv7/uuid_generate_v7 increase across 20 sessions" \
        "$(out_of_order v7)" 0
    check "preloaded: uuidv7(interval) increases across 20 sessions" "$(out_of_order v7shift)" 0
    check "preloaded: gen_monotonic_ulid() increases across 20 sessions" "$(out_of_order ulid)" 0
else
    # Each new session's generator starts again at the frozen instant.
    check "without preload: each session's first UUIDv7 is below the previous session's last" \
        "$(out_of_order v7)" 19
    check "without preload: so is each session's first uuidv7(interval)" "$(out_of_order v7shift)" 19
    bad=$(out_of_order ulid)
    if [ "$bad" -gt 0 ]; then
        ok "without preload: monotonic ULIDs of 20 sessions are not in call order ($bad inversions)"
    else
        not_ok "without preload: 40 ULIDs of 20 sessions in one frozen millisecond came out in call order"
    fi
fi
check "within every session the values increase (both modes)" \
    "$(q -c "SELECT count(*) FROM (SELECT n, kind, coalesce(u::text, l::text) COLLATE \"C\" AS v,
               lag(coalesce(u::text, l::text) COLLATE \"C\") OVER (PARTITION BY kind, (n - 1) / 8 ORDER BY n) AS prev
               FROM o) s WHERE v <= prev")" 0

# 4 concurrent sessions on the frozen clock: with one shared generator,
# the (millisecond, 12-bit fraction) prefix of every UUIDv7 differs; with
# per-session generators the sessions reuse the same prefixes.
work=$CHRONOID_TMP/uuid_order
mkdir -p "$work"
q -c "CREATE TABLE c (u uuid PRIMARY KEY, l ulid UNIQUE NOT NULL)"
cat >"$work/c.sql" <<'SQL'
INSERT INTO c (u, l) SELECT chronoid_uuidv7(), gen_monotonic_ulid() FROM generate_series(1, 200);
SQL
if "$PGBIN/pgbench" -n -c 4 -j 4 -t 50 -f "$work/c.sql" >"$work/pgbench.log" 2>&1; then
    ok "pgbench: 4 sessions x 50 transactions x 200 UUIDv7s and ULIDs, frozen clock"
else
    not_ok "pgbench: 4 sessions x 50 transactions x 200 UUIDv7s and ULIDs, frozen clock"
    tail -n 20 "$work/pgbench.log" | sed 's/^/# /'
fi
prefixes=$(q -c "SELECT count(DISTINCT substr(u::text, 1, 18)) FROM c")
rows=$(q -c "SELECT count(*) FROM c")
check "40000 rows, no duplicate UUIDv7 or ULID (primary key, unique)" "$rows" 40000
if [ "$preload" = t ]; then
    check "preloaded: every UUIDv7 has its own (ms, fraction) across 4 sessions" "$prefixes" "$rows"
else
    if [ "$prefixes" -lt "$rows" ]; then
        ok "without preload: sessions reuse (ms, fraction) prefixes ($prefixes for $rows rows)"
    else
        not_ok "without preload: expected shared prefixes across sessions, got $prefixes for $rows rows"
    fi
fi

if restore; then
    ok "server restarted with the true clock"
else
    not_ok "server restarted with the true clock"
fi
"$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
tap_done
