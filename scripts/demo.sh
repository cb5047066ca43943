#!/usr/bin/env bash
# demo.sh — what `make demo` shows: IDs minted, inspected and converted on the
# command line, in JavaScript and Python, then in SQL on a throwaway
# PostgreSQL cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
# Node claims go to a directory of the demo's own, removed at the end: a
# demo leaves no lock file in the host's /run/lock/chronoid, where a
# test run beside it checks that nothing changed (docs/node-claims.md).
claims=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-demo-claims.XXXXXX")
trap 'rm -rf "$claims"' EXIT
export CHRONOID_CLAIM_DIR=${CHRONOID_CLAIM_DIR:-$claims/claims}
make -s --no-print-directory all >/dev/null
c=build/chronoid

if [ -t 1 ]; then B=$'\033[1m' N=$'\033[0m'; else B= N=; fi
# shellcheck source=shell_words.bash
. scripts/shell_words.bash
step() { printf '\n%s$ %s%s\n' "$B" "$(shell_words "$@")" "$N"; "$@"; }
say()  { printf '\n# %s\n' "$*"; }

say "Mint one ID of each scheme (a Snowflake needs a node number: here 7)"
step $c gen snowflake --node 7 -n 3
step $c gen uuidv7 -n 3
step $c gen ulid -n 3
step $c gen uuidv4 -n 2

say "Inspect: the scheme is recognised from the text; times are UTC"
ids=$($c gen snowflake --node 7; $c gen uuidv7; $c gen ulid; $c gen uuidv4)
# shellcheck disable=SC2086
step $c inspect $ids
say "The same as JSON (ids are strings: JavaScript loses precision above 2^53)"
# shellcheck disable=SC2086
step $c inspect --json $ids

say "Other Snowflake layouts: Discord's, and a hand-written scheme as a spec"
step $c gen snowflake --layout discord --node 5 -n 2
step $c inspect --layout discord 175928847299117063
step $c gen snowflake --layout 'time:42,seq:12,reserved:10;epoch=2025-01-01' --node 0 -n 2

say "Convert between ULID and UUID (the same 128 bits)"
step $c convert --to uuid 01ARZ3NDEKTSV4RRFFQ69G5FAV
step $c convert --to ulid 01563e3a-b5d3-d676-4c61-efb99302bd5b

say "Bad input is named, with its position"
step $c inspect 01ARZ3NDEKTSV4RRFFQ69G5FAI || true

if [ -x scripts/demo-lang.sh ]; then
    scripts/demo-lang.sh
fi

if [ -x scripts/demo-sql.sh ]; then
    scripts/demo-sql.sh
fi
