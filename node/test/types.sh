#!/usr/bin/env bash
# types.sh — index.d.ts against examples/types.ts, which uses every export:
# tsc (typescript from node/node_modules, scripts/setup.sh) type-checks it
# and compiles it, and the result runs against the addon.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
. ../scripts/tap.bash
tsc=node_modules/.bin/tsc
if [ ! -x "$tsc" ]; then
    not_ok "typescript is not installed in node/node_modules (scripts/setup.sh installs it)"
    tap_done
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/node_modules"
ln -s "$PWD" "$tmp/node_modules/chronoid"
# One tsc run checks the types (a type error fails it) and emits the
# JavaScript that the second case runs.
if out=$("$tsc" -p examples/tsconfig.json --noEmit false --outDir "$tmp" 2>&1); then
    ok "tsc: examples/types.ts uses every export as index.d.ts declares"
else
    not_ok "tsc on examples/types.ts"
    diag <<<"$out"
fi
if [ -f "$tmp/types.js" ] && out=$(cd "$tmp" && CHRONOID_CLAIM_DIR="$tmp/claims" node types.js 2>&1) &&
    grep -q 'CHRONOID_ENODE' <<<"$out"; then
    ok "examples/types.ts compiled and run: every export works as declared"
else
    not_ok "examples/types.ts compiled and run"
    diag <<<"$out"
fi
tap_done
