#!/usr/bin/env bash
# run.sh — golden and property tests for the chronoid command.
#   tests/cli/run.sh BINARY
# Prints TAP ("ok N - name" / "not ok N - name", "# " diagnostics, then
# "1..N") and exits 1 when any case failed.  tests/cli/README.md explains
# the case files in tests/cli/cases/.
set -u
export TZ=UTC LC_ALL=C
unset CHRONOID_NODE

if [ $# -ne 1 ]; then
    echo "usage: $0 BINARY" >&2
    exit 2
fi
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
if [ ! -x "$bin" ]; then
    echo "$0: $bin is not an executable" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# gen snowflake claims its node number: in a directory of the run's own,
# never the host's (another test or application may hold node 1 there).
mkdir -m 700 "$tmp/claims"
export CHRONOID_CLAIM_DIR=$tmp/claims

n=0
failed=0

# pass NAME / fail NAME [DIAGNOSTIC...]: one TAP line.
pass() {
    n=$((n + 1))
    echo "ok $n - $1"
}
fail() {
    local name=$1
    shift
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $name"
    local d
    for d in "$@"; do
        printf '%s\n' "$d" | sed 's/^/# /'
    done
}

# ------------------------------------------------------------------------
# Golden cases: NAME.cmd (+ .stdin, .env, .out, .err, .code)
# ------------------------------------------------------------------------
run_golden() {
    local cmdfile=$1
    local name
    name=$(basename "$cmdfile" .cmd)
    local base=${cmdfile%.cmd}
    local args stdin=/dev/null code=0 got_code diags=()
    args=$(cat "$cmdfile")
    [ -f "$base.stdin" ] && stdin=$base.stdin
    [ -f "$base.code" ] && code=$(tr -d ' \n' <"$base.code")
    (
        if [ -f "$base.env" ]; then
            while IFS= read -r kv; do
                [ -n "$kv" ] && export "${kv?}"
            done <"$base.env"
        fi
        eval "exec \"\$bin\" $args" <"$stdin" >"$tmp/out" 2>"$tmp/err"
    )
    got_code=$?
    [ -f "$base.out" ] && cp "$base.out" "$tmp/want_out" || : >"$tmp/want_out"
    [ -f "$base.err" ] && cp "$base.err" "$tmp/want_err" || : >"$tmp/want_err"
    if [ "$got_code" != "$code" ]; then
        diags+=("exit status $got_code, expected $code")
    fi
    if ! cmp -s "$tmp/want_out" "$tmp/out"; then
        diags+=("stdout differs:" "$(diff -u "$tmp/want_out" "$tmp/out" | tail -n +3)")
    fi
    if ! cmp -s "$tmp/want_err" "$tmp/err"; then
        diags+=("stderr differs:" "$(diff -u "$tmp/want_err" "$tmp/err" | tail -n +3)")
    fi
    if [ ${#diags[@]} -eq 0 ]; then
        pass "$name"
    else
        fail "$name" "chronoid $args" "${diags[@]}"
    fi
}

for f in "$here"/cases/*.cmd; do
    run_golden "$f"
done

# ------------------------------------------------------------------------
# Property cases for gen (random and time-dependent output)
# ------------------------------------------------------------------------
re_snowflake='^[0-9]{1,20}$'
re_uuidv7='^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
re_uuidv4='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
re_ulid='^[0-7][0-9A-HJKMNP-TV-Z]{25}$'

# gen_lines NAME COUNT REGEX ARGS...: COUNT lines, each matching REGEX.
gen_lines() {
    local name=$1 count=$2 re=$3
    shift 3
    "$bin" gen "$@" >"$tmp/gen" 2>"$tmp/gen_err"
    local rc=$? lines bad
    lines=$(wc -l <"$tmp/gen" | tr -d ' ')
    bad=$(grep -cvE "$re" "$tmp/gen")
    if [ $rc -ne 0 ] || [ "$lines" != "$count" ] || [ "$bad" != 0 ] || [ -s "$tmp/gen_err" ]; then
        fail "$name" "chronoid gen $*: exit $rc, $lines lines (want $count), $bad not matching $re" \
            "$(head -n 3 "$tmp/gen_err")"
    else
        pass "$name"
    fi
}

# increasing NAME numeric|text: the last gen output strictly increases.
increasing() {
    local name=$1 how=$2 ok=1
    if [ "$(wc -l <"$tmp/gen" | tr -d ' ')" -lt 2 ]; then
        fail "$name" "the last gen printed fewer than 2 lines"
        return
    fi
    if [ "$how" = numeric ]; then
        # Fixed width after padding: 20 digits hold any 64-bit value.
        awk '{ printf "%020s\n", $0 }' "$tmp/gen" | tr ' ' 0 | LC_ALL=C sort -c -u 2>/dev/null || ok=0
    else
        LC_ALL=C sort -c -u "$tmp/gen" 2>/dev/null || ok=0
    fi
    if [ $ok = 1 ]; then
        pass "$name"
    else
        fail "$name" "output of the last gen is not strictly increasing" \
            "$(LC_ALL=C sort -c -u "$tmp/gen" 2>&1 | head -n 2)"
    fi
}

gen_lines "gen snowflake -n 10000: count and form" 10000 "$re_snowflake" snowflake -n 10000 --node 7
increasing "gen snowflake: strictly increasing" numeric
# Many batches and buffer drains: a million, all distinct and increasing.
gen_lines "gen snowflake -n 1000000: count and form" 1000000 "$re_snowflake" snowflake -n 1000000 --node 1023
increasing "gen snowflake -n 1000000: strictly increasing" numeric
# 20000 crosses gen's batches of 8192 twice, the last one partial.
gen_lines "gen uuidv7 -n 20000: count and form" 20000 "$re_uuidv7" uuidv7 -n 20000
increasing "gen uuidv7: strictly increasing" text
gen_lines "gen uuidv4 -n 20000: count and form" 20000 "$re_uuidv4" uuidv4 -n 20000
if [ "$(sort -u "$tmp/gen" | wc -l | tr -d ' ')" = 20000 ]; then
    pass "gen uuidv4: no duplicates"
else
    fail "gen uuidv4: no duplicates"
fi
gen_lines "gen ulid -n 20000: count and form" 20000 "$re_ulid" ulid -n 20000
if [ "$(sort -u "$tmp/gen" | wc -l | tr -d ' ')" = 20000 ]; then
    pass "gen ulid: no duplicates"
else
    fail "gen ulid: no duplicates"
fi
gen_lines "gen ulid --monotonic -n 20000: count and form" 20000 "$re_ulid" ulid --monotonic -n 20000
increasing "gen ulid --monotonic: strictly increasing" text
# TypeIDs: UUIDv7s under a prefix, the same batches (20000 crosses two).
re_typeid_user='^user_[0-7][0-9a-hjkmnp-tv-z]{25}$'
gen_lines "gen typeid --prefix user -n 20000: count and form" 20000 "$re_typeid_user" \
    typeid --prefix user -n 20000
increasing "gen typeid --prefix user: strictly increasing" text
gen_lines "gen typeid without a prefix: the bare 26 digits" 3 '^[0-7][0-9a-hjkmnp-tv-z]{25}$' typeid -n 3
gen_lines "gen typeid, a 63-character prefix" 2 '^[a-z]{63}_[0-7][0-9a-hjkmnp-tv-z]{25}$' \
    typeid -n 2 --prefix abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk
gen_lines "gen snowflake: a layout without a node field needs no node" 2 "$re_snowflake" \
    snowflake -n 2 --layout 'time:42,seq:12,reserved:9;epoch=2025-01-01'
gen_lines "gen without -n: one ID" 1 "$re_uuidv7" uuidv7
gen_lines "gen --count=3 and -n3 spellings" 3 "$re_ulid" ulid --count=3
gen_lines "gen -n3 (value attached)" 3 "$re_ulid" ulid -n3

# gen_inspect NAME TYPE GEN-ARGS...: gen | inspect --json gives TYPE and a
# time within the last minute (and, when NODE is set, that node).
gen_inspect() {
    local name=$1 type=$2
    shift 2
    local now_ms got
    now_ms=$(($(date +%s) * 1000))
    got=$("$bin" gen "$@" -n 3 | "$bin" inspect --json ${INSPECT_ARGS:-})
    local rc=$? bad=0 line ms
    [ $rc -eq 0 ] || bad=1
    [ "$(printf '%s\n' "$got" | wc -l | tr -d ' ')" = 3 ] || bad=1
    while IFS= read -r line; do
        case $line in *"\"type\":\"$type\""*) ;; *) bad=1 ;; esac
        ms=$(printf '%s\n' "$line" | sed -n 's/.*"unix_ms":\([0-9]*\).*/\1/p')
        if [ -z "$ms" ] || [ $((now_ms - ms)) -gt 60000 ] || [ $((ms - now_ms)) -gt 60000 ]; then
            bad=1
        fi
        case $line in *'"timestamp":"'[0-9][0-9][0-9][0-9]-*'Z"'*) ;; *) bad=1 ;; esac
        if [ -n "${NODE:-}" ]; then
            case $line in *"\"node\":$NODE,"*) ;; *) bad=1 ;; esac
        fi
    done <<<"$got"
    if [ $bad = 0 ]; then
        pass "$name"
    else
        fail "$name" "chronoid gen $* -n 3 | chronoid inspect --json ${INSPECT_ARGS:-} (exit $rc):" "$got"
    fi
}

