#!/usr/bin/env bash
# run.sh — the npm package's own suites as make check runs them: build the
# addon with warnings as errors, then node --test on test/*.test.js (TAP;
# a private claim directory per run, see test/helpers.js).
# `run.sh asan`: the same with the addon built under AddressSanitizer and
# UBSan (node itself is not: the runtimes are preloaded), a shorter fuzz,
# and the plain build restored afterwards.
# `run.sh wasm`: the same suites against the WebAssembly build
# (CHRONOID_BUILD=wasm), built by `make wasm` with warnings as errors.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = wasm ]; then
    if ! make -s -C .. wasm WERROR=1 >&2; then
        echo "not ok 1 - build the WebAssembly module (make wasm)"
        echo "1..1"
        exit 1
    fi
    CHRONOID_BUILD=wasm exec node --test --test-reporter=tap test/*.test.js
fi
san=()
if [ "${1:-}" = asan ]; then
    preload="$(${CC:-cc} -print-file-name=libasan.so):$(${CC:-cc} -print-file-name=libubsan.so)"
    san=(CHRONOID_SAN=address,undefined "CFLAGS=-O1 -g -fno-omit-frame-pointer")
    trap 'node scripts/build.js >&2' EXIT
fi
if ! env "${san[@]}" CHRONOID_WERROR=1 node scripts/build.js >&2; then
    echo "not ok 1 - build the addon (node/scripts/build.js)"
    echo "1..1"
    exit 1
fi
if [ ${#san[@]} -gt 0 ]; then
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        LD_PRELOAD=$preload CHRONOID_FUZZ_RUNS=5000 node --test --test-reporter=tap test/*.test.js
else
    node --test --test-reporter=tap test/*.test.js
fi
