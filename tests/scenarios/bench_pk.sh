#!/usr/bin/env bash
# bench_pk.sh — `chronoid bench-pk` end to end at a small size: a run on a
# throwaway cluster through bench/pk/run.sh, as `make bench-pk` does
# (report, JSON and chart written; every key there; figures positive;
# index sizes ordered as sequential vs random keys must be), then its
# error paths against a cluster of ours (no server named, unknown key,
# unreachable server, a failing expression: one line, non-zero exit,
# nothing left on the server).  Prints TAP.  No timing is asserted.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
. "$root/scripts/tap.bash"
bin=${CHRONOID_BIN:-$root/build/chronoid}

[ "$(id -u)" -eq 0 ] || skip_all "bench-pk's throwaway cluster is tested as root"
[ -x "$bin" ] || skip_all "no $bin (build it first)"
"$bin" bench-pk --help >/dev/null 2>&1 || skip_all "$bin has no bench-pk"
bindir=$(pg_config --bindir 2>/dev/null) && [ -x "$bindir/initdb" ] || skip_all "no PostgreSQL server"
[ -f "$(pg_config --sharedir)/extension/chronoid.control" ] || skip_all "the chronoid extension is not installed (make -C pg install)"
command -v jq >/dev/null 2>&1 || skip_all "no jq"

. "$root/scripts/pgcluster.sh"
pgc_mkdir
tmp=$PGC_DIR
before=$(ls -d /tmp/chronoid-bpk.* 2>/dev/null | sort)

# 1. A tiny run on its own throwaway cluster.
out=$tmp/out
if CHRONOID_BIN=$bin bench/pk/run.sh --rows 20000 --clients 2 --out "$out" >"$tmp/stdout" 2>"$tmp/stderr"; then
    ok "bench/pk/run.sh --rows 20000 --clients 2 (bench-pk --scratch on a throwaway cluster) exits 0"
else
    not_ok "bench/pk/run.sh --rows 20000 --clients 2 (bench-pk --scratch on a throwaway cluster) exits 0" \
        "$(tail -n 3 "$tmp/stderr")"
fi
after=$(ls -d /tmp/chronoid-bpk.* 2>/dev/null | sort)
if [ "$before" = "$after" ]; then ok "throwaway cluster removed"; else not_ok "throwaway cluster removed" "left: $after"; fi
# 20,000 rows never outgrow shared_buffers (128MB): the one thing on stderr
# when it is not a terminal is the warning that says so.
if [ "$(wc -l <"$tmp/stderr")" -eq 1 ] &&
   grep -q '^chronoid: bench-pk: warning: too small to rank the keys: the largest primary-key index ([a-z_0-9]*, .*) stayed below shared_buffers (128.0 MiB).* at about [0-9,]* rows' "$tmp/stderr"; then
    ok "stderr when not a terminal: only the warning that the run is too small (no progress, no paths)"
else
    not_ok "stderr when not a terminal: only the warning that the run is too small" "$(head -n 3 "$tmp/stderr")"
fi
for f in bench-pk.md bench-pk.json bench-pk.png bench-pk.svg; do
    if [ -s "$out/$f" ]; then ok "$f written"; else not_ok "$f written"; fi
