#!/usr/bin/env bash
# fault_load.sh — load: 8 pgbench clients for FAULT_LOAD_SECONDS (5 here;
# 60 in `make soak`) per kind of key — snowflake.nextval(), uuidv7(),
# gen_monotonic_ulid() and a bigserial (control) — each transaction
# inserting 10 rows into a table with a primary key, with the client's
# number and a per-client counter.  Asserts zero errors, zero duplicates,
# every row accounted for, and each client's IDs increasing.  Prints a
# "# figures:" line per kind (and appends it to $FAULT_FIGURES when set).
# TAP on stdout; run by pg/test/run.sh in both modes.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=fault_lib.bash
. "$here/fault_lib.bash"

secs=${FAULT_LOAD_SECONDS:-5}
clients=${FAULT_LOAD_CLIENTS:-8}
per_tx=10
mode=${CHRONOID_MODE:-plain}

fl_setup fault_load

for k in "${FL_KINDS[@]}"; do
    tbl=l_$k
    if [ "$k" = serial ]; then
        q -c "CREATE TABLE $tbl (id bigserial PRIMARY KEY, s int4 NOT NULL, c int8 NOT NULL)"
    else
        q -c "CREATE TABLE $tbl (id ${FL_TYPE[$k]} PRIMARY KEY DEFAULT ${FL_DEFAULT[$k]},
                                 s int4 NOT NULL, c int8 NOT NULL)"
    fi
    # pgbench keeps each client's variables across its transactions: :t
    # counts them, and c = t * 10 + row numbers the client's rows in the
    # order the defaults were evaluated.
    cat >"$FL_WORK/$k.sql" <<SQL
\\set t :t + 1
INSERT INTO $tbl (s, c) SELECT :client_id, :t * $per_tx + g FROM generate_series(0, $((per_tx - 1))) g;
SQL
    if "$PGBIN/pgbench" -n -c "$clients" -j 2 -T "$secs" -D t=0 -f "$FL_WORK/$k.sql" \
        >"$FL_WORK/$k.log" 2>&1; then
        pb=ok
    else
        pb=fail
    fi
    processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$FL_WORK/$k.log")
    failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$FL_WORK/$k.log")
    errors=$(grep -c -E 'ERROR|FATAL|aborted' "$FL_WORK/$k.log")
    [ -n "$failed" ] && errors=$((errors + failed))
    res=$(q -c "SELECT count(*), count(DISTINCT id), count(DISTINCT s) FROM $tbl")
    IFS='|' read -r rows distinct sessions <<<"$res"
    dups=$((rows - distinct))
    rate=$((rows / secs))
    if [ "$pb" = ok ] && [ "$errors" = 0 ] && [ -n "$processed" ]; then
        ok "${FL_NAME[$k]}: $clients clients x $secs s, $processed transactions, zero errors"
    else
        not_ok "${FL_NAME[$k]}: pgbench $clients clients x $secs s: exit $pb, $errors errors"
        grep -v '^progress' "$FL_WORK/$k.log" | tail -n 15 | diag
    fi
    if [ -n "$processed" ] && [ "$rows" = "$((processed * per_tx))" ] && [ "$dups" = 0 ] &&
        [ "$sessions" = "$clients" ]; then
        ok "${FL_NAME[$k]}: $rows rows = transactions x $per_tx from $sessions clients, zero duplicates"
    else
        not_ok "${FL_NAME[$k]}: $rows rows ($distinct distinct, $sessions clients) for ${processed:-?} transactions x $per_tx"
    fi
    check "${FL_NAME[$k]}: IDs increase within every client (counter order)" \
        "$(q -c "SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY s ORDER BY c) AS prev
                                       FROM $tbl) x WHERE id <= prev")" 0
    line="$mode|$k|$clients|$secs|$rows|$rate|$errors|$dups"
    echo "# figures: $line"
    [ -n "${FAULT_FIGURES:-}" ] && echo "$line" >>"$FAULT_FIGURES"
    q -c "DROP TABLE $tbl"
done
tap_done
