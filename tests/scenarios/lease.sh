#!/usr/bin/env bash
# lease.sh — node leases for application servers (libchronoid_lease and
# `chronoid lease`) against a throwaway PostgreSQL cluster: concurrent
# acquires get distinct numbers, renew/release by token, a full range, the
# registry of database servers, the previous holder's clock rule, fencing
# of a process stopped (SIGSTOP) past its expiry, and `lease run` stopping
# its command when the lease cannot be renewed.  Prints TAP; about 25 s.
# Binaries from $BUILD (default build/): chronoid and tests/lease_minter.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/scenario.bash
minter=$PWD/$BUILD/tests/lease_minter
scenario_needs server tests/lease_minter

. scripts/pgcluster.sh
if ! pgc_start >/dev/null; then
    bail "start a throwaway PostgreSQL cluster"
fi
work=$PGC_DIR/lease
mkdir -p "$work"
bg_pids=()
pgc_atexit 'for p in "${bg_pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done'
now_ms() { date +%s%3N; }

# --- init -----------------------------------------------------------------
out=$("$bin" lease init 2>&1); rc=$?
out2=$("$bin" lease init 2>&1); rc2=$?
ok_if "lease init creates chronoid.node_lease, and again is a no-op" \
    '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$(q "SELECT to_regclass('"'"'chronoid.node_lease'"'"') IS NOT NULL")" = t ]' \
    "rc=$rc $out" "rc=$rc2 $out2"
out=$("$bin" lease acquire --schema nosuch 2>&1); rc=$?
ok_if "acquire without init: one line naming the fix" \
    '[ $rc -eq 1 ] && [[ $out == *"run '"'"'chronoid lease init'"'"'"* ]] && [ "$(wc -l <<<"$out")" -eq 1 ]' "rc=$rc $out"

# --- 8 processes at once ----------------------------------------------------
pids=()
for i in 1 2 3 4 5 6 7 8; do
    "$bin" lease acquire >"$work/acq.$i" 2>&1 &
    pids+=($!)
done
allok=yes
for p in "${pids[@]}"; do wait "$p" || allok=no; done
nodes=$(cat "$work"/acq.* | awk '{print $1}' | sort -n)
ok_if "8 concurrent acquires all succeed" '[ $allok = yes ]' "$(cat "$work"/acq.*)"
ok_if "8 concurrent acquires get 8 distinct numbers, the lowest free ones (1..8)" \
    '[ "$(sort -un <<<"$nodes" | tr "\n" " ")" = "1 2 3 4 5 6 7 8 " ]' "got: $(tr '\n' ' ' <<<"$nodes")"
ok_if "the table shows 8 live rows with 8 distinct holders" \
    '[ "$(q "SELECT count(*), count(DISTINCT holder) FROM chronoid.node_lease WHERE holder <> '"''"' AND expires_at > clock_timestamp()")" = "8|8" ]' \
    "$(q 'SELECT * FROM chronoid.node_lease')"
held=$("$bin" lease list | grep -c ' held ')
ok_if "lease list shows them held" '[ "$held" -eq 8 ]' "$("$bin" lease list)"

# --- renew, release by token ------------------------------------------------
read -r n3 tok3 < <(grep -h '^3 ' "$work"/acq.*)
read -r n5 tok5 < <(grep -h '^5 ' "$work"/acq.*)
before=$(q "SELECT expires_at FROM chronoid.node_lease WHERE node = 5")
sleep 0.2
out=$("$bin" lease renew "$tok5" --node 5 2>&1); rc=$?
after=$(q "SELECT expires_at FROM chronoid.node_lease WHERE node = 5")
ok_if "renew by token extends expires_at" \
    '[ $rc -eq 0 ] && [[ $out == "node 5 renewed: expires in "* ]] && [ "$(q "SELECT '"'$after'"'::timestamptz > '"'$before'"'::timestamptz")" = t ]' \
    "rc=$rc $out; before $before after $after"
