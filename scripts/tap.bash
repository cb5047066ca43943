# tap.bash — TAP output for every bash test script (tests/ and pg/test/),
# sourced, never run.  scripts/check.sh counts the "ok"/"not ok" lines and
# compares them with the plan, so a script that dies half-way still shows
# as failed.
#
# State: n (cases so far) and failed (failed cases so far).  A script ends
# with tap_done, which prints the plan and exits 1 when anything failed
# (an exit status of the count itself would wrap at 256).  TAP_PREFIX, when
# set, starts every case's name (a script that runs its cases once per
# mode sets TAP_PREFIX="plain: ").

n=0
failed=0
TAP_PREFIX=

# diag [TEXT...]: TEXT, or standard input when none, as "# " lines.
diag() {
    if [ $# -gt 0 ]; then
        printf '%s\n' "$@" | sed 's/^/# /'
    else
        sed 's/^/# /'
    fi
}

ok() { n=$((n + 1)); echo "ok $n - $TAP_PREFIX$1"; }

# not_ok NAME [DIAG...]: a failed case, each DIAG as diagnostic lines.
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $TAP_PREFIX$1"
    shift
    [ $# -gt 0 ] && diag "$@"
    return 0
}

# skip NAME WHY: a case that does not apply here (counted as skipped).
skip() { n=$((n + 1)); echo "ok $n - $TAP_PREFIX$1 # SKIP $2"; }

# check NAME GOT [WANT [DIAG...]]: ok when GOT equals WANT (default "t",
# what a boolean psql -At query prints); else each DIAG as diagnostics.
check() {
    local name=$1 got=$2 want=${3-t}
    shift $(($# < 3 ? $# : 3))
    if [ "$got" = "$want" ]; then
        ok "$name"
    else
        not_ok "$name (got '$got', want '$want')" "$@"
    fi
}

# ok_if NAME CONDITION [DIAG...]: ok when the shell CONDITION (eval'd)
# holds.
ok_if() {
    local name=$1 cond=$2
    shift 2
    if eval "$cond"; then ok "$name"; else not_ok "$name" "$@"; fi
}

# run_ok NAME COMMAND...: ok when COMMAND succeeds; else the tail of its
# output as diagnostics.
run_ok() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        ok "$name"
    else
        not_ok "$name" "$(tail -n 5 <<<"$out")"
    fi
}

# json_get JSON KEY...: the value at KEY... (object keys or array indexes)
# in the JSON text, or empty when absent.  JSON is never spliced into SQL:
# a status can carry a running query, quotes and all.
json_get() {
    python3 -c 'import json, sys
v = json.loads(sys.argv[1])
for k in sys.argv[2:]:
    try:
        v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        v = None
        break
print("" if v is None else (json.dumps(v) if isinstance(v, (dict, list)) else str(v).lower() if isinstance(v, bool) else v))' "$@"
}

# tap_relay LABEL: another script's TAP, read from standard input, as this
# script's cases: each "ok"/"not ok" line renumbered, "LABEL: " before its
# name; other lines as diagnostics.  A plan it fell short of, or no case at
# all, is a failed case (the script died half-way); "1..0 # SKIP WHY" is a
# skipped one.  No fork per line: a scenario prints hundreds of them.
tap_relay() {
    local label=$1 line planned='' seen=0 why=''
    local case_re='^(not ok|ok) *[0-9]* *-? *(.*)$'
    while IFS= read -r line; do
        case $line in
            "not ok"* | ok*)
                seen=$((seen + 1))
                [[ $line =~ $case_re ]]
                if [ "${BASH_REMATCH[1]}" = ok ]; then
                    ok "$label: ${BASH_REMATCH[2]}"
                else
                    not_ok "$label: ${BASH_REMATCH[2]}"
                fi ;;
            1..*)
                planned=${line#1..}
                [[ $planned == "0 # SKIP"* ]] && why=${planned#0 # SKIP}
                planned=${planned%% *} ;;
            *) echo "# $line" ;;
        esac
    done
    if [ -n "$planned" ] && [ "$planned" -gt "$seen" ]; then
        not_ok "$label: ran $seen of $planned planned cases"
    elif [ "$seen" -eq 0 ] && [ -n "$why" ]; then
        skip "$label" "${why# }"
    elif [ "$seen" -eq 0 ]; then
        not_ok "$label: no TAP output"
    fi
}

# skip_all WHY: the whole script does not apply here.
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

# bail NAME [DIAG]: a failure the rest cannot run after.
bail() {
    not_ok "$@"
    tap_done
}

# tap_done: the plan, and the exit status.
tap_done() {
    echo "1..$n"
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}
