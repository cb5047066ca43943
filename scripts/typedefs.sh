#!/usr/bin/env bash
# typedefs.sh — print the typedef names of chronoid's C sources (include/,
# src/, pg/src/), one per line, sorted: pg/typedefs.list, which pgindent
# needs to format declarations that use them (docs/testing.md, "Static analysis and style").
# `scripts/typedefs.sh >pg/typedefs.list` after adding a typedef; the lint
# suite fails when the file is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
# "} name;" ends a struct, union or enum typedef; "typedef T name;" and
# "typedef R (*name) (...)" are the others.
cat include/*.h src/*.c src/*.h pg/src/*.c pg/src/*.h |
    sed -nE -e 's/^\} *([A-Za-z_][A-Za-z0-9_]*);.*/\1/p' \
        -e 's/^typedef [^;{(]*[ *]([A-Za-z_][A-Za-z0-9_]*);.*/\1/p' \
        -e 's/^typedef [^;{]*\(\*([A-Za-z_][A-Za-z0-9_]*)\).*/\1/p' |
    LC_ALL=C sort -u