out=$("$bin" lease renew 0123456789abcdef0123456789abcdef --node 5 2>&1); rc=$?
out2=$("$bin" lease renew "$tok3" --node 5 2>&1); rc2=$?
ok_if "renew with a wrong token fails (exit 1, one line)" \
    '[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && [[ $out == *"not held by this token"* ]] && [ "$(q "SELECT holder FROM chronoid.node_lease WHERE node = 5")" = "$tok5" ]' \
    "rc=$rc $out" "rc=$rc2 $out2"
out=$("$bin" lease release "$tok3" --node 3 2>&1); rc=$?
out2=$("$bin" lease acquire 2>&1); rc2=$?
ok_if "release frees the number at once: the next acquire gets 3" \
    '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "${out2%% *}" = 3 ]' "release rc=$rc $out" "acquire rc=$rc2 $out2"
out=$("$bin" lease release "$tok3" --node 3 2>&1); rc=$?
ok_if "releasing again with the old token fails" '[ $rc -eq 1 ]' "rc=$rc $out"

# --- a full range, usage errors ---------------------------------------------
out=$("$bin" lease acquire --range 1-8 2>&1); rc=$?
ok_if "range full: exit 1 naming the range and how many are held" \
    '[ $rc -eq 1 ] && [[ $out == *"no free node number in 1..8: 8 held by leases"* ]]' "rc=$rc $out"
"$bin" lease acquire --range 9-3 >/dev/null 2>&1; r1=$?
"$bin" lease renew --node 3 >/dev/null 2>&1; r2=$?
"$bin" lease acquire --ttl 10parsecs >/dev/null 2>&1; r3=$?
"$bin" lease acquire --range 5-2000 >/dev/null 2>&1; r4=$?
"$bin" lease frobnicate >/dev/null 2>&1; r5=$?
ok_if "bad command lines exit 2" '[ "$r1$r2$r3$r4$r5" = 22222 ]' "got $r1 $r2 $r3 $r4 $r5"

# --- a lapsed lease is never revived; grace before reuse --------------------
read -r ln ltok < <("$bin" lease acquire --ttl 1s --grace 2s --range 900-900)
sleep 1.3
out=$("$bin" lease renew "$ltok" --node 900 2>&1); rc=$?
out2=$("$bin" lease acquire --ttl 1s --grace 2s --range 900-900 2>&1); rc2=$?
ok_if "a lapsed lease cannot be renewed, and is not handed on within grace" \
    '[ "$ln" = 900 ] && [ $rc -eq 1 ] && [[ $out == *"lapsed"* ]] && [ $rc2 -eq 1 ]' "rc=$rc $out" "rc=$rc2 $out2"

# --- database servers' claims (snowflake.node_registry) ---------------------
q "CREATE SCHEMA snowflake; CREATE TABLE snowflake.node_registry (node int, system_identifier bigint);
   INSERT INTO snowflake.node_registry VALUES (970, 1);" >/dev/null
out=$("$bin" lease acquire --range 970-971 2>&1); rc=$?
out2=$("$bin" lease acquire --range 970-970 2>&1); rc2=$?
q "DROP SCHEMA snowflake CASCADE" >/dev/null
ok_if "a number claimed in snowflake.node_registry is never leased" \
    '[ $rc -eq 0 ] && [ "${out%% *}" = 971 ] && [ $rc2 -eq 1 ] && [[ $out2 == *"1 claimed by database servers"* ]]' \
    "rc=$rc $out" "rc=$rc2 $out2"

# --- the previous holder's clock: IDs after its last ms + ttl ---------------
q "INSERT INTO chronoid.node_lease (node, holder, expires_at, last_ms, ttl_ms)
   VALUES (980, '', '-infinity', $(($(now_ms) + 60000)), 0),
          (981, '', '-infinity', $(($(now_ms) + 700)), 0)" >/dev/null
out=$("$bin" lease acquire --range 980-980 2>&1); rc=$?
ok_if "previous holder's IDs far ahead of this clock: acquire refuses (exit 1, clocks named)" \
    '[ $rc -eq 1 ] && [[ $out == *"ahead of this host"* ]] && [ "$(q "SELECT holder FROM chronoid.node_lease WHERE node = 980")" = "" ]' "rc=$rc $out"
