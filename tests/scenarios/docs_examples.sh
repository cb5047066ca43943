#!/usr/bin/env bash
# docs_examples.sh — every example in README.md and docs/*.md runs as
# written.  The fenced blocks are taken by their language:
#
#   ```sh       a script: run by bash -e in a scratch directory; exit 0
#   ```console  "$ command" lines (the rest is their output): each command
#               runs; exit 0, or 1 where chronoid reports an invalid ID;
#               with <!-- doctest: output --> before the block, the output
#               (stdout and stderr) must be the lines shown instead, whatever
#               the status (`echo $?` shows the previous command's)
#   ```sql      run by psql in one fresh database per document, the blocks
#               in order, on a throwaway server with the extension
#               preloaded and snowflake.node = 1; the statements that fail
#               must be those followed by a "-- ERROR SQLSTATE:" comment,
#               with that SQLSTATE, in that order
#   ```c        a fragment: compiled as the body of main() against the
#               installed header and library, then run; exit 0
#   ```js       run by node, exit 0: as an ES module when it has an import
#               line, else as CommonJS inside an async function (so that
#               await works), `chronoid` bound to require('chronoid') unless
#               the block requires it itself; node-postgres is `pg`
#   ```python   run by python3, exit 0, `import chronoid` first
#
# The packages are built from a copy of the tree, as their users build
# them (node/scripts/build.js, pip), never in the tree other jobs use;
# conninfo "postgresql:///app" / "dbname=app" is a database made for the
# js and python blocks: the extension in a schema of its own, a sequence
# public.order_ids and tables public.orders (id bigint, uid uuid) and
# public.events (id uuid).
#   anything else (```text, a bare ```) is output or grammar, not run.
#
# Just before a block, <!-- doctest: in-clone --> runs a sh block in the
# repository instead of the scratch directory (HOME is a scratch one
# either way); <!-- doctest: dry-run --> checks a block of make
# commands (building, installing, running suites: what make check does
# anyway) without running them: each names targets its Makefile has (a
# leading sudo dropped); and
# <!-- doctest: skip REASON --> makes it a TAP skip that says why; and
# <!-- doctest: given CODE --> runs CODE (in the block's language: js or
# python) before a block that names values it does not make itself.
#
# The commands run as a user who installed chronoid would run them: from a
# staged `make install` (PATH, PKG_CONFIG_SYSROOT_DIR, LD_LIBRARY_PATH), in
# a scratch directory holding docs/example.c.  TAP on stdout; as root.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. "$(dirname "$0")/../../scripts/tap.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export TZ=UTC LC_ALL=C PGTZ=UTC

if [ "$(id -u)" -ne 0 ]; then
    skip_all "runs a PostgreSQL server as the postgres OS user: run as root"
fi
f=$(pg_config --pgxs 2>/dev/null) || f=
if [ -z "$f" ] || [ ! -f "$f" ]; then
    skip_all "PostgreSQL server development files are not installed"
fi

# shellcheck source=../../scripts/pgcluster.sh
. scripts/pgcluster.sh
pgc_mkdir
work=$PGC_DIR/docs
stage=$work/stage
mkdir -p "$work/blocks" "$work/run" "$work/home" "$stage"
# The examples' node claims go to the run's scratch, never the host's
# /run/lock/chronoid, even when this script runs on its own.
export CHRONOID_CLAIM_DIR=$work/claims

# 1. What a user has after installing: the library, the command, the
# extension (its files staged too, and installed where the server reads them).
if make -s --no-print-directory all >"$work/build.log" 2>&1 &&
   make -s --no-print-directory install DESTDIR="$stage" PREFIX=/usr/local >>"$work/build.log" 2>&1 &&
   pgc_install >>"$work/build.log" 2>&1; then
    ok "staged install of the library, the command and the extension"
else
    not_ok "staged install of the library, the command and the extension"
    tail -n 20 "$work/build.log" | diag
    tap_done
fi
export PATH="$stage/usr/local/bin:$PATH"
export PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/local/lib/pkgconfig
export LD_LIBRARY_PATH=$stage/usr/local/lib
cp docs/example.c "$work/run/"
ln -s "$root/build" "$work/run/build"     # make demo's transcript names build/chronoid
chmod -R a+rX "$work"

