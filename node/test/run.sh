#!/usr/bin/env bash
# run.sh — the npm package's own suites as make check runs them: build the
# addon with warnings as errors, then node --test on test/*.test.js (TAP;
# a private claim directory per run, see test/helpers.js).
set -uo pipefail
cd "$(dirname "$0")/.."
if ! CHRONOID_WERROR=1 node scripts/build.js >&2; then
    echo "not ok 1 - build the addon (node/scripts/build.js)"
    echo "1..1"
    exit 1
fi
exec node --test --test-reporter=tap test/*.test.js
