#!/usr/bin/env bash
# pg/test/cluster/run.sh — chronoid across PostgreSQL nodes joined by
# PostgreSQL 15's built-in logical replication (docs/cluster.md): three
# writers, each with its own snowflake.node, publish to one aggregator; two
# sessions per writer insert snowflake / uuidv7 / ULID keyed rows across
# checkpoints; then every row must have arrived with no conflict, in each
# session's order, naming its origin.  Again with one writer's clock 2 s
# behind (libfaketime), measuring how far global ID order strays from real
# time.  Then the node registry: a writer started with a number another
# server holds is refused, claim_node()/release_node() through the
# aggregator.  Run as root (the servers run as postgres); prints TAP.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
# TAP, q (through qn below) and faketime_lib
. "$root/pg/test/scenarios/scenario_lib.bash"
PG_CONFIG=${PG_CONFIG:-pg_config}
# Seconds of inserting: phase 1 (clocks agree), phase 2 (one 2 s behind).
RUN1=${CID_CLUSTER_RUN1:-35}
RUN2=${CID_CLUSTER_RUN2:-15}

if [ "$(id -u)" -ne 0 ]; then
    skip_all "pg/test/cluster/run.sh must run as root (the servers run as postgres)"
fi
if ! pgxs=$("$PG_CONFIG" --pgxs 2>/dev/null) || [ ! -f "$pgxs" ] || ! id postgres >/dev/null 2>&1; then
    skip_all "PostgreSQL server development files or the postgres OS user are missing"
fi
ftlib=$(faketime_lib)

PGBIN=$("$PG_CONFIG" --bindir)
export TZ=UTC LC_ALL=C
unset PGHOST PGPORT PGDATABASE PGHOSTADDR PGSERVICE
export PGOPTIONS="-c client_min_messages=warning"
tmp=$(mktemp -d /tmp/chronoid-cluster.XXXXXX) || exit 1
chmod 755 "$tmp"
chown postgres: "$tmp"

# ------------------------------------------------------------------------
# Several throwaway clusters (scripts/pgcluster.sh holds one per shell):
# node NAME lives in $tmp/NAME with its socket in $tmp/NAME/sock.
# ------------------------------------------------------------------------
nodes=()
declare -A PORT
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    local nm
    for nm in "${nodes[@]}"; do
        [ -f "$tmp/$nm/data/postmaster.pid" ] &&
            runuser -u postgres -- "$PGBIN/pg_ctl" -D "$tmp/$nm/data" -m immediate stop >/dev/null 2>&1
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

as_pg() { runuser -u postgres -- "$@"; }