if ! pgc_start "shared_preload_libraries = 'chronoid'" "snowflake.node = 1" >"$work/pg.log" 2>&1; then
    not_ok "a throwaway server with the extension preloaded"
    diag <"$work/pg.log"
    tap_done
fi

# 2. The blocks: one file each, and a manifest line
# "N<TAB>document:line<TAB>language<TAB>directive".
for doc in README.md docs/*.md node/README.md python/README.md; do
    awk -v doc="$doc" -v dir="$work/blocks" -v tag="$(tr '/.' '__' <<<"$doc")" '
        function flush() { close(out) }
        /^<!-- doctest: .* -->$/ && !inb { d = $0; sub(/^<!-- doctest: /, "", d); sub(/ -->$/, "", d); next }
        /^```/ {
            if (!inb) {
                inb = 1; lang = substr($0, 4); start = FNR
                n = ++count; out = sprintf("%s/%s.%04d", dir, tag, n)
                printf "%s\t%s:%d\t%s\t%s\n", out, doc, start, lang, d >> (dir "/manifest")
                printf "" > out
                d = ""
                next
            }
            inb = 0; flush(); next
        }
        inb { print > out; next }
        !/^[[:space:]]*$/ { d = "" }
    ' "$doc"
done

# run_console FILE OUT: run each "$ " line; its output is compared when
# wanted, so collect "expected" as the lines up to the next "$ ".
run_console() {
    local file=$1 want_output=$2 cmd line expect got rc status=0
    local -a cmds=() expects=()
    local cur=-1 prev=0
    while IFS= read -r line; do
        if [[ $line == '$ '* ]]; then
            cur=$((cur + 1))
            cmds[cur]=${line#\$ }
            expects[cur]=
        elif [ "$cur" -ge 0 ]; then
            expects[cur]+="$line"$'\n'
        fi
    done <"$file"
    [ "$cur" -ge 0 ] || { echo "no \$ command in the block"; return 1; }
    for i in $(seq 0 "$cur"); do
        cmd=${cmds[i]}
        got=$(cd "$work/run" && bash -c "(exit $prev); $cmd" 2>&1 </dev/null); rc=$?
        prev=$rc
        if [ -z "$want_output" ] && [ "$rc" -gt 1 ]; then
            echo "\$ $cmd: exit $rc"
            printf '%s\n' "$got" | head -n 10
            status=1
            continue
        fi
        if [ -n "$want_output" ]; then
            expect=${expects[i]%$'\n'}
            # a blank line before the next command is layout, not output
            while [[ $expect == *$'\n' ]]; do expect=${expect%$'\n'}; done
            if [ "$got" != "$expect" ]; then
                echo "\$ $cmd: the output differs from the document's"
                diff <(printf '%s\n' "$expect") <(printf '%s\n' "$got") | head -n 20
                status=1
            fi
        fi
    done
    return "$status"
}

# dry_run FILE: each command of the block is a make command, or runs a
# program the Makefile builds (build/...).  Its directory's make database
# (printed for a target that does nothing, so that no recipe runs: make -n
# would still run the lines that call $(MAKE)) must have every target it
# names.
dry_run() {
    local line cmd word dir status=0 noop=$work/noop.mk i
    local -a words targets
    printf 'chronoid-doctest-noop:\n\t@:\n' >"$noop"
    while IFS= read -r line; do
        cmd=${line%%#*}
        read -ra words <<<"$cmd"
        # sudo and environment assignments before the command
        while [ ${#words[@]} -gt 0 ] && [[ ${words[0]} == sudo || ${words[0]} == [A-Z_]*=* ]]; do
            words=("${words[@]:1}")
        done
        [ ${#words[@]} -eq 0 ] && continue
        dir=$root targets=()
        if [[ ${words[0]} == build/* ]]; then
            targets=("${words[0]}")
        elif [ "${words[0]}" = make ]; then
            for ((i = 1; i < ${#words[@]}; i++)); do
                word=${words[i]}
                case $word in
                    -C) i=$((i + 1)); dir=$root/${words[i]} ;;
                    -*|*=*) ;;
                    *) targets+=("$word") ;;
                esac
            done
        else
            echo "neither make nor a program it builds: $line"
            status=1
            continue
        fi
        if ! (cd "$dir" && make -rpn -f Makefile -f "$noop" chronoid-doctest-noop) >"$work/db.txt" 2>"$work/dry.err"; then
            echo "$line: make cannot read $dir/Makefile"
            head -n 5 "$work/dry.err"
            status=1
            continue
        fi
        for word in "${targets[@]}"; do
            if ! grep -q "^$word:" "$work/db.txt"; then
                echo "$line: no target $word in $dir/Makefile"
                status=1
            fi
        done
    done <"$1"
    return "$status"
}

# make demo prints each command before running it: pasted, the line must
# run that command, argument for argument.
# shellcheck source=../../scripts/shell_words.bash
. scripts/shell_words.bash
demo_ok=1
for args in "gen snowflake --layout|time:42,seq:12,reserved:10;epoch=2025-01-01|--node|0" \
            "inspect|it's here|\$HOME|a\"b|*|--json"; do
    IFS='|' read -ra want <<<"$args"
    eval "got=($(shell_words "${want[@]}"))"
    # shellcheck disable=SC2154 # set by the eval
    [ "${got[*]}" = "${want[*]}" ] && [ ${#got[@]} -eq ${#want[@]} ] || demo_ok=
done
if [ -n "$demo_ok" ] && grep -q '^\. scripts/shell_words.bash' scripts/demo.sh &&
   grep -q 'shell_words "\$@"' scripts/demo.sh; then
    ok "make demo prints its commands quoted as they run"
else
    not_ok "make demo prints its commands quoted as they run"
fi

# The packages and the app database, made at the first js or python block.
pkgs_ready=
packages() {
    [ -n "$pkgs_ready" ] && return "$pkgs_ready"
    local tree=$work/tree
    pkgs_ready=1
    mkdir -p "$tree" "$work/js/node_modules"
    for d in src include db bind; do ln -sfn "$root/$d" "$tree/$d"; done
    tar -C "$root" -c --exclude=build --exclude='build-*' --exclude=node_modules --exclude=deps --exclude=prebuilds \
        --exclude='*.egg-info' --exclude=__pycache__ node python | tar -C "$tree" -x || return 1
    ln -sfn "$root/node/node_modules" "$tree/node/node_modules"     # node-api-headers, pg
    ln -sfn "$tree/node" "$work/js/node_modules/chronoid"
    (cd "$tree/node" && node scripts/build.js) >"$work/js-build.log" 2>&1 || {
        tail -n 20 "$work/js-build.log"; return 1; }
    /usr/bin/python3 -m pip install --quiet --no-build-isolation --no-index --no-deps \
        --target "$work/pysite" "$tree/python" >"$work/py-build.log" 2>&1 || {
        tail -n 20 "$work/py-build.log"; return 1; }
    "$PGC_BIN/createdb" app </dev/null &&
    "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d app >"$work/app.log" 2>&1 <<'SQL' || { cat "$work/app.log"; return 1; }
CREATE SCHEMA ids;
CREATE EXTENSION chronoid SCHEMA ids;
GRANT USAGE ON SCHEMA ids TO PUBLIC;
CREATE SEQUENCE public.order_ids;
CREATE TABLE public.orders (id bigint PRIMARY KEY, uid uuid);
CREATE TABLE public.events (id uuid PRIMARY KEY);
SQL
    pkgs_ready=0
}

# run_js FILE / run_py FILE: the block as its language's user runs it.
# GIVEN is a doctest: given directive's code, run first.
run_js() {
    # In the application's directory: node resolves 'chronoid' from there.
    local prog given=${2:-}
    prog=$work/js/$(basename "$1")
    if grep -qE '^(import|export) ' "$1"; then
        prog+=.mjs
        { echo "$given"; cat "$1"; } >"$prog"
    else
        prog+=.cjs
        { grep -q "require('chronoid')" "$1" || echo "const chronoid = require('chronoid');"
          echo "(async () => {"
          echo "$given"
          cat "$1"
          # A given client or pool stays open: exit when the block is done.
          echo "})().then(() => process.exit(), (e) => { console.error(e); process.exit(1); });"
        } >"$prog"
    fi
    (cd "$work/js" && PGDATABASE=app NODE_PATH="$root/node/node_modules" HOME=$work/home \
        timeout 120 node "$prog" 2>&1 </dev/null)
}
run_py() {
    { grep -q '^import chronoid' "$1" || echo "import chronoid"; echo "${2:-}"; cat "$1"; } >"$1.py"
    (cd "$work/run" && PGDATABASE=app PYTHONPATH="$work/pysite" PYTHONDONTWRITEBYTECODE=1 HOME=$work/home \
        timeout 120 /usr/bin/python3 "$1.py" 2>&1 </dev/null)
}

declare -A dbs=()
while IFS=$'\t' read -r file where lang directive; do
    label="$where ($lang)"
    case "$directive" in
        skip\ *) skip "$label" "${directive#skip }"; continue ;;
        dry-run)
            if out=$(dry_run "$file" 2>&1); then ok "$label: its make targets exist"
            else not_ok "$label: its make targets exist"; printf '%s\n' "$out" | diag; fi
            continue ;;
    esac
    case "$lang" in
        sh)
            dir=$work/run
            [ "$directive" = in-clone ] && dir=$root
            if out=$(cd "$dir" && HOME=$work/home bash -e "$file" 2>&1 </dev/null); then ok "$label"
            else not_ok "$label"; printf '%s\n' "$out" | tail -n 15 | diag; fi ;;
        console)
            if out=$(run_console "$file" "$([ "$directive" = output ] && echo 1)" 2>&1); then ok "$label"
            else not_ok "$label"; printf '%s\n' "$out" | diag; fi ;;
        sql)
            doc=${where%%:*}
            db=${dbs[$doc]:-}
            if [ -z "$db" ]; then
                db=docs_$(( ${#dbs[@]} + 1 ))
                dbs[$doc]=$db
                "$PGC_BIN/createdb" "$db" </dev/null
            fi
            out=$("$PGC_BIN/psql" -X -q -v VERBOSITY=verbose -d "$db" -f "$file" 2>&1 </dev/null)
            errs_doc=$(sed -nE 's/^-- ERROR ([0-9A-Z]{5}):.*/\1/p' "$file" | tr '\n' ' ')
            errs_got=$(sed -nE 's/^psql:[^ ]* ERROR:  ([0-9A-Z]{5}):.*/\1/p' <<<"$out" | tr '\n' ' ')
            if [ "$errs_got" = "$errs_doc" ]; then ok "$label"
            else
                not_ok "$label"
                diag "errors documented: $errs_doc" "errors raised: $errs_got"
                grep -A3 'ERROR:' <<<"$out" | head -n 15 | diag
            fi ;;
        c)
            { printf '#include <chronoid.h>\n#include <stdint.h>\n#include <stdio.h>\n\nint\nmain(void)\n{\n'
              cat "$file"
              printf '\treturn 0;\n}\n'; } >"$file.c"
            # shellcheck disable=SC2046 # pkg-config's words are separate flags
            if out=$(cc -std=c11 -o "$file.bin" "$file.c" $(pkg-config --cflags --libs chronoid) 2>&1 && "$file.bin" 2>&1 </dev/null); then
                ok "$label"
            else
                not_ok "$label"; printf '%s\n' "$out" | tail -n 15 | diag
            fi ;;
        js|python)
            runner=run_py
            [ "$lang" = js ] && runner=run_js
            if ! packages >"$work/packages.out" 2>&1; then
                not_ok "$label: build the packages from a copy of the tree"; diag <"$work/packages.out"
            elif out=$("$runner" "$file" "$([[ $directive == given\ * ]] && echo "${directive#given }")"); then
                ok "$label"
            else
                not_ok "$label"; printf '%s\n' "$out" | tail -n 15 | diag
            fi ;;
        *) ;;                   # output, grammar, synopsis: not run
    esac
done <"$work/blocks/manifest"
tap_done
