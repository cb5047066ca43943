#!/usr/bin/env bash
# bench/pg/run.sh — what `make bench-pg` runs: the extension's ID generators
# against core nextval() and gen_random_uuid() on a throwaway cluster, without
# and then with shared_preload_libraries = 'chronoid'.  Markdown on stdout,
# progress on stderr.  Run as root (the server runs as postgres).
#
# Protocol (issue 3, "Measure"), for each function f in bench/pg/*.sql
# (snowflake_nextval_own.sql: each pgbench client on its own sequence):
#   1 session:  SELECT count(x) FROM (SELECT f x FROM generate_series(1, 1000000)) s
#               in one psql session, median of 5 repetitions; the repetitions
#               are interleaved (round 1 runs every function once, then round
#               2 ...) so a burst of load from elsewhere hits every function.
#   2 sessions: pgbench -c 2 -j 2 running the same statement with 1000 IDs,
#               and pgbench -c 1 -j 1 for the 1 -> 2 factor: 2 interleaved
#               rounds of 5 s each; the rate is the rounds' median, the
#               factor the median of each round's -c 2 / -c 1.
# Settings (environment):
#   BENCH_PG_QUICK=1 (or --quick)  smoke run: 200,000 IDs x 3, pgbench 1 x 2 s
#   BENCH_PG_IDS      IDs per 1-session statement (1000000)
#   BENCH_PG_REPS     1-session repetitions (5)
#   BENCH_PG_SECONDS  duration of each pgbench run (5)
#   BENCH_PG_ROUNDS   pgbench rounds over all functions (2)
#   BENCH_PG_PER_TX   IDs per pgbench statement (1000)
#   BENCH_PG_FUNCS    the functions to measure, by script name, separated by
#                     commas or spaces (default all: nextval,gen_random_uuid,
#                     snowflake_nextval, ...)
#   BENCH_PG_INSTALL=0  measure the installed extension, do not run
#                       `make -C pg install` first
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export LC_ALL=C TZ=UTC

quick=${BENCH_PG_QUICK:-0}
[ "${1:-}" = --quick ] && quick=1
if [ "$quick" = 1 ]; then
    ids=${BENCH_PG_IDS:-200000} reps=${BENCH_PG_REPS:-3}
    secs=${BENCH_PG_SECONDS:-2} rounds=${BENCH_PG_ROUNDS:-1}
else
    ids=${BENCH_PG_IDS:-1000000} reps=${BENCH_PG_REPS:-5}
    secs=${BENCH_PG_SECONDS:-5} rounds=${BENCH_PG_ROUNDS:-2}
fi
per_tx=${BENCH_PG_PER_TX:-1000}
cap=4096000    # pgEdge layout: 4,096 IDs per millisecond

# name|script: the baselines first, then the extension's functions.
funcs=(
    "nextval('bench_seq')|nextval"
    "gen_random_uuid()|gen_random_uuid"
    "snowflake.nextval()|snowflake_nextval"
    "snowflake.nextval('bench_sf_0')|snowflake_nextval_own"
    "uuidv7()|uuidv7"
    "gen_ulid()|gen_ulid"
    "gen_monotonic_ulid()|gen_monotonic_ulid"
)