nb=$(q "SELECT last_ms + ttl_ms FROM chronoid.node_lease WHERE node = 981")
"$minter" 3000 2000 981-981 0 3 >"$work/m981" 2>&1; rc=$?
first=$(awk '$1 == "id" {print $3; exit}' "$work/m981")
ok_if "previous holder's IDs slightly ahead: the new holder's first ID comes after them" \
    '[ $rc -eq 0 ] && [ -n "$first" ] && [ "$first" -gt "$nb" ]' "rc=$rc not_before=$nb" "$(cat "$work/m981")"
ok_if "a released row keeps the holder's last ms (ttl 0) for the next holder" \
    '[ "$(q "SELECT holder = '"''"' AND ttl_ms = 0 AND last_ms >= $first FROM chronoid.node_lease WHERE node = 981")" = t ]' \
    "$(q 'SELECT * FROM chronoid.node_lease WHERE node = 981')"

# --- list --json: a key that does not apply is absent, never null or "" ------
# (docs/cli.md, "JSON output"): 981 is released (no holder, no expiry), the
# numbers acquired above are held.
if command -v jq >/dev/null 2>&1; then
    "$bin" lease list --json >"$work/list.json" 2>&1; rc=$?
    ok_if "lease list --json: one object per row, no null or empty-string value anywhere" \
        '[ $rc -eq 0 ] && jq -es "length > 0 and all(.[]; [.. | select(. == null or . == \"\")] == [])" "$work/list.json" >/dev/null' \
        "rc=$rc" "$(head -c 600 "$work/list.json")"
    ok_if "lease list --json: a released number has no holder and no expiry; a held one has both" \
        'jq -es "(.[] | select(.node == 981) | (.state == \"released\" and (has(\"holder\") | not) and (has(\"expires_in_ms\") | not) and (has(\"expires_at\") | not) and .last_ms > 0)) and
                 ([.[] | select(.state == \"held\")] | length > 0 and all(.[]; has(\"holder\") and has(\"expires_in_ms\") and has(\"acquired_at\")))" "$work/list.json" >/dev/null' \
        "$(grep -E '"node":(981|1),' "$work/list.json")"
else
    skip "lease list --json: no null or empty-string value" "no jq"
    skip "lease list --json: released and held rows" "no jq"
fi

# --- the owner and schema texts ---------------------------------------------
# The library refuses what it used to cut short or store as given, naming
# the value, before it connects; and `lease list` shows a row's text that
# holds control bytes (any role that may write the table could put them
# there) escaped, not raw on the operator's terminal.
out=$("$bin" lease acquire --owner $'web\n1' 2>&1); rc=$?
ok_if "an owner with a control character is refused, the value named and escaped" \
    '[ $rc -eq 2 ] && [ "$out" = "chronoid: lease acquire: owner \"web\\x0a1\" has a control character at byte 3: expected printable text" ]' \
    "rc=$rc $out"
long=$(printf 'o%.0s' $(seq 256))
out=$("$bin" lease acquire --owner "$long" 2>&1); rc=$?
ok_if "an owner of 256 bytes is refused, not cut to 255" \
    '[ $rc -eq 2 ] && [[ $out == *"is 256 bytes long: expected at most 255" ]]' "rc=$rc $out"
ok_if "no row was written for either refused owner" \
    '[ "$(q "SELECT count(*) FROM chronoid.node_lease WHERE owner LIKE '"'"'web%'"'"' OR owner LIKE '"'"'ooo%'"'"'")" = 0 ]'
out=$("$bin" lease acquire --owner "${long:1}" 2>&1); rc=$?
read -r n255 tok255 <<<"$out"
ok_if "an owner of 255 bytes is kept whole" \
    '[ $rc -eq 0 ] && [ "$(q "SELECT length(owner) FROM chronoid.node_lease WHERE node = $n255")" = 255 ]' "rc=$rc $out"
"$bin" lease release "$tok255" --node "$n255" >/dev/null 2>&1
out=$("$bin" lease acquire --schema Bad-Name 2>&1); rc=$?
ok_if "a bad schema name is refused, the value named" \
    '[ $rc -eq 2 ] && [[ $out == *"schema \"Bad-Name\" is not a lease schema name: expected"* ]]' "rc=$rc $out"
q "INSERT INTO chronoid.node_lease (node, holder, owner, acquired_at, renewed_at, expires_at, last_ms, ttl_ms)
   VALUES (1019, E'\\x1b]0;pwned\\x07', E'\\x1b[2Jop', now(), now(), now() + interval '1 hour', 0, 30000)" >/dev/null
"$bin" lease list >"$work/list.txt" 2>&1; rc=$?
ok_if "lease list shows control bytes in a row's holder and owner escaped, none raw" \
    '[ $rc -eq 0 ] && ! grep -q $'"'"'\x1b'"'"' "$work/list.txt" && grep -qF "\"\\u001b[2Jop\"" "$work/list.txt" &&
     grep -qF "\"\\u001b]0;pwned\\u0007\"" "$work/list.txt"' "rc=$rc" "$(grep 1019 "$work/list.txt" | od -c | head -5)"
q "DELETE FROM chronoid.node_lease WHERE node = 1019" >/dev/null

# --- SIGSTOP past the expiry ------------------------------------------------
# A mints through cid_lease_next (ttl 3 s, grace 2 s) on the only number of
# its range; stopped longer than ttl + grace, B takes the number only after
# expiry + grace; resumed, A must not mint again.
"$minter" 3000 2000 950-950 10 >"$work/A" 2>&1 &
apid=$!; bg_pids+=("$apid")
for _ in $(seq 50); do [ "$(grep -c '^id ' "$work/A")" -ge 5 ] && break; sleep 0.1; done
sleep 1.3                                    # past one renewal (every ttl/3)
kill -STOP "$apid"
t_stop=$(now_ms)
renewed=$(q "SELECT renewed_at > acquired_at FROM chronoid.node_lease WHERE node = 950")
exp=$(q "SELECT (extract(epoch FROM expires_at) * 1000)::bigint FROM chronoid.node_lease WHERE node = 950")
ok_if "A holds node 950 and renewed it in the background" '[ "$(head -n 1 "$work/A" | cut -d" " -f1-2)" = "node 950" ] && [ "$renewed" = t ]' \
    "$(head -n 3 "$work/A")" "renewed=$renewed"
sleep "$(awk -v d=$((exp + 500 - $(now_ms))) 'BEGIN { print (d > 0 ? d / 1000 : 0) }')"
t_try=$(now_ms)
out=$("$bin" lease acquire --ttl 3s --grace 2s --range 950-950 2>&1); rc=$?
ok_if "B cannot take node 950 after A's expiry but within grace" \
    '[ $rc -eq 1 ] && [[ $out == *"no free node number in 950..950: 1 held"* ]] && [ "$t_try" -gt "$exp" ] && [ "$t_try" -lt $((exp + 1500)) ]' \
    "rc=$rc $out" "tried at expiry+$((t_try - exp)) ms"
bout=
for _ in $(seq 60); do
    if bout=$("$bin" lease acquire --ttl 3s --grace 2s --range 950-950 2>/dev/null); then break; fi
    bout=
    sleep 0.1
done
b_acq=$(q "SELECT (extract(epoch FROM acquired_at) * 1000)::bigint FROM chronoid.node_lease WHERE node = 950")
ok_if "B takes node 950 once expiry + grace has passed on the server clock" \
    '[ "${bout%% *}" = 950 ] && [ "$b_acq" -ge $((exp + 2000)) ]' "B: $bout; acquired at expiry+$((b_acq - exp)) ms"
t_cont=$(now_ms)
kill -CONT "$apid"
wait "$apid"; arc=$?
max_id=$(awk '$1 == "id" && $3 > m {m = $3} END {printf "%.0f\n", m}' "$work/A")
after=$(awk -v c="$t_cont" '$1 == "id" && $3 >= c' "$work/A" | wc -l)
ok_if "A, resumed, stops with 'lease expired' and exit 3" \
    '[ $arc -eq 3 ] && grep -qx "stopped node lease expired" "$work/A"' "exit $arc" "$(tail -n 4 "$work/A")"
ok_if "A minted no ID after resuming: every ID it printed is before its expiry" \
    '[ "$after" -eq 0 ] && [ "$max_id" -lt "$exp" ] && [ "$max_id" -gt $((t_stop - 1000)) ]' \
    "IDs after resume: $after; last ID at $max_id, expiry $exp, stopped at $t_stop"
ok_if "A's renewal does not revive the lease: B still holds node 950" \
    'grep -qx "renew node lease expired" "$work/A" && grep -q "^server renew node lease lost" "$work/A" && [ "$(q "SELECT holder FROM chronoid.node_lease WHERE node = 950")" = "${bout#* }" ]' \
    "$(tail -n 4 "$work/A")"

# --- lease run ----------------------------------------------------------------
out=$("$bin" lease run --range 960-960 -- sh -c 'echo "node=$CHRONOID_NODE"; exit 7' 2>&1); rc=$?
ok_if "lease run: the command sees CHRONOID_NODE, its exit status is passed on, the number released" \
    '[ $rc -eq 7 ] && [ "$out" = "node=960" ] && [ "$(q "SELECT holder FROM chronoid.node_lease WHERE node = 960")" = "" ]' "rc=$rc $out"

# The lease is taken away (as by an operator or a new holder): SIGTERM at once.
"$bin" lease run --ttl 3s --range 961-961 -- sh -c 'echo $$ >"$0"; exec sleep 60' "$work/pid961" \
    >"$work/run961" 2>&1 &
rpid=$!; bg_pids+=("$rpid")
for _ in $(seq 50); do [ -s "$work/pid961" ] && break; sleep 0.1; done
q "UPDATE chronoid.node_lease SET holder = 'someone else' WHERE node = 961" >/dev/null
t0=$(now_ms)
for _ in $(seq 60); do kill -0 "$rpid" 2>/dev/null || break; sleep 0.1; done
wait "$rpid"; rc=$?
ok_if "lease run: a lost lease stops the command (SIGTERM) and exits 1" \
    '[ $rc -eq 1 ] && ! kill -0 "$(cat "$work/pid961")" 2>/dev/null && [ $(($(now_ms) - t0)) -lt 2500 ] && grep -q "could not be renewed" "$work/run961"' \
    "rc=$rc after $(($(now_ms) - t0)) ms" "$(cat "$work/run961")"

# Renewals fail (the table is gone) and the command ignores SIGTERM: it is
# killed at the deadline, not later.
"$bin" lease run --ttl 3s --range 962-962 -- sh -c 'trap "" TERM; echo $$ >"$0"; while :; do sleep 0.1; done' \
    "$work/pid962" >"$work/run962" 2>&1 &
rpid=$!; bg_pids+=("$rpid")
for _ in $(seq 50); do [ -s "$work/pid962" ] && break; sleep 0.1; done
exp=$(q "SELECT (extract(epoch FROM expires_at) * 1000)::bigint FROM chronoid.node_lease WHERE node = 962")
q "ALTER TABLE chronoid.node_lease RENAME TO node_lease_away" >/dev/null
for _ in $(seq 80); do kill -0 "$rpid" 2>/dev/null || break; sleep 0.1; done
t_end=$(now_ms)
wait "$rpid"; rc=$?
q "ALTER TABLE chronoid.node_lease_away RENAME TO node_lease" >/dev/null
ok_if "lease run: renewals failing, a command that ignores SIGTERM is killed by the deadline" \
    '[ $rc -eq 1 ] && ! kill -0 "$(cat "$work/pid962")" 2>/dev/null && [ "$t_end" -le $((exp + 3000 + 300)) ] && grep -q "could not be renewed" "$work/run962"' \
    "rc=$rc ended $((t_end - exp)) ms after the last known expiry" "$(cat "$work/run962")"

tap_done