NODE=5 gen_inspect "gen snowflake | inspect --json: type, time, node" snowflake snowflake --node 5
# The IDs already in databases (issue 27): form, order or distinctness,
# and what inspect reads back.
re_uuidv6='^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
re_objectid='^[0-9a-f]{24}$'
re_ksuid='^[0-9A-Za-z]{27}$'
gen_lines "gen uuidv6 -n 20000: count and form" 20000 "$re_uuidv6" uuidv6 -n 20000
increasing "gen uuidv6: strictly increasing" text
gen_lines "gen objectid -n 20000: count and form" 20000 "$re_objectid" objectid -n 20000
if [ "$(sort -u "$tmp/gen" | wc -l)" -eq 20000 ] &&
    [ "$(cut -c9-18 "$tmp/gen" | sort -u | wc -l)" -eq 1 ]; then
    pass "gen objectid: no duplicates, one process's bytes"
else
    fail "gen objectid: no duplicates, one process's bytes"
fi
# the counter steps by one from line to line, across the batches (8,192)
gaps=$(cut -c19-24 "$tmp/gen" | awk '{ v = 0; for (i = 1; i <= 6; i++) v = v * 16 + index("0123456789abcdef", substr($1, i, 1)) - 1 }
    NR > 1 && v != (prev + 1) % 16777216 { bad++ } { prev = v } END { print bad + 0 }')
if [ "$gaps" = 0 ]; then
    pass "gen objectid: the counter steps by one across batches"
else
    fail "gen objectid: the counter steps by one across batches" "$gaps lines do not follow the one before"
fi
gen_lines "gen ksuid -n 20000: count and form" 20000 "$re_ksuid" ksuid -n 20000
if [ "$(sort -u "$tmp/gen" | wc -l)" -eq 20000 ]; then
    pass "gen ksuid: no duplicates"
else
    fail "gen ksuid: no duplicates"
fi
gen_inspect "gen uuidv6 | inspect --json: type and time" uuid uuidv6
gen_inspect "gen objectid | inspect --json: type and time" objectid objectid
gen_inspect "gen ksuid | inspect --json: type and time" ksuid ksuid
gen_inspect "gen uuidv7 | inspect --json: type and time" uuid uuidv7
gen_inspect "gen ulid | inspect --json: type and time" ulid ulid
gen_inspect "gen typeid | inspect --json: type and time" typeid typeid --prefix user
gen_inspect "gen ulid --monotonic | inspect --json: type and time" ulid ulid --monotonic
NODE=42 INSPECT_ARGS="--layout sonyflake" gen_inspect \
    "gen --layout sonyflake | inspect --layout sonyflake: node decodes" snowflake \
    snowflake --layout sonyflake --node 42
spec='time:41,node:12,seq:10;epoch=2024-01-01;tick=1ms'
NODE=4000 INSPECT_ARGS="--layout $spec" gen_inspect \
    "gen --layout SPEC | inspect --layout SPEC: node decodes" snowflake \
    snowflake --layout "$spec" --node 4000

# CHRONOID_NODE stands in for --node; --node wins over it.
got=$(CHRONOID_NODE=9 "$bin" gen snowflake -n 2 | "$bin" inspect --json)
if [ $? -eq 0 ] && [ "$(grep -c '"node":9,' <<<"$got")" = 2 ]; then
    pass "CHRONOID_NODE gives the node"
else
    fail "CHRONOID_NODE gives the node" "$got"
fi
got=$(CHRONOID_NODE=9 "$bin" gen snowflake --node 3 | "$bin" inspect --json)
if [ $? -eq 0 ] && grep -q '"node":3,' <<<"$got"; then
    pass "--node wins over CHRONOID_NODE"
else
    fail "--node wins over CHRONOID_NODE" "$got"
fi

# Every line of the --json golden outputs is a JSON object with "id" and
# "type" first (checked by an independent parser when python3 is there).
if command -v python3 >/dev/null 2>&1; then
    if out=$(python3 - "$here"/cases/*json*.out <<'PY' 2>&1
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        obj = json.loads(line)
        keys = list(obj)
        assert keys[:2] == ["id", "type"], (path, keys)
        assert isinstance(obj["id"], str), path
        # docs/cli.md, "JSON output": a key that does not apply is absent,
        # never null or "".
        assert None not in obj.values() and "" not in obj.values(), (path, obj)
PY
    ); then
        pass "inspect --json golden outputs parse as JSON, with no null or empty value"
    else
        fail "inspect --json golden outputs parse as JSON, with no null or empty value" "$out"
    fi
else
    n=$((n + 1))
    echo "ok $n - inspect --json golden outputs parse as JSON, with no null or empty value # SKIP no python3"
fi

# convert round trip on fresh IDs: uuid -> ulid -> uuid is the identity.
"$bin" gen uuidv7 -n 100 >"$tmp/u"
"$bin" convert --to ulid <"$tmp/u" | "$bin" convert --to uuid >"$tmp/u2"
if cmp -s "$tmp/u" "$tmp/u2" && [ "$(wc -l <"$tmp/u2" | tr -d ' ')" = 100 ]; then
    pass "convert uuid -> ulid -> uuid round trip"
else
    fail "convert uuid -> ulid -> uuid round trip" "$(diff "$tmp/u" "$tmp/u2" | head -n 5)"
fi

# TypeID round trips on fresh IDs: uuid -> typeid -> uuid, and a TypeID
# re-prefixed and back, are the identity.
"$bin" convert --to typeid --prefix order <"$tmp/u" >"$tmp/t"
"$bin" convert --to uuid <"$tmp/t" >"$tmp/u2"
"$bin" convert --to typeid --prefix user <"$tmp/t" | "$bin" convert --to typeid --prefix order >"$tmp/t2"
if cmp -s "$tmp/u" "$tmp/u2" && cmp -s "$tmp/t" "$tmp/t2" && [ "$(grep -c '^order_' "$tmp/t")" = 100 ]; then
    pass "convert uuid -> typeid -> uuid round trip"
else
    fail "convert uuid -> typeid -> uuid round trip" "$(diff "$tmp/u" "$tmp/u2" | head -n 5)"
fi

# A closed stdout is a write error (exit 1), not silence.
if "$bin" gen uuidv4 -n 10 >&- 2>"$tmp/err"; then
    fail "gen to a closed stdout fails" "exit 0"
elif grep -q '^chronoid: write error' "$tmp/err"; then
    pass "gen to a closed stdout fails"
else
    fail "gen to a closed stdout fails" "$(cat "$tmp/err")"
fi

# A refused line of a megabyte: one short message (the value capped at 64
# bytes and its length), written at once, not byte by byte.
head -c 1048576 /dev/zero | tr '\0' 'x' >"$tmp/big"
echo >>"$tmp/big"
for sub in inspect "convert --to uuid"; do
    # shellcheck disable=SC2086 # sub is two words for convert
    "$bin" $sub <"$tmp/big" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err" | tr -d ' ')" = 1 ] && [ "$(wc -c <"$tmp/err" | tr -d ' ')" -lt 300 ] &&
        grep -q '\.\.\." (1048576 bytes): not a known id form' "$tmp/err"; then
        pass "$sub of a 1 MiB bad line: exit 1, one message under 300 bytes naming the length"
    else
        fail "$sub of a 1 MiB bad line: exit 1, one message under 300 bytes naming the length" \
            "exit $rc, $(wc -c <"$tmp/err") bytes: $(head -c 200 "$tmp/err")"
    fi
done
if command -v strace >/dev/null 2>&1; then
    writes=$(strace -f -c -e trace=write "$bin" inspect <"$tmp/big" 2>&1 >/dev/null |
        awk '$NF == "write" { print $4 }')
    if [ -n "$writes" ] && [ "$writes" -le 10 ]; then
        pass "inspect of a 1 MiB bad line makes at most 10 write calls, not one per byte (made $writes)"
    else
        fail "inspect of a 1 MiB bad line makes at most 10 write calls" "strace counted '${writes}'"
    fi
else
    n=$((n + 1))
    echo "ok $n - inspect of a 1 MiB bad line: write calls # SKIP no strace"
fi

# gen snowflake claims its node on this host for as long as it runs: a
# second gen of the same node (and scope) is refused, naming the holder;
# another scope or --no-claim goes on; the claim ends with its holder.
mkfifo "$tmp/hold"
"$bin" gen snowflake --node 9 -n 1000000000 >"$tmp/hold" 2>/dev/null &
holder=$!
exec {hold_fd}<"$tmp/hold"
read -r _ <&"$hold_fd"     # the holder has minted, so it holds the claim
"$bin" gen snowflake --node 9 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q "node 9 of scope \"default\" is held by process $holder " "$tmp/err"; then
    pass "gen snowflake: a node another gen holds is refused, naming its pid, and nothing is minted"
else
    fail "gen snowflake: a node another gen holds is refused, naming its pid" "exit $rc, pid $holder" "$(cat "$tmp/err")"
fi
if "$bin" gen snowflake --node 9 --scope other >/dev/null 2>"$tmp/err" &&
        "$bin" gen snowflake --node 9 --no-claim >/dev/null 2>>"$tmp/err"; then
    pass "gen snowflake: the same node under another --scope, or with --no-claim, mints"
else
    fail "gen snowflake: the same node under another --scope, or with --no-claim, mints" "$(cat "$tmp/err")"
fi
kill "$holder" 2>/dev/null
exec {hold_fd}<&-
wait "$holder" 2>/dev/null
if "$bin" gen snowflake --node 9 >/dev/null 2>"$tmp/err"; then
    pass "gen snowflake: once its holder is gone, the node can be claimed again"
else
    fail "gen snowflake: once its holder is gone, the node can be claimed again" "$(cat "$tmp/err")"
fi

echo "1..$n"
[ $failed -eq 0 ]
