#!/usr/bin/env bash
# run.sh — the application state machine (statemachine.py): builds its
# workers privately in a temporary directory (worker.c against
# $BUILD/libchronoid.a; the npm package's addon and the Python module
# from this tree, so that a concurrent rebuild of node/build or
# python/build, such as the packages' sanitizer passes, is never loaded
# halfway), then runs the driver.  TAP on stdout.
#
#   tests/app/run.sh [--steps N] [--seed S]
#
# CHRONOID_APP_STEPS (default 2,000; `make soak`: 20,000) and
# CHRONOID_APP_SEED do the same for make check and make soak; the driver
# prints the seed and the command that replays it.  CHRONOID_APP_KINDS
# (e.g. node,py) picks the kinds of workers among those built (default
# all: c, cs, node, node2, py).  As root, some workers run as nobody;
# otherwise all run as the caller.  BUILD (default build).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/tap.bash
export TZ=UTC LC_ALL=C
root=$PWD
BUILD=${BUILD:-build}
steps=${CHRONOID_APP_STEPS:-2000}
seed=${CHRONOID_APP_SEED:-}
while [ $# -gt 0 ]; do
    case $1 in
        --steps) steps=${2:-}; shift 2 ;;
        --seed) seed=${2:-}; shift 2 ;;
        *) bail "usage: tests/app/run.sh [--steps N] [--seed S] (got '$1')" ;;
    esac
done
[[ $steps =~ ^[0-9]+$ ]] || bail "--steps '$steps': expected a number of steps"
[[ -z $seed || $seed =~ ^[0-9]+$ ]] || bail "--seed '$seed': expected a non-negative integer"

tmp=$(mktemp -d /tmp/chronoid-app.XXXXXX) || bail "mktemp"
trap 'rm -rf "$tmp"' EXIT
# The second user's workers reach their binaries and the claim directory.
chmod 755 "$tmp"
mkdir -m 755 "$tmp/bin" "$tmp/sm"
kinds=()

if ! make -s --no-print-directory BUILD="$BUILD" "$BUILD/libchronoid.a" >"$tmp/make.log" 2>&1; then
    diag <"$tmp/make.log"
    bail "make $BUILD/libchronoid.a"
fi
if ! ${CC:-cc} -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude tests/app/worker.c \
        "$BUILD/libchronoid.a" -lpthread -o "$tmp/bin/cworker" 2>"$tmp/cc.log"; then
    diag <"$tmp/cc.log"
    bail "build tests/app/worker.c"
fi
chmod 755 "$tmp/bin/cworker"
kinds+=(c cs)

node_args=()
if command -v node >/dev/null 2>&1; then
    # The package as npm installs it: its own build of the core (deps/).
    pkg=$tmp/npm/chronoid
    mkdir -p "$pkg/deps"
    cp -r node/lib node/package.json node/scripts node/src "$pkg/"
    ln -s "$root" "$pkg/deps/chronoid"
    if ! CHRONOID_NO_LEASE=1 node "$pkg/scripts/build.js" >"$tmp/node-build.log" 2>&1; then
        diag <"$tmp/node-build.log"
        bail "build the node addon (node/scripts/build.js)"
    fi
    node_args=(--node-pkg "$pkg")
    kinds+=(node node2)
else
    echo "# no node: Node workers skipped"
fi

py_args=()
if /usr/bin/python3 -c 'import setuptools' 2>/dev/null; then
    # The module as pip installs it, built in a copy of python/ whose
    # ../src, ../include and ../db are this tree's (setup.py's layout):
    # python/tests/run.sh builds in python/build meanwhile.
    mkdir -p "$tmp/py"
    cp -r python "$tmp/py/python"
    rm -rf "$tmp/py/python/build" "$tmp/py/python/build-"* "$tmp/py/python/"*.egg-info
    for d in src include db bind; do ln -s "$root/$d" "$tmp/py/$d"; done
    if ! CHRONOID_NO_LEASE=1 /usr/bin/python3 -m pip install --quiet --no-build-isolation --no-index \
            --no-deps --no-warn-script-location --target "$tmp/py/site" "$tmp/py/python" \
            >"$tmp/pip.log" 2>&1; then
        diag <"$tmp/pip.log"
        bail "pip install python/ (into $tmp/py/site)"
    fi
    chmod -R a+rX "$tmp/py/site"
    py_args=(--python-site "$tmp/py/site")
    kinds+=(py)
else
    echo "# /usr/bin/python3 has no setuptools: Python workers skipped"
fi

seed_args=()
[ -n "$seed" ] && seed_args=(--seed "$seed")
kind_list=${CHRONOID_APP_KINDS:-$(IFS=,; echo "${kinds[*]}")}
timeout "${CHRONOID_APP_TIMEOUT:-3600}" /usr/bin/python3 tests/app/statemachine.py --steps "$steps" \
    "${seed_args[@]}" --tmp "$tmp/sm" --cworker "$tmp/bin/cworker" "${node_args[@]}" "${py_args[@]}" --kinds "$kind_list"
st=$?
[ "$st" -eq 124 ] && echo "not ok 3 - the state machine timed out after ${CHRONOID_APP_TIMEOUT:-3600} s"
exit "$st"
