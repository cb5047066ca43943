#!/usr/bin/env bash
# run.sh — static analysis of chronoid's C sources: cppcheck and clang-tidy
# (checks in .clang-tidy), one TAP line per tool; any finding fails it.
# `make lint` and `make check` run this; docs/testing.md explains the
# chosen checks and how to suppress a finding (inline, with a reason).
set -uo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc 2>/dev/null || echo 2)
PG_CONFIG=${PG_CONFIG:-pg_config}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
CPPCHECK=${CPPCHECK:-cppcheck}
pq_inc=$("$PG_CONFIG" --includedir 2>/dev/null || echo /usr/include/postgresql)
pg_inc=$("$PG_CONFIG" --includedir-server 2>/dev/null || true)
have_pg=
[ -n "$pg_inc" ] && [ -f "$pg_inc/postgres.h" ] && have_pg=yes

core_files=(src/*.c cli/*.c db/*/*.c)
pg_files=(pg/src/*.c)
n=0
echo "1..2"

# cppcheck: src/, cli/ and db/.  Not pg/src/: without PostgreSQL's headers it
# takes ereport(ERROR) for a call that returns and reports the code after
# it; with them it needs minutes per run.  clang-tidy covers pg/src/.
# variableScope is off: PostgreSQL style declares variables at the top of
# the block on purpose.
n=$((n + 1))
if ! command -v "$CPPCHECK" >/dev/null 2>&1; then
    echo "ok $n - lint/cppcheck # SKIP cppcheck not installed"
else
    out=$("$CPPCHECK" --quiet --std=c11 --error-exitcode=1 --inline-suppr \
        --enable=warning,style,performance,portability --suppress=variableScope \
        -j "$jobs" -Iinclude -Isrc -Icli -Idb/pq -Idb/lease -Idb/chronoid-lease \
        -Idb/chronoid-bench-pk -I"$pq_inc" \
        --template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
        "${core_files[@]}" 2>&1)
    rc=$?
    count=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: ' <<<"$out")
    if [ "$rc" -eq 0 ] && [ "$count" -eq 0 ]; then
        echo "ok $n - lint/cppcheck: ${#core_files[@]} files, no findings"
    else
        echo "not ok $n - lint/cppcheck: $count findings"
        sed 's/^/#   /' <<<"$out" | head -n 60
    fi
fi

# clang-tidy: src/, cli/, db/ and, where the server headers are installed,
# pg/src/ (compiled as PGXS does: GNU C, the server include directory).
n=$((n + 1))
if ! command -v "$CLANG_TIDY" >/dev/null 2>&1; then
    echo "ok $n - lint/clang-tidy # SKIP clang-tidy not installed"
else
    tidy_one() {
        local f=$1
        case $f in
            pg/*) "$CLANG_TIDY" --quiet "$f" -- -std=gnu11 -Iinclude -Isrc -Ipg/src \
                      -I"$pg_inc" -I"$pq_inc" ;;
            *) "$CLANG_TIDY" --quiet "$f" -- -std=c11 -Iinclude -Isrc -Icli -Idb/pq \
                   -I"$(dirname "$f")" -I"$pq_inc" -pthread ;;
        esac
    }
    export -f tidy_one
    export CLANG_TIDY pg_inc pq_inc
    files=("${core_files[@]}")
    [ -n "$have_pg" ] && files+=("${pg_files[@]}")
    out=$(printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'tidy_one "$1" 2>&1' _ {})
    findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' <<<"$out")
    count=$(grep -c . <<<"$findings")
    what="${#files[@]} files"
    [ -z "$have_pg" ] && what="$what (pg/src skipped: no server headers)"
    if [ "$count" -eq 0 ]; then
        echo "ok $n - lint/clang-tidy: $what, no findings"
    else
        echo "not ok $n - lint/clang-tidy: $count findings in $what"
        sed 's/^/#   /' <<<"$findings" | head -n 60
    fi
fi