log() { printf '# %s\n' "$*" >&2; }
die() { printf 'bench-pg: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (it installs the extension and runs a server as postgres)"
if ! f=$(pg_config --pgxs 2>/dev/null) || [ ! -f "$f" ]; then
    die "PostgreSQL server development files are not installed (make setup)"
fi

. "$root/scripts/pgcluster.sh"
pgc_mkdir
work=$PGC_DIR/bench
mkdir -p "$work"
if [ "${BENCH_PG_INSTALL:-1}" != 0 ]; then
    log "make -C pg install"
    make -s -C "$root/pg" install >"$work/install.log" 2>&1 ||
        { cat "$work/install.log" >&2; die "make -C pg install failed"; }
fi

# fsync back on (pgcluster turns it off): a server as deployed.  The node is
# for snowflake.nextval(); without the preload it is a placeholder that the
# library adopts when it loads.
pgc_start "fsync = on" "snowflake.node = 1" "max_connections = 20"
export PGDATABASE=chronoid_bench
"$PGC_BIN/createdb" chronoid_bench
psql() { "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE EXTENSION chronoid" -c "CREATE SEQUENCE bench_seq" \
    -c "CREATE SEQUENCE bench_sf_0" -c "CREATE SEQUENCE bench_sf_1"

# Measure whatever is installed: a function this build lacks is left out.
have=()
for e in "${funcs[@]}"; do
    if [ -n "${BENCH_PG_FUNCS:-}" ] && [[ " ${BENCH_PG_FUNCS//,/ } " != *" ${e#*|} "* ]]; then
        continue
    elif psql -c "EXPLAIN SELECT ${e%%|*}" >/dev/null 2>&1; then
        have+=("$e")
    else
        log "left out: ${e%%|*} does not exist here"
    fi
done
funcs=("${have[@]}")

results=$work/results    # lines: mode kind function value
: >"$results"

# one_session MODE: every function $reps times in one psql session,
# interleaved; one "MODE one FUNCTION ms" line per statement.
one_session() {
    local mode=$1 r e drv=$work/one_$1.psql
    {
        printf '%s\n' '\timing on'
        # Warm-up: load the library, touch the sequences, fill caches.
        for e in "${funcs[@]}"; do
            printf '\\i %s/%s.sql\n' "$here" "${e#*|}"
        done
        printf '%s\n' '\echo @measure'
        for r in $(seq "$reps"); do
            for e in "${funcs[@]}"; do
                printf '\\echo @f %s\n\\i %s/%s.sql\n' "${e#*|}" "$here" "${e#*|}"
            done
        done
    } >"$drv"
    psql -At -v ids="$ids" -v client_id=0 -f "$drv" >"$work/one_$mode.out"
    awk -v mode="$mode" '
        /^@measure/ { on = 1; next }
        on && /^@f / { f = $2; next }
        on && /^Time: / && f != "" { print mode, "one", f, $2; f = "" }
    ' "$work/one_$mode.out" >>"$results"
}

# pgbench_tps CLIENTS SCRIPT: transactions per second of one timed run.
pgbench_tps() {
    local c=$1 script=$2 out
    out=$("$PGC_BIN/pgbench" -n -c "$c" -j "$c" -T "$secs" -D ids="$per_tx" \
        -f "$here/$script.sql" 2>&1) || { echo "$out" >&2; die "pgbench failed"; }
    # 15: "tps = N (without initial connection time)"; 13, 14: "(excluding ...)"
    awk '/^tps = / && /without|excluding/ { print $3; exit }' <<<"$out"
}

run_mode() {
    local mode=$1 e tps r c
    log "$mode: 1 session, $reps x $ids IDs per function, interleaved"
    one_session "$mode"
    for r in $(seq "$rounds"); do
        for e in "${funcs[@]}"; do
            for c in 1 2; do
                log "$mode: round $r/$rounds: pgbench -c $c -j $c -T $secs, $per_tx IDs per statement: ${e%%|*}"
                tps=$(pgbench_tps "$c" "${e#*|}")
                echo "$mode c$c ${e#*|} $tps $r" >>"$results"
            done
        done
    done
    psql -At -F ' ' -c "SELECT '$mode', 'setting', name,
            quote_literal(coalesce(current_setting(name, true), ''))
        FROM unnest(ARRAY['shared_preload_libraries', 'snowflake.node', 'fsync',
            'synchronous_commit', 'shared_buffers', 'max_connections']) AS name" >>"$results"
}

t0=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
run_mode plain
pgc_restart "shared_preload_libraries = 'chronoid'"
run_mode preload
elapsed=$(($(date +%s) - t0))

version=$(psql -At -c "SELECT version()")
extversion=$(psql -At -c "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'")
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)

order=$(for e in "${funcs[@]}"; do printf '%s ' "${e#*|}"; done)
labels=$(for e in "${funcs[@]}"; do printf '%s ' "${e%%|*}"; done)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v reps="$reps" -v rounds="$rounds" -v load0="$load0" -v load1="$load1" \
    -v ids="$ids" -v secs="$secs" -v per_tx="$per_tx" -v cap="$cap" \
    -v order="$order" -v labels="$labels" -v version="$version" -v extversion="$extversion" \
    -v nproc="$(nproc)" -v cpu="$cpu" -v elapsed="$elapsed" '
function commas(x,   s, r) {
    s = sprintf("%.0f", x); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}
function median_of(list,   n, i, j, t, a) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return 0
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function median(mode, f) { return median_of(ms[mode, f]) }
function ratio(a, b) { return b > 0 ? a / b : 0 }
function met(ok) { return ok ? "**met**" : "not met" }
$2 == "one" { ms[$1, $3] = ms[$1, $3] " " $4; next }
$2 == "c1" { l1[$1, $3] = l1[$1, $3] " " $4 * per_tx; r1[$1, $3, $5] = $4; next }
$2 == "c2" { l2[$1, $3] = l2[$1, $3] " " $4 * per_tx; r2[$1, $3, $5] = $4; next }
$2 == "setting" {
    v = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", v)
    set[$1] = set[$1] sprintf("%s`%s = %s`", set[$1] == "" ? "" : ", ", $3, v); next
}
END {
    nf = split(order, fn, " ")
    split(labels, label, " ")
    nm = split("plain preload", modes, " ")
    title["plain"] = "Without preload"
    title["preload"] = "With `shared_preload_libraries = '\''chronoid'\''`"
    for (m = 1; m <= nm; m++) {
        mode = modes[m]
        for (i = 1; i <= nf; i++) {
            f = fn[i]; t = median(mode, f)
            one[mode, f] = ratio(ids, t / 1000)
            c1[mode, f] = median_of(l1[mode, f])
            c2[mode, f] = median_of(l2[mode, f])
            fl = ""
            for (r = 1; r <= rounds; r++)
                if (r1[mode, f, r] > 0) fl = fl " " r2[mode, f, r] / r1[mode, f, r]
            fac[mode, f] = median_of(fl)
        }
    }
    printf "Server: %s; chronoid %s.\n", version, extversion
    printf "Machine: %s CPUs (%s); load average %s before, %s after.\n", nproc, cpu, load0, load1
    printf "1 session: median of %d interleaved repetitions of %s IDs. ", reps, commas(ids)
    printf "pgbench: %d x %d s per cell (interleaved rounds; medians over the rounds, the 1→2 factor per round), %s IDs per statement. Total %d s.\n",
        rounds, secs, commas(per_tx), elapsed
    for (m = 1; m <= nm; m++) {
        mode = modes[m]
        printf "\n### %s\n\nSettings: %s.\n\n", title[mode], set[mode]
        print "| function | IDs/s, 1 session | IDs/s, pgbench -c 1 | IDs/s, pgbench -c 2 | 1→2 factor | vs nextval() | vs gen_random_uuid() |"
        print "|---|---:|---:|---:|---:|---:|---:|"
        for (i = 1; i <= nf; i++) {
            f = fn[i]
            printf "| `%s` | %s | %s | %s | %.2fx | %.2fx | %.2fx |\n", label[i], commas(one[mode, f]),
                commas(c1[mode, f]), commas(c2[mode, f]), fac[mode, f],
                ratio(one[mode, f], one[mode, "nextval"]), ratio(one[mode, f], one[mode, "gen_random_uuid"])
        }
    }
    sf = "snowflake_nextval"; nv = "nextval"; v4 = "gen_random_uuid"
    # A goal whose functions were not measured (BENCH_PG_FUNCS) is left out.
    for (i = 1; i <= nf; i++) have[fn[i]] = 1
    print "\n### Goals\n"
    print "| goal | measured | target | result |"
    print "|---|---:|---:|---|"
    if (have[sf] && have[nv]) {
        r = ratio(one["plain", sf], one["plain", nv])
        printf "| `snowflake.nextval()` vs core `nextval()`, 1 session, without preload | %.2fx | ≥ 1.00x | %s |\n", r, met(r >= 1)
        r = ratio(one["preload", sf], one["preload", nv])
        printf "| `snowflake.nextval()` vs core `nextval()`, 1 session, preloaded | %.2fx | ≥ 1.50x | %s |\n", r, met(r >= 1.5)
    }
    r = ratio(fac["preload", sf], fac["preload", v4])
    capok = c2["preload", sf] >= 0.95 * cap
    if (have[sf] && have[v4]) printf "| preloaded 1→2 sessions: `snowflake.nextval()` factor / `gen_random_uuid()` factor (%.2fx / %.2fx) | %.0f%% | ≥ 90%%, or 2 sessions ≥ %s IDs/s (now %s) | %s |\n",
        fac["preload", sf], fac["preload", v4], 100 * r, commas(0.95 * cap), commas(c2["preload", sf]), met(r >= 0.9 || capok)
    for (m = 1; m <= nm; m++) {
        mode = modes[m]
        split("uuidv7 gen_ulid", g, " ")
        for (k = 1; k <= 2; k++) {
            if (!have[g[k]] || !have[v4]) continue
            r = ratio(one[mode, g[k]], one[mode, v4])
            printf "| `%s()` vs `gen_random_uuid()`, 1 session, %s | %.2fx | ≥ 2.00x | %s |\n",
                g[k], mode == "plain" ? "without preload" : "preloaded", r, met(r >= 2)
        }
    }
}' "$results"
