#!/usr/bin/env bash
# demo-lang.sh — the JavaScript and Python part of `make demo` (scripts/demo.sh
# calls it): the npm package and the Python package, each built from this
# tree, mint and inspect the same kinds of IDs as the command.  A part whose
# interpreter is missing is skipped with a line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
root=$PWD
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}    # Debian's, as the package's tests (Makefile)

say() { printf '\n'; printf '# %s\n' "$@"; }
# show LANG PROGRAM: the program as it is run, then its output.
# shellcheck disable=SC2016 # Markdown's backquotes, not an expansion
show() { printf '\n```%s\n%s\n```\n' "$1" "$2"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-demo-lang.XXXXXX")
trap 'rm -rf "$work"' EXIT

js="const chronoid = require('chronoid');
console.log(chronoid.uuidv7(), chronoid.monotonicUlid(), chronoid.typeid('user'));
const ids = new chronoid.Snowflake({ node: 7 });    // claims node 7 on this host
const id = ids.next();
const { kind, node, time } = chronoid.inspect(id);
console.log(id, kind, node, time);
ids.close();"

py="import chronoid
print(chronoid.uuid7(), chronoid.ulid_monotonic(), chronoid.ksuid())
with chronoid.Snowflake(\"pgedge\", node=7) as gen:    # claims node 7 on this host
    i = gen.next()
info = chronoid.inspect(i)
print(i, info.kind, info.node, info.datetime)"

if command -v node >/dev/null 2>&1; then
    say "JavaScript: the npm package (node/), its addon compiled from the same C core"
    if node node/scripts/build.js >"$work/node-build.log" 2>&1; then
        # require('chronoid') finds node/ as an installed package would be found.
        mkdir -p "$work/node_modules" && ln -s "$root/node" "$work/node_modules/chronoid"
        show js "$js"
        NODE_PATH=$work/node_modules node -e "$js"
    else
        cat "$work/node-build.log" >&2
        exit 1
    fi
else
    say "JavaScript part skipped: no node on PATH"
fi

if command -v "$PYTHON" >/dev/null 2>&1; then
    say "Python: the package (python/), a CPython extension module over the same core"
    site=$BUILD/python/demo-site
    rm -rf "$site" python/chronoid.egg-info
    if "$PYTHON" -m pip install --quiet --no-build-isolation --no-index --no-deps \
            --no-warn-script-location --root-user-action=ignore --target "$site" ./python >"$work/pip.log" 2>&1; then
        show python "$py"
        PYTHONPATH=$site "$PYTHON" -c "$py"
    else
        cat "$work/pip.log" >&2
        exit 1
    fi
else
    say "Python part skipped: no $PYTHON"
fi
