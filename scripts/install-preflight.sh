#!/bin/sh
# install-preflight.sh [--hint TEXT] DIR... — what `make install` and `make
# install-ext` run before they copy anything: each DIR must be a directory
# this user can write, or one it can create (the nearest existing parent is
# a writable directory).  Otherwise it names every DIR that fails, then
# TEXT, and exits 1, so that a user without the rights gets nothing
# half-installed.
hint=
if [ "${1:-}" = --hint ]; then
    hint=$2
    shift 2
fi
status=0
for dir in "$@"; do
    p=$dir
    while [ ! -e "$p" ] && [ ! -L "$p" ]; do
        p=$(dirname "$p")
    done
    if [ ! -d "$p" ]; then
        echo "install: cannot install into $dir: $p is not a directory" >&2
        status=1
    elif [ ! -w "$p" ] || [ ! -x "$p" ]; then
        if [ "$p" = "$dir" ]; then
            echo "install: cannot write $dir (as $(id -un))" >&2
        else
            echo "install: cannot create $dir: $p is not writable (as $(id -un))" >&2
        fi
        status=1
    fi
done
if [ "$status" -ne 0 ]; then
    echo "install: nothing was installed${hint:+; $hint}" >&2
fi
exit "$status"