# A port no local server (nor one of ours) answers on.
free_port() {
    local p nm used
    for p in $(seq 5600 5699); do
        used=
        for nm in "${nodes[@]}"; do [ "${PORT[$nm]}" = "$p" ] && used=1; done
        [ -n "$used" ] && continue
        if ! "$PGBIN/pg_isready" -q -h localhost -p "$p" >/dev/null 2>&1 &&
            ! "$PGBIN/pg_isready" -q -h /var/run/postgresql -p "$p" >/dev/null 2>&1; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# node_init NAME CONF-LINES...: initdb, settings for logical replication.
node_init() {
    local nm=$1 d=$tmp/$1 p
    shift
    p=$(free_port) || return 1
    nodes+=("$nm")
    PORT[$nm]=$p
    mkdir -p "$d/sock"
    chown -R postgres: "$d"
    as_pg "$PGBIN/initdb" -D "$d/data" -U postgres -A trust -E UTF8 --locale=C \
        --no-sync >"$d/initdb.log" 2>&1 || return 1
    {
        printf '%s\n' "port = $p" "listen_addresses = ''" "unix_socket_directories = '$d/sock'" \
            "fsync = off" "cluster_name = '$nm'" "wal_level = logical" \
            "checkpoint_timeout = 30s" "max_replication_slots = 16" "max_wal_senders = 16" \
            "max_worker_processes = 24" "max_logical_replication_workers = 12" \
            "max_sync_workers_per_subscription = 4" "wal_retrieve_retry_interval = 500ms" \
            "log_checkpoints = on" "max_connections = 40"
        printf '%s\n' "$@"
    } >>"$d/data/postgresql.conf"
}

# node_start NAME [VAR=value...]: start, with extra environment (faketime).
node_start() {
    local nm=$1
    shift
    as_pg env "$@" "$PGBIN/pg_ctl" -D "$tmp/$nm/data" -l "$tmp/$nm/server.log" -w -t 60 \
        start >/dev/null 2>&1
}
node_stop() {
    as_pg "$PGBIN/pg_ctl" -D "$tmp/$1/data" -m fast -w -t 60 stop >/dev/null 2>&1
}
conninfo() { echo "host=$tmp/$1/sock port=${PORT[$1]} user=postgres dbname=app"; }
# qn NAME [psql args...]: scripts/scenario.bash's q on a node's database app.
qn() {
    local nm=$1
    shift
    q -h "$tmp/$nm/sock" -p "${PORT[$nm]}" -U postgres -d app "$@"
}
now_s() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# ------------------------------------------------------------------------
# 1. Install, four clusters: w1 (preloaded), w2, w3 (not preloaded), agg.
# ------------------------------------------------------------------------
# shellcheck source=../../../scripts/pgcluster.sh
. "$root/scripts/pgcluster.sh"     # pgc_install only: the clusters are our own
if PG_CONFIG=$PG_CONFIG pgc_install >"$tmp/install.log" 2>&1; then
    ok "make -C pg install"
else
    bail "make -C pg install" "$(tail -n 20 "$tmp/install.log")"
fi

writers=(w1 w2 w3)
declare -A NODE=([w1]=11 [w2]=12 [w3]=13)
t0=$(now_s)
node_init agg || bail "initdb agg" "$(tail -n 20 "$tmp/agg/initdb.log" 2>/dev/null)"
node_init w1 "snowflake.node = ${NODE[w1]}" "shared_preload_libraries = 'chronoid'" ||
    bail "initdb w1"
node_init w2 "snowflake.node = ${NODE[w2]}" || bail "initdb w2"
node_init w3 "snowflake.node = ${NODE[w3]}" || bail "initdb w3"
for nm in agg "${writers[@]}"; do
    node_start "$nm" || bail "start $nm" "$(tail -n 20 "$tmp/$nm/server.log")"
    "$PGBIN/createdb" -h "$tmp/$nm/sock" -p "${PORT[$nm]}" -U postgres app ||
        bail "createdb on $nm"
done
ok "4 clusters up (agg + w1 w2 w3, wal_level = logical, checkpoint_timeout = 30s) in $(elapsed "$t0") s"

# The same logical tables everywhere; the aggregator's own copies only
# receive.  minted_at is the writer's clock at the insert (faked on a
# skewed writer: corrected with the measured offset, see below).
schema="
CREATE EXTENSION chronoid;
CREATE EXTENSION dblink;
CREATE SEQUENCE skew_seq AS bigint;
CREATE TABLE t_sf (id int8 PRIMARY KEY, origin text NOT NULL, sess int4 NOT NULL,
                   n int4 NOT NULL, phase int4 NOT NULL, minted_at timestamptz NOT NULL);
CREATE TABLE t_uuid (id uuid PRIMARY KEY, origin text NOT NULL, sess int4 NOT NULL,
                     n int4 NOT NULL, phase int4 NOT NULL, minted_at timestamptz NOT NULL);
CREATE TABLE t_ulid (id ulid PRIMARY KEY, origin text NOT NULL, sess int4 NOT NULL,
                     n int4 NOT NULL, phase int4 NOT NULL, minted_at timestamptz NOT NULL);
"
for nm in agg "${writers[@]}"; do
    qn "$nm" -c "$schema" >"$tmp/schema.log" 2>&1 || bail "schema on $nm" "$(cat "$tmp/schema.log")"
done

# Star: each writer publishes its rows and its registry claims; the
# aggregator subscribes to all three and publishes the registry back, so
# every writer sees every claim (PostgreSQL 15 forwards applied changes:
# there is no origin = none before 16).
for nm in "${writers[@]}"; do
    qn "$nm" -c "CREATE PUBLICATION w_pub FOR TABLE t_sf, t_uuid, t_ulid, snowflake.node_registry" ||
        bail "publication on $nm"
done
qn agg -c "CREATE PUBLICATION reg_pub FOR TABLE snowflake.node_registry" || bail "publication on agg"
for nm in "${writers[@]}"; do
    qn agg -c "CREATE SUBSCRIPTION sub_$nm CONNECTION '$(conninfo "$nm")' PUBLICATION w_pub" \
        2>"$tmp/sub.log" || bail "subscription agg <- $nm" "$(cat "$tmp/sub.log")"
    qn "$nm" -c "CREATE SUBSCRIPTION reg_sub_$nm CONNECTION '$(conninfo agg)' PUBLICATION reg_pub" \
        2>"$tmp/sub.log" || bail "subscription $nm <- agg (registry)" "$(cat "$tmp/sub.log")"
done
ok "publications and subscriptions: writers -> agg (rows, claims), agg -> writers (claims)"

# wait_synced NAME...: every table of every subscription of the nodes ready.
wait_synced() {
    local nm left
    for _ in $(seq 1 300); do
        left=0
        for nm in "$@"; do
            left=$((left + $(qn "$nm" -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")))
        done
        [ "$left" -eq 0 ] && return 0
        sleep 0.2
    done
    return 1
}
if wait_synced agg "${writers[@]}"; then ok "initial table sync done"; else not_ok "initial table sync done"; fi

# Each writer's first ID claims its number; the claims reach every writer.
t1=$(now_s)
for nm in "${writers[@]}"; do
    got=$(qn "$nm" -c "SELECT snowflake.get_node(snowflake.nextval())" 2>&1)
    check "$nm: first snowflake.nextval() mints under node ${NODE[$nm]}" \
        "$([ "$got" = "${NODE[$nm]}" ] && echo t || echo "$got")"
done
seen=
for _ in $(seq 1 150); do
    seen=t
    for nm in agg "${writers[@]}"; do
        c=$(qn "$nm" -c "SELECT count(*) FROM snowflake.node_registry")
        [ "$c" = 3 ] || seen=f
    done
    [ $seen = t ] && break
    sleep 0.2
done
claim_spread=$(elapsed "$t1")
check "the three claims reached the aggregator and every writer (${claim_spread} s)" "$seen"
for nm in "${writers[@]}"; do
    got=$(qn agg -c "SELECT r.system_identifier = $(qn "$nm" -c "SELECT system_identifier FROM pg_control_system()")
                      AND r.server = '$nm' AND r.database = 'app'
                    FROM snowflake.node_registry r WHERE r.node = ${NODE[$nm]}")
    check "registry on agg: node ${NODE[$nm]} held by $nm's system identifier" "$got"
done

# ------------------------------------------------------------------------
# 2. The load: two sessions per writer, one transaction per iteration with
# one row in each table; n counts the session's iterations.
# ------------------------------------------------------------------------
# session NODE SESS PHASE SECONDS SEQ: one inserting session (server-side loop).
session() {
    qn "$1" -c "
DO \$\$
DECLARE
	i int4 := 0;
	t_end timestamptz := clock_timestamp() + interval '$4 seconds';
	me text := current_setting('cluster_name');
BEGIN
	WHILE clock_timestamp() < t_end LOOP
		i := i + 1;
		INSERT INTO t_sf VALUES (snowflake.nextval('$5'), me, $2, i, $3, clock_timestamp());
		INSERT INTO t_uuid VALUES (uuidv7(), me, $2, i, $3, clock_timestamp());
		INSERT INTO t_ulid VALUES (gen_monotonic_ulid(), me, $2, i, $3, clock_timestamp());
		COMMIT;
		PERFORM pg_sleep(0.003);
	END LOOP;
END
\$\$"
}
ckpts() { qn "$1" -c "SELECT checkpoints_timed || ' ' || checkpoints_req FROM pg_stat_bgwriter"; }

# run_phase PHASE SECONDS SEQ: all sessions, two CHECKPOINTs on each writer
# at 1/3 and 2/3 of the run; TAP on sessions and checkpoints.
run_phase() {
    local phase=$1 secs=$2 seq=$3 nm s pids=() rcs=0 tb rb ta ra
    declare -A CK
    for nm in "${writers[@]}"; do CK[$nm]=$(ckpts "$nm"); done
    for nm in "${writers[@]}"; do
        for s in 1 2; do
            session "$nm" "$s" "$phase" "$secs" "$seq" >"$tmp/sess_${phase}_${nm}_$s.log" 2>&1 &
            pids+=($!)
        done
    done
    sleep "$(awk -v s="$secs" 'BEGIN { print s / 3 }')"
    for nm in "${writers[@]}"; do qn "$nm" -c CHECKPOINT; done
    sleep "$(awk -v s="$secs" 'BEGIN { print s / 3 }')"
    for nm in "${writers[@]}"; do qn "$nm" -c CHECKPOINT; done
    for s in "${pids[@]}"; do wait "$s" || rcs=$((rcs + 1)); done
    if [ "$rcs" -eq 0 ]; then
        ok "phase $phase: 6 sessions inserted for $secs s"
    else
        not_ok "phase $phase: $rcs of 6 sessions failed"
        cat "$tmp"/sess_"${phase}"_*.log | head -n 20 | diag
    fi
    for nm in "${writers[@]}"; do
        read -r tb rb <<<"${CK[$nm]}"
        read -r ta ra <<<"$(ckpts "$nm")"
        check "phase $phase: $nm crossed >= 2 checkpoints while inserting ($((ta - tb)) timed, $((ra - rb)) requested)" \
            "$([ $((ta - tb + ra - rb)) -ge 2 ] && echo t || echo f)"
    done
}

# wait_caught_up: each writer's current WAL position confirmed by the
# aggregator's subscription slot (bounded).
wait_caught_up() {
    local nm lsn done_ t
    t=$(now_s)
    for nm in "${writers[@]}"; do
        lsn=$(qn "$nm" -c "SELECT pg_current_wal_lsn()")
        done_=f
        for _ in $(seq 1 600); do
            done_=$(qn "$nm" -c "SELECT coalesce(bool_and(confirmed_flush_lsn >= '$lsn'), false)
                                  FROM pg_replication_slots WHERE slot_name = 'sub_$nm'")
            [ "$done_" = t ] && break
            sleep 0.2
        done
        check "phase $1: agg caught up with $nm (its WAL at $lsn)" "$done_"
    done
    echo "# phase $1: caught up $(elapsed "$t") s after the load"
}

# verify PHASE: arrival, conflicts, duplicates, per-session order, origins.
verify() {
    local phase=$1 t nm sum got bad
    for t in t_sf t_uuid t_ulid; do
        sum=0
        for nm in "${writers[@]}"; do
            c=$(qn "$nm" -c "SELECT count(*) FROM $t WHERE phase = $phase")
            got=$(qn agg -c "SELECT count(*) FROM $t WHERE phase = $phase AND origin = '$nm'")
            sum=$((sum + c))
            check "phase $phase: $t: all $c rows of $nm arrived" "$([ "$c" = "$got" ] && [ "$c" -gt 0 ] && echo t || echo "$got of $c")"
        done
        got=$(qn agg -c "SELECT count(*) || ' ' || count(DISTINCT id) FROM $t WHERE phase = $phase")
        check "phase $phase: $t: $sum rows on agg = sum over writers, no duplicate ID" \
            "$([ "$got" = "$sum $sum" ] && echo t || echo "$got")"
        echo "# phase $phase: $t: $(qn agg -c "SELECT string_agg(origin || ' ' || c, ', ' ORDER BY origin)
                                             FROM (SELECT origin, count(*) c FROM $t WHERE phase = $phase GROUP BY 1) s") rows"
        # Ordered by ID, each session's counter runs 1, 2, 3, ... with no gap.
        bad=$(qn agg -c "SELECT count(*) FROM (
                          SELECT n, lag(n) OVER w AS prev, row_number() OVER w AS rn FROM $t
                           WHERE phase = $phase WINDOW w AS (PARTITION BY origin, sess ORDER BY id)) s
                         WHERE n <> rn OR (prev IS NOT NULL AND n <> prev + 1)")
        check "phase $phase: $t: each session's rows in ID order are in its insert order" \
            "$([ "$bad" = 0 ] && echo t || echo "$bad rows out of order")"
    done
    bad=$(qn agg -c "SELECT count(*) FROM t_sf
                     WHERE phase = $phase AND snowflake.get_node(id) <> CASE origin
                           WHEN 'w1' THEN ${NODE[w1]} WHEN 'w2' THEN ${NODE[w2]} WHEN 'w3' THEN ${NODE[w3]} END")
    check "phase $phase: snowflake.get_node() of every row names its origin" \
        "$([ "$bad" = 0 ] && echo t || echo "$bad rows")"
    bad=$(cat "$tmp"/*/server.log | grep -cE 'duplicate key|conflict')
    check "no duplicate-key or conflict error in any server log" \
        "$([ "$bad" = 0 ] && echo t || echo "$bad lines")"
    [ "$bad" = 0 ] || grep -hE 'duplicate key|conflict' "$tmp"/*/server.log | head -n 5 | diag
}

# measure_offsets: each writer's clock against the aggregator's (real)
# clock through dblink: best of 10 round trips, offset = writer time -
# midpoint of the aggregator's readings, error <= half the round trip.
measure_offsets() {
    local nm
    qn agg -c "
CREATE TABLE IF NOT EXISTS node_offset (origin text PRIMARY KEY, offset_ms float8, err_ms float8);
CREATE OR REPLACE FUNCTION clock_offset(conn text, OUT off_ms float8, OUT err_ms float8)
LANGUAGE plpgsql AS \$\$
DECLARE
	a0 timestamptz;
	a1 timestamptz;
	w timestamptz;
BEGIN
	err_ms := 'Infinity';
	PERFORM dblink_connect('clock_offset', conn);
	FOR i IN 1 .. 10 LOOP
		a0 := clock_timestamp();
		SELECT d.w INTO w FROM dblink('clock_offset', 'SELECT clock_timestamp()') AS d(w timestamptz);
		a1 := clock_timestamp();
		IF extract(epoch FROM a1 - a0) * 500 < err_ms THEN
			err_ms := extract(epoch FROM a1 - a0) * 500;
			off_ms := extract(epoch FROM w - (a0 + (a1 - a0) / 2)) * 1000;
		END IF;
	END LOOP;
	PERFORM dblink_disconnect('clock_offset');
END
\$\$;" >/dev/null
    for nm in "${writers[@]}"; do
        qn agg -c "INSERT INTO node_offset SELECT '$nm', o.off_ms, o.err_ms FROM clock_offset('$(conninfo "$nm")') o
                  ON CONFLICT (origin) DO UPDATE SET offset_ms = excluded.offset_ms, err_ms = excluded.err_ms" >/dev/null
    done
    echo "# clock offsets against agg: $(qn agg -c "SELECT string_agg(format('%s %s ms (+-%s)', origin,
                round(offset_ms::numeric, 1), round(err_ms::numeric, 2)), ', ' ORDER BY origin) FROM node_offset")"
}

# deviation PHASE TABLE: order all rows by ID; a row is inverted when an
# earlier-ID row was minted later in real time (minted_at corrected by its
# writer's measured offset).  Prints "max_ms inverted_rows rows".
deviation() {
    qn agg -c "
WITH r AS (SELECT t.id, t.minted_at - make_interval(secs => o.offset_ms / 1000) AS real_t
             FROM $2 t JOIN node_offset o USING (origin) WHERE t.phase = $1),
s AS (SELECT real_t, max(real_t) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max
        FROM r)
SELECT round(coalesce(max(extract(epoch FROM prev_max - real_t) * 1000)
                      FILTER (WHERE prev_max > real_t), 0)::numeric, 1)
       || ' ' || count(*) FILTER (WHERE prev_max > real_t) || ' ' || count(*)
  FROM s"
}

report_deviation() {
    local phase=$1 t m inv all
    for t in t_sf t_uuid t_ulid; do
        read -r m inv all <<<"$(deviation "$phase" "$t")"
        echo "# phase $phase: $t: global ID order vs real mint time: max inversion $m ms, $inv of $all rows have an earlier-ID row minted later"
        eval "DEV_${phase}_$t=\$m"
    done
}

# ------------------------------------------------------------------------
# Phase 1: clocks agree.
# ------------------------------------------------------------------------
run_phase 1 "$RUN1" snowflake.id_seq
wait_caught_up 1
verify 1
measure_offsets
report_deviation 1

# ------------------------------------------------------------------------
# Phase 2: w3's clock 2 s behind (libfaketime, restarted under it), minting
# from a fresh sequence into the same tables.  The sequence is only a floor:
# w3's IDs continue above every ID of its database's ID space (phase 1's
# included, which 0.1.0 repeated), running ahead of its clock until the
# clock catches up with the mark, then following it.
# ------------------------------------------------------------------------
if [ -z "$ftlib" ]; then
    ok "phase 2 # SKIP libfaketime not installed (Debian package faketime)"
else
    node_stop w3 && node_start w3 LD_PRELOAD="$ftlib" FAKETIME="-2s" DONT_FAKE_MONOTONIC=1
    qn agg -c "TRUNCATE node_offset"
    measure_offsets
    off=$(qn agg -c "SELECT offset_ms BETWEEN -2100 AND -1900 FROM node_offset WHERE origin = 'w3'")
    check "w3 restarted under libfaketime: its clock measures 2 s behind agg" "$off"
    run_phase 2 "$RUN2" skew_seq
    wait_caught_up 2
    verify 2
    report_deviation 2
    m=$(deviation 2 t_sf)
    check "phase 2: skew shows in global order (max inversion of t_sf between 1500 and 2500 ms)" \
        "$(awk -v m="${m%% *}" 'BEGIN { print (m >= 1500 && m <= 2500) ? "t" : "f" }')"
fi

# ------------------------------------------------------------------------
# 3. The registry: a fifth server started with w1's number, subscribed to
# the aggregator's registry, is refused; claimed through the aggregator,
# it gets a free number; release_node() retires a number everywhere.
# ------------------------------------------------------------------------
t2=$(now_s)
node_init dup "snowflake.node = ${NODE[w1]}" || bail "initdb dup"
node_start dup || bail "start dup" "$(tail -n 20 "$tmp/dup/server.log")"
"$PGBIN/createdb" -h "$tmp/dup/sock" -p "${PORT[dup]}" -U postgres app || bail "createdb on dup"
qn dup -c "CREATE EXTENSION chronoid" || bail "extension on dup"
qn dup -c "CREATE SUBSCRIPTION reg_sub_dup CONNECTION '$(conninfo agg)' PUBLICATION reg_pub" ||
    bail "subscription dup <- agg (registry)"
wait_synced dup
detect=$(elapsed "$t2")
err=$(qn dup -c "SELECT snowflake.nextval()" 2>&1)
if grep -q "snowflake node ${NODE[w1]} is already claimed by server \"w1\"" <<<"$err" &&
    grep -q 'this server is "dup"' <<<"$err" && grep -q 'HINT' <<<"$err"; then
    ok "dup started with w1's node ${NODE[w1]}: refuses to mint, naming w1 and dup, with a hint (registry synced ${detect} s after start)"
else
    not_ok "dup started with w1's node ${NODE[w1]}: refuses to mint"
    diag <<<"$err"
fi
check "dup made no claim of node ${NODE[w1]}" \
    "$(qn agg -c "SELECT count(*) = 1 FROM snowflake.node_registry WHERE node = ${NODE[w1]}")"
grep ERROR <<<"$err" | head -n 1 | diag

# The operator's procedure: claim a free number for dup on the aggregator.
dup_sysid=$(qn dup -c "SELECT system_identifier FROM pg_control_system()")
free=$(qn agg -c "SELECT snowflake.claim_node(p_system_identifier => $dup_sysid, p_server => 'dup')" 2>&1)
check "claim_node() on agg hands dup a free number ($free)" \
    "$(qn agg -c "SELECT '$free' ~ '^[0-9]+$' AND '$free'::int NOT IN (${NODE[w1]}, ${NODE[w2]}, ${NODE[w3]})")"
seen=f
for _ in $(seq 1 100); do
    seen=$(qn dup -c "SELECT count(*) = 1 FROM snowflake.node_registry WHERE node = $free AND system_identifier = $dup_sysid")
    [ "$seen" = t ] && break
    sleep 0.2
done
check "the claim reached dup" "$seen"
qn dup -c "ALTER SYSTEM SET snowflake.node = $free" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
got=$(qn dup -c "SELECT snowflake.get_node(snowflake.nextval())" 2>&1)
check "dup mints under its claimed number" "$([ "$got" = "$free" ] && echo t || echo "$got")"
got=$(qn w2 -c "SELECT count(*) FROM snowflake.node_registry WHERE node = $free" 2>&1)
check "w2 sees dup's claim too" "$([ "$got" = 1 ] && echo t || echo "$got")"

# Retire it: dup stops using the number, the aggregator releases it.
qn dup -c "ALTER SYSTEM RESET snowflake.node" -c "SELECT pg_reload_conf()" >/dev/null
check "release_node($free) on agg" "$(qn agg -c "SELECT snowflake.release_node($free)")"
seen=f
for _ in $(seq 1 100); do
    seen=t
    for nm in "${writers[@]}" dup; do
        [ "$(qn "$nm" -c "SELECT count(*) FROM snowflake.node_registry WHERE node = $free")" = 0 ] || seen=f
    done
    [ "$seen" = t ] && break
    sleep 0.2
done
check "the release reached every writer and dup" "$seen"
bad=$(cat "$tmp"/*/server.log | grep -cE 'duplicate key|conflict')
check "still no duplicate-key or conflict error in any server log (registry echoes deduplicated)" \
    "$([ "$bad" = 0 ] && echo t || echo "$bad lines")"

# The race window: w2's claims stop reaching the aggregator (its
# subscription disabled); w2 and then w1 claim node 30, each unaware of
# the other, and both mint.  Once w2's earlier claim arrives, w1's
# long-lived session refuses at its next registry check (every 10 s).
qn agg -c "ALTER SUBSCRIPTION sub_w2 DISABLE"
got=$(qn w2 -c "SET snowflake.node = 30" -c "SELECT snowflake.get_node(snowflake.nextval())" 2>&1)
sleep 0.2
got1=$(qn w1 -c "SET snowflake.node = 30" -c "SELECT snowflake.get_node(snowflake.nextval())" 2>&1)
check "race: w2, then w1 (unaware), both mint under node 30" \
    "$([ "$got" = 30 ] && [ "$got1" = 30 ] && echo t || echo "$got / $got1")"
qn w1 -c "SET snowflake.node = 30" -c "
DO \$\$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	LOOP
		BEGIN
			PERFORM snowflake.nextval();
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			RAISE WARNING 'refused after % s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), SQLERRM;
			RETURN;
		END;
		EXIT WHEN clock_timestamp() > t0 + interval '40 seconds';
		PERFORM pg_sleep(0.1);
	END LOOP;
	RAISE WARNING 'still minting after 40 s';
END
\$\$" >"$tmp/race.log" 2>&1 &
race_pid=$!
sleep 1
t3=$(now_s)
qn agg -c "ALTER SUBSCRIPTION sub_w2 ENABLE"
wait "$race_pid"
race_detect=$(elapsed "$t3")
if grep -q 'refused after.*snowflake node 30 is already claimed by server "w2"' "$tmp/race.log"; then
    ok "race: w1's minting session refuses node 30 ${race_detect} s after w2's claim can flow (earlier claim wins)"
else
    not_ok "race: w1's minting session refuses node 30 once w2's earlier claim arrives"
    diag <"$tmp/race.log"
fi
got=$(qn w2 -c "SET snowflake.node = 30" -c "SELECT snowflake.get_node(snowflake.nextval())" 2>&1)
check "race: w2, the earlier claimant, keeps minting under node 30" "$([ "$got" = 30 ] && echo t || echo "$got")"
qn agg -c "SELECT snowflake.release_node(30)" >/dev/null

# ------------------------------------------------------------------------
# 4. All-to-all with pglogical (Debian postgresql-15-pglogical): two
# writers replicate rows and claims to each other (forward_origins = {}),
# two sessions each; both end with every row; a number held by the other
# writer is refused.
# ------------------------------------------------------------------------
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/pglogical.so" ]; then
    ok "pglogical # SKIP pglogical is not installed (postgresql-15-pglogical; scripts/setup.sh)"
else
    t4=$(now_s)
    # Minor releases from 15.19 (14.24, 16.15, 17.11, 18.6) load only the
    # output plugins output_plugin_libraries names; pglogical's is not a
    # default one.
    plugins=()
    if "$PGBIN/postgres" --describe-config 2>/dev/null | grep '^output_plugin_libraries' >/dev/null; then
        plugins=("output_plugin_libraries = 'pgoutput, test_decoding, pglogical_output'")
    fi
    pw=(p1 p2)
    NODE[p1]=21
    NODE[p2]=22
    for nm in "${pw[@]}"; do
        node_init "$nm" "snowflake.node = ${NODE[$nm]}" "shared_preload_libraries = 'pglogical'" \
            "track_commit_timestamp = on" "${plugins[@]}" || bail "initdb $nm"
        node_start "$nm" || bail "start $nm" "$(tail -n 20 "$tmp/$nm/server.log")"
        "$PGBIN/createdb" -h "$tmp/$nm/sock" -p "${PORT[$nm]}" -U postgres app || bail "createdb on $nm"
        qn "$nm" -c "$schema" -c "CREATE EXTENSION pglogical" \
            -c "SELECT pglogical.create_node(node_name := '$nm', dsn := '$(conninfo "$nm")')" \
            -c "SELECT pglogical.replication_set_add_table('default', t, false)
                  FROM unnest(ARRAY['t_sf', 't_uuid', 't_ulid', 'snowflake.node_registry']::regclass[]) t" \
            >"$tmp/pgl.log" 2>&1 || bail "pglogical node $nm" "$(cat "$tmp/pgl.log")"
    done
    for nm in "${pw[@]}"; do
        other=p1
        [ "$nm" = p1 ] && other=p2
        qn "$nm" -c "SELECT pglogical.create_subscription(subscription_name := '${nm}_from_$other',
                      provider_dsn := '$(conninfo "$other")', synchronize_structure := false,
                      synchronize_data := false, forward_origins := '{}')" >/dev/null ||
            bail "pglogical subscription $nm <- $other"
    done
    up=f
    for _ in $(seq 1 150); do
        a=$(qn p1 -c "SELECT status FROM pglogical.show_subscription_status()")
        b=$(qn p2 -c "SELECT status FROM pglogical.show_subscription_status()")
        if [ "$a" = replicating ] && [ "$b" = replicating ]; then up=t; break; fi
        sleep 0.2
    done
    check "pglogical: p1 <-> p2 replicating ($(elapsed "$t4") s)" "$up"
    pids=()
    for nm in "${pw[@]}"; do
        for s in 1 2; do
            session "$nm" "$s" 3 "${CID_CLUSTER_RUN3:-8}" snowflake.id_seq >"$tmp/sess_3_${nm}_$s.log" 2>&1 &
            pids+=($!)
        done
    done
    rcs=0
    for s in "${pids[@]}"; do wait "$s" || rcs=$((rcs + 1)); done
    check "pglogical: 4 sessions inserted for ${CID_CLUSTER_RUN3:-8} s" "$([ $rcs = 0 ] && echo t || echo "$rcs failed")"
    for nm in "${pw[@]}"; do
        lsn=$(qn "$nm" -c "SELECT pg_current_wal_lsn()")
        done_=f
        for _ in $(seq 1 300); do
            done_=$(qn "$nm" -c "SELECT coalesce(bool_and(confirmed_flush_lsn >= '$lsn'), false)
                                  FROM pg_replication_slots WHERE slot_type = 'logical'")
            [ "$done_" = t ] && break
            sleep 0.2
        done
        check "pglogical: the other writer caught up with $nm" "$done_"
    done
    for t in t_sf t_uuid t_ulid; do
        c1=$(qn p1 -c "SELECT count(*) FROM $t WHERE phase = 3 AND origin = 'p1'")
        c2=$(qn p2 -c "SELECT count(*) FROM $t WHERE phase = 3 AND origin = 'p2'")
        for nm in "${pw[@]}"; do
            got=$(qn "$nm" -c "SELECT count(*) || ' ' || count(DISTINCT id) FROM $t WHERE phase = 3")
            check "pglogical: $t on $nm holds all $((c1 + c2)) rows (p1 $c1 + p2 $c2), no duplicate" \
                "$([ "$got" = "$((c1 + c2)) $((c1 + c2))" ] && [ "$c1" -gt 0 ] && [ "$c2" -gt 0 ] && echo t || echo "$got")"
            bad=$(qn "$nm" -c "SELECT count(*) FROM (
                          SELECT n, row_number() OVER (PARTITION BY origin, sess ORDER BY id) AS rn
                            FROM $t WHERE phase = 3) s WHERE n <> rn")
            check "pglogical: $t on $nm: each session's rows in ID order are in its insert order" \
                "$([ "$bad" = 0 ] && echo t || echo "$bad rows")"
        done
    done
    bad=$(qn p1 -c "SELECT count(*) FROM t_sf WHERE phase = 3 AND snowflake.get_node(id) <> CASE origin
                     WHEN 'p1' THEN ${NODE[p1]} WHEN 'p2' THEN ${NODE[p2]} END")
    check "pglogical: snowflake.get_node() of every row names its origin" "$([ "$bad" = 0 ] && echo t || echo "$bad")"
    for nm in "${pw[@]}"; do
        check "pglogical: $nm's registry holds both claims" \
            "$(qn "$nm" -c "SELECT count(*) = 2 FROM snowflake.node_registry WHERE node IN (${NODE[p1]}, ${NODE[p2]})")"
    done
    err=$(qn p2 -c "SET snowflake.node = ${NODE[p1]}" -c "SELECT snowflake.nextval()" 2>&1)
    if grep -q "snowflake node ${NODE[p1]} is already claimed by server \"p1\"" <<<"$err"; then
        ok "pglogical: p2 under p1's number ${NODE[p1]} refuses to mint"
    else
        not_ok "pglogical: p2 under p1's number ${NODE[p1]} refuses to mint"
        diag <<<"$err"
    fi
    bad=$(cat "$tmp"/p?/server.log | grep -ciE 'duplicate key|conflict')
    check "pglogical: no duplicate-key or conflict line in either log" \
        "$([ "$bad" = 0 ] && echo t || echo "$bad lines")"
    [ "$bad" = 0 ] || grep -hiE 'duplicate key|conflict' "$tmp"/p?/server.log | head -n 5 | diag
    echo "# pglogical: rows per writer: $(qn p1 -c "SELECT string_agg(origin || ' ' || c, ', ' ORDER BY origin)
                                   FROM (SELECT origin, count(*) c FROM t_sf WHERE phase = 3 GROUP BY 1) s") (each table); $(elapsed "$t4") s"
fi

echo "# total $(elapsed "$t0") s"
tap_done
