#!/usr/bin/env bash
# wheel.sh — the Python package for an interpreter that is not Debian's:
# `pip wheel` with Debian's python3, pip, setuptools and wheel (no index,
# no build isolation) makes a CPython 3.11 wheel; it installs with pip,
# and no index, into a bare virtual environment of another CPython 3.11
# (pyenv's, which has no `wheel` and so cannot build the package itself:
# "invalid command 'bdist_wheel'"), and the package's own test suite
# passes there (Debian's pytest on its path; not the psycopg and mypy
# tests, which need Debian's builds of those).  The wheel is not abi3
# (docs/python.md says why), so a 3.12 interpreter refuses it: that is
# checked too, so that the docs' statement stays true.  Prints TAP.
#
# PYTHON (default /usr/bin/python3: the building one), PY311 and PY312
# (default: the newest pyenv 3.11.x and 3.12.x under $PYENV_ROOT or
# /root/.pyenv).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. scripts/tap.bash
export TZ=UTC LC_ALL=C
PYTHON=${PYTHON:-/usr/bin/python3}
pyenv_root=${PYENV_ROOT:-/root/.pyenv}
newest() {
    # shellcheck disable=SC2012
    ls -d "$pyenv_root"/versions/"$1".* 2>/dev/null | sort -V | tail -n 1
}
PY311=${PY311:-$(newest 3.11)/bin/python3}
PY312=${PY312:-$(newest 3.12)/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-wheel.XXXXXX") || bail "mktemp"
trap 'rm -rf "$tmp"' EXIT
export CHRONOID_CLAIM_DIR=$tmp/claims

if out=$("$PYTHON" -m pip wheel --quiet --no-build-isolation --no-index --no-deps -w "$tmp/dist" ./python 2>&1); then
    ok "pip wheel with Debian's python3, setuptools and wheel"
else
    not_ok "pip wheel ./python"
    diag <<<"$out"
    tap_done
fi
whl=$(ls "$tmp"/dist/chronoid-*.whl)
check "the wheel is CPython 3.11's for linux x86_64" \
    "$(basename "$whl" | sed -E 's/^chronoid-[0-9.]+-//')" "cp311-cp311-linux_$(uname -m).whl"

if [ ! -x "$PY311" ]; then
    echo "ok 3 # SKIP no CPython 3.11 other than Debian's (pyenv's under $pyenv_root)"
    n=3
    tap_done
fi
"$PY311" -m venv "$tmp/venv" || bail "$PY311 -m venv"
v=$("$tmp/venv/bin/python" -c 'import sys; print(sys.version.split()[0])')
if out=$("$tmp/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check "$whl" 2>&1); then
    ok "the wheel installs into a bare virtual environment of CPython $v"
else
    not_ok "pip install of the wheel into $PY311's venv"
    diag <<<"$out"
fi
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
out=$(cd "$tmp" && "$tmp/venv/bin/python" -c 'import chronoid, sys
print(chronoid.__file__.startswith(sys.prefix), sys.prefix != sys.base_prefix, chronoid.inspect(chronoid.uuid7()).version,
      str(chronoid.ULID.from_str(chronoid.ulid_at(0)))[:10])' 2>&1)
check "the installed package imports from the venv and mints" "$out" "True True 7 0000000000"
# The suite, as run.sh runs it, on that interpreter.
if env PYTHONPATH=/usr/lib/python3/dist-packages CHRONOID_PY_EXPECT="$site/chronoid" PYTHONDONTWRITEBYTECODE=1 \
        "$tmp/venv/bin/python" -m pytest -p no:cacheprovider -q -o addopts= -x -k "not psycopg and not typing and not bson" \
        python/tests >"$tmp/pytest.log" 2>&1; then
    ok "the package's tests pass under CPython $v ($(tail -n 1 "$tmp/pytest.log" | tr -d '='))"
else
    not_ok "the package's tests under CPython $v"
    tail -n 30 "$tmp/pytest.log" | diag
fi

if [ -x "$PY312" ]; then
    "$PY312" -m venv "$tmp/venv312" || bail "$PY312 -m venv"
    out=$("$tmp/venv312/bin/python" -m pip install --no-index --disable-pip-version-check "$whl" 2>&1)
    rc=$?
    check "CPython 3.12 refuses the 3.11 wheel (it is not abi3)" \
        "$rc $(grep -c 'is not a supported wheel on this platform' <<<"$out")" "1 1"
else
    echo "ok $((n + 1)) # SKIP no CPython 3.12 (pyenv's under $pyenv_root)"
    n=$((n + 1))
fi
tap_done