done
if [ "$(head -c 8 "$out/bench-pk.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok "chart is a PNG"
else
    not_ok "chart is a PNG"
fi
if grep -q '<svg' "$out/bench-pk.svg" && grep -q '</svg>' "$out/bench-pk.svg"; then ok "chart is an SVG"; else not_ok "chart is an SVG"; fi
j=$out/bench-pk.json
if jq -e . "$j" >/dev/null 2>&1; then ok "JSON parses"; else not_ok "JSON parses"; fi
# docs/cli.md, "JSON output": what was not measured or does not apply is
# absent, never null or "" (bigserial has no expression).
if jq -e '[.. | select(. == null or . == "")] == [] and
          (.keys[] | select(.name == "bigserial") | has("expression") | not)' "$j" >/dev/null 2>&1; then
    ok "JSON: no null or empty value; bigserial has no expression key"
else
    not_ok "JSON: no null or empty value; bigserial has no expression key" \
        "$(jq -c '[paths(. == null or . == "")]' "$j" 2>&1 | head -c 400)"
fi
if jq -e '.rows == 20000 and .clients == 2 and (.server_version | length > 0) and (.settings.shared_buffers == "128MB")' "$j" >/dev/null 2>&1; then
    ok "JSON names N, K, server version, settings"
else
    not_ok "JSON names N, K, server version, settings"
fi
keys=$(jq -r '[.keys[] | select(.available) | .name] | join(",")' "$j" 2>/dev/null)
if [ "$keys" = "bigserial,uuidv4,uuidv7,ulid,ulid_monotonic,snowflake" ]; then
    ok "every key measured"
else
    not_ok "every key measured" "got: $keys"
fi
bad=$(jq -r '.keys[] | select(.available) | select([.rows_per_s, .rows_per_s_last20, .wal_bytes_per_row, .batch_p99_ms,
    .pk_index_bytes, .table_bytes, .leaf_density, .latest50_ms] | any(. == null or . <= 0)) | .name' "$j" 2>/dev/null)
if [ -z "$bad" ] && [ -n "$keys" ]; then ok "all figures positive"; else not_ok "all figures positive" "keys: $bad"; fi
if jq -e '.keys[] | select(.name == "uuidv4") | .created_at_index_bytes > 0 and .latest50_by_created_at_ms > 0' "$j" >/dev/null 2>&1; then
    ok "uuidv4's created_at index measured"
else
    not_ok "uuidv4's created_at index measured"
fi
size() { jq -r --arg k "$1" '.keys[] | select(.name == $k) | .pk_index_bytes' "$j"; }
dens() { jq -r --arg k "$1" '.keys[] | select(.name == $k) | .leaf_density' "$j"; }
# Sequential keys fill their leaves (90% at the right edge); random ones
# leave them about 70% full, so the same 16-byte keys take more pages; and
# 8-byte keys take fewer than 16-byte ones.
if [ "$(size uuidv4)" -gt "$(size uuidv7)" ] && [ "$(size ulid)" -gt "$(size ulid_monotonic)" ] &&
   [ "$(size uuidv7)" -gt "$(size bigserial)" ] && [ "$(size uuidv7)" -eq "$(size ulid_monotonic)" ] &&
   [ "$(size snowflake)" -eq "$(size bigserial)" ]; then
    ok "index sizes: bigserial = snowflake < uuidv7 = ulid_monotonic < uuidv4, ulid"
else
    not_ok "index sizes ordered" "$(jq -c '[.keys[] | {(.name): .pk_index_bytes}]' "$j")"
fi
if awk -v r="$(dens uuidv4)" -v s="$(dens bigserial)" -v v="$(dens uuidv7)" 'BEGIN { exit !(r < s - 10 && v > s - 3) }'; then
    ok "leaf density: uuidv4 well below bigserial, uuidv7 close to it"
else
    not_ok "leaf density ordered" "$(jq -c '[.keys[] | {(.name): .leaf_density}]' "$j")"
fi
md=$out/bench-pk.md
if grep -q '^> \*\*Warning:\*\* too small to rank the keys' "$md" &&
   grep -q '^Relative to bigserial.*too small for these ratios to mean anything' "$md" &&
   jq -e '.shared_buffers_bytes == 134217728 and (.warnings | length == 1 and (.[0] | test("too small to rank")))' "$j" >/dev/null 2>&1; then
    ok "a run inside shared_buffers: the report, its ratios and the JSON say it is too small"
else
    not_ok "a run inside shared_buffers: the report, its ratios and the JSON say it is too small" \
        "$(grep -n 'Warning\|Relative' "$md" | head -n 3)" "$(jq -c '{shared_buffers_bytes, warnings}' "$j" 2>&1 | head -c 300)"
fi
if grep -q "set format y '%.[0-9]f[kMG]\?'" "$out/bench-pk.gp" && grep -q '^set ytics [0-9.e+]*$' "$out/bench-pk.gp"; then
    ok "chart: the rate axis has its own ticks and labels with decimals (not gnuplot's %.0s%c)"
else
    not_ok "chart: the rate axis has its own ticks and labels" "$(grep -n 'format y\|ytics' "$out/bench-pk.gp")"
fi
if grep -q '^| key | rows/s |' "$md" && grep -q 'Relative to bigserial' "$md" && grep -q '^| shared_buffers | 128MB |' "$md" &&
   [ "$(grep -cE '^\| (bigserial|uuidv4|uuidv7|ulid|ulid_monotonic|snowflake) \| [0-9,]+ \|' "$md")" -eq 6 ] &&
   grep -q '(bench-pk.png)' "$md" && cmp -s <(grep -v '(bench-pk.png)' "$md") <(cat "$tmp/stdout"; echo); then
    ok "Markdown report: table, ratios, settings; printed on stdout too"
else
    not_ok "Markdown report structure" "$(head -n 12 "$md")"
fi

# 2. Bad command lines: exit 2, one line, nothing created.
expect_fail() {  # NAME CODE PATTERN ARGS...
    local name=$1 code=$2 pat=$3 rc; shift 3
    "$bin" bench-pk "$@" >"$tmp/o" 2>"$tmp/e"; rc=$?
    if [ "$rc" -eq "$code" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q -- "$pat" "$tmp/e" && [ ! -s "$tmp/o" ]; then
        ok "$name: exit $code, one line"
    else
        not_ok "$name: exit $code, one line" "exit $rc" "$(head -n 3 "$tmp/e")"
    fi
}
expect_fail "no server named" 2 'no server to measure: give --conninfo or the PG\* variables' --out "$tmp/none"
expect_fail "unknown key" 2 'unknown key "bogus"' --keys bigserial,bogus --out "$tmp/none"
expect_fail "--clients 0" 2 'invalid --clients "0"' --clients 0 --out "$tmp/none"
expect_fail "built-in name for an expression" 2 'built-in key' --keys 'uuidv4=gen_random_uuid()' --out "$tmp/none"
if [ ! -e "$tmp/none" ]; then ok "no output directory left by usage errors"; else not_ok "no output directory left by usage errors"; fi

# 3. A server of ours: runtime errors leave nothing behind.
expect_fail "unreachable server" 1 'cannot connect' --conninfo "host=$tmp/nowhere port=1" --out "$tmp/none"
# shared_buffers 1MB: a few tens of thousands of rows outgrow it (below).
if ! pgc_start "shared_buffers = 1MB" >/dev/null 2>&1; then
    bail "test cluster starts" "$(tail -n 5 "$PGC_LOG" 2>/dev/null)"
fi
ci="host=$PGHOST port=$PGPORT user=postgres dbname=postgres"

# On a terminal (script(1) gives it one): progress frames, then where the
# files went.  No ETA before a rate is known; each key's last frame shows
# the rate the report gives it.  The index outgrows shared_buffers: no
# warning.
if command -v script >/dev/null 2>&1; then
    script -qec "'$bin' bench-pk --conninfo '$ci' --keys bigserial,uuidv4 --rows 40000 --clients 2 \
        --out '$tmp/tty' >'$tmp/tty.md'" /dev/null >"$tmp/tty.err" 2>&1; rc=$?
    # frames end in \r, lines in \r\n on a terminal: one frame or line each
    tr '\r' '\n' <"$tmp/tty.err" | sed 's/\x1b\[K//g' | grep -v '^$' >"$tmp/tty.frames"
    if [ "$rc" -eq 0 ] && grep -q '^bigserial .* rows/s  ETA' "$tmp/tty.frames" &&
       ! grep -qE -- '-- rows/s  ETA [0-9]' "$tmp/tty.frames" &&
       [ "$(grep -E 'ETA --' "$tmp/tty.frames" | grep -vc -- '-- rows/s')" -eq 0 ]; then
        ok "terminal: progress frames; \"ETA --\" exactly while no rate is known"
    else
        not_ok "terminal: progress frames; \"ETA --\" exactly while no rate is known" "rc=$rc" "$(head -n 5 "$tmp/tty.frames")"
    fi
    # The count format of the progress line (bpk_fmt_count) applied to the
    # JSON's rows_per_s.
    bad=""
    for k in bigserial uuidv4; do
        want=$(jq -r --arg k "$k" '.keys[] | select(.name == $k) | .rows_per_s' "$tmp/tty/bench-pk.json" 2>/dev/null |
            awk '{ if ($1 >= 999995) printf "%.2fM", $1 / 1e6; else if ($1 >= 999.95) printf "%.1fk", $1 / 1e3; else printf "%.0f", $1 }')
        last=$(grep "^$k .* in [0-9]" "$tmp/tty.frames" | tail -n 1)
        [[ -n $want && $last == *"/40.0k rows  $want rows/s  in "* ]] || bad+="$k: '$last' (want $want rows/s); "
    done
    if [ -z "$bad" ]; then
        ok "terminal: each key's last frame shows the report's rows/s and stays on screen"
    else
        not_ok "terminal: each key's last frame shows the report's rows/s" "$bad"
    fi
    if grep -qx "chronoid bench-pk: report $tmp/tty/bench-pk.md" "$tmp/tty.frames" &&
       grep -qx "chronoid bench-pk: JSON   $tmp/tty/bench-pk.json" "$tmp/tty.frames" &&
       grep -qx "chronoid bench-pk: charts $tmp/tty/bench-pk.png $tmp/tty/bench-pk.svg" "$tmp/tty.frames" &&
       [ "$(tail -n 1 "$tmp/tty.frames")" = "chronoid bench-pk: charts $tmp/tty/bench-pk.png $tmp/tty/bench-pk.svg" ]; then
        ok "terminal: the paths of the report, the JSON and the charts, last"
    else
        not_ok "terminal: the paths of the report, the JSON and the charts, last" "$(tail -n 4 "$tmp/tty.frames")"
    fi
    if ! grep -q 'warning' "$tmp/tty.frames" && ! grep -q 'Warning' "$tmp/tty.md" &&
       jq -e '.warnings == [] and .shared_buffers_bytes == 1048576' "$tmp/tty/bench-pk.json" >/dev/null 2>&1; then
        ok "an index that outgrew shared_buffers (1MB): no warning"
    else
        not_ok "an index that outgrew shared_buffers (1MB): no warning" "$(grep -i warning "$tmp/tty.frames" | head -c 300)" \
            "$(jq -c '{warnings, shared_buffers_bytes, sizes: [.keys[] | .pk_index_bytes]}' "$tmp/tty/bench-pk.json" 2>&1)"
    fi
else
    for c in "progress frames" "last frames" "paths" "no warning"; do skip "terminal: $c" "no script(1)"; done
fi
expect_fail "failing expression" 1 'key "bad": expression 1/0 fails: division by zero' \
    --conninfo "$ci" --keys 'bigserial,bad=1/0' --rows 1000 --out "$tmp/none"
expect_fail "chronoid key without the extension" 1 'key "uuidv7": the chronoid extension is not installed' \
    --conninfo "$ci" --keys uuidv7 --rows 1000 --out "$tmp/none"
psql -XAtq -c "CREATE ROLE bpk_nopriv LOGIN" >/dev/null 2>&1
expect_fail "missing privileges" 1 'permission denied' \
    --conninfo "host=$PGHOST port=$PGPORT user=bpk_nopriv dbname=postgres" --keys bigserial --rows 1000 --out "$tmp/none"
# An ordinary role that may create a schema: it runs, and the report says
# what that role could not measure or read.
psql -XAtq -c "CREATE ROLE bpk_user LOGIN" -c "GRANT CREATE ON DATABASE postgres TO bpk_user" >/dev/null 2>&1
if "$bin" bench-pk --conninfo "host=$PGHOST port=$PGPORT user=bpk_user dbname=postgres" --keys bigserial \
    --rows 1000 --out "$tmp/user" >/dev/null 2>"$tmp/e4" &&
   jq -e '.pgstattuple == false and (.settings | has("shared_preload_libraries") | not)
          and (.unreadable_settings.shared_preload_libraries | test("permission denied|must be|privilege"))
          and (.keys[0] | has("leaf_density") | not) and .keys[0].pk_index_bytes > 0' "$tmp/user/bench-pk.json" >/dev/null 2>&1; then
    ok "ordinary role: runs; no leaf density, hidden setting reported as such"
else
    not_ok "ordinary role: runs; no leaf density, hidden setting reported as such" "$(head -n 3 "$tmp/e4")" \
        "$(jq -c '{pgstattuple, settings, unreadable_settings}' "$tmp/user/bench-pk.json" 2>&1 | head -c 400)"
fi
if [ ! -e "$tmp/none" ]; then ok "no output directory left by runtime errors"; else not_ok "no output directory left by runtime errors"; fi
if PGOPTIONS= "$bin" bench-pk --keys 'bigserial,mine=(random() * 1e15)::bigint' --rows 3000 --clients 3 \
    --out "$tmp/ext" >/dev/null 2>"$tmp/e2"; then
    ok "PG* server: bigserial and NAME=SQL"
else
    not_ok "PG* server: bigserial and NAME=SQL" "$(head -n 3 "$tmp/e2")"
fi
if jq -e '[.keys[] | select(.available) | .name] == ["bigserial", "mine"] and (.keys[1].type == "bigint") and (.target | test("PG"))' \
    "$tmp/ext/bench-pk.json" >/dev/null 2>&1; then
    ok "NAME=SQL key measured with its expression's type"
else
    not_ok "NAME=SQL key measured with its expression's type"
fi
# --repeat: every key once per round, the order rotated, medians kept.
if "$bin" bench-pk --keys 'bigserial,r=(random() * 1e15)::bigint' --rows 2000 --repeat 3 \
    --out "$tmp/rep" >"$tmp/rep.md" 2>"$tmp/e3"; then
    ok "--repeat 3 exits 0"
else
    not_ok "--repeat 3 exits 0" "$(head -n 3 "$tmp/e3")"
fi
# Places per round: (1,2) (2,1) (1,2); the reported figure is one of the
# rounds' and the median one (lower middle of three).
if jq -e '.repeat == 3 and ([.keys[] | [.rounds[].place]] == [[1, 2, 1], [2, 1, 2]]) and
    all(.keys[]; .rows_per_s_last20 == ([.rounds[].rows_per_s_last20] | sort | .[1]))' \
    "$tmp/rep/bench-pk.json" >/dev/null 2>&1; then
    ok "--repeat: order rotated each round, medians reported"
else
    not_ok "--repeat: order rotated each round, medians reported" "$(jq -c '[.keys[] | {name, rows_per_s_last20, rounds}]' "$tmp/rep/bench-pk.json" 2>&1 | head -c 600)"
fi
if grep -q '^| key | round 1 | round 2 | round 3 |$' "$tmp/rep.md"; then ok "--repeat: per-round table in the report"; else not_ok "--repeat: per-round table in the report"; fi
expect_fail "--repeat 10" 2 'invalid --repeat "10"' --repeat 10 --out "$tmp/none"

left=$(psql -XAtq -c "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'chronoid_bench%'" -c \
    "SELECT count(*) FROM pg_extension WHERE extname <> 'plpgsql'" -c "SELECT count(*) FROM pg_class WHERE relowner IN ('bpk_nopriv'::regrole, 'bpk_user'::regrole)" 2>&1 | tr '\n' ' ')
if [ "$left" = "0 0 0 " ]; then ok "nothing left on the server (schema, tables, pgstattuple)"; else not_ok "nothing left on the server" "got: $left"; fi

tap_done
