#!/usr/bin/env bash
# setup.sh — install, with apt-get, whatever chronoid's build, tests and demo
# need and this machine lacks.  Does nothing when all is present.  Its
# chatter goes to stderr so that `make check` keeps stdout for results.
set -euo pipefail
exec 3>&1 1>&2

# Debian package names; the PostgreSQL ones prefer the distribution's
# default server (15 on Debian 12), else the generic metapackages.
# uuid-dev and libssl-dev: make bench's baselines (libuuid; OpenSSL's DRBG), and
# the Python package's random source (OpenSSL's DRBG).
want=(build-essential pkg-config uuid-dev libssl-dev clang libclang-rt-dev faketime
      libfaketime procps libpq-dev gnuplot-nox cppcheck clang-tidy python3-psycopg2
      # the Debian packages (debian/, tests/scenarios/debian.sh): dpkg-buildpackage,
      # dh and pg_buildext, lintian; devscripts for whoever builds them by hand
      dpkg-dev debhelper devscripts lintian postgresql-server-dev-all
      # the Python package (python/): built by pip without an index, from
      # Debian's setuptools; tested with Debian's pytest and psycopg 3; its
      # Debian package (python3-chronoid) built by pybuild; its stubs checked
      # by mypy; its prefork recipe run under a real gunicorn
      python3-dev python3-pip python3-setuptools python3-wheel python3-pytest
      python3-psycopg python3-all-dev dh-python pybuild-plugin-pyproject python3-mypy
      python3-gunicorn
      # ObjectIds handed to pymongo: the Python tests encode them with
      # Debian's bson (python/tests/test_bson.py)
      python3-bson
      # the npm package's prebuilt addons (node/scripts/prebuild.js): the
      # arm64 one cross-compiled, then run under qemu-user (node/test/pack.sh)
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static file)
# pglogical (docs/cluster.md: the all-to-all topology) for the installed
# server's major version, when the distribution has it.
if pgv=$(pg_config --version 2>/dev/null | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p') &&
    [ -n "$pgv" ] && apt-cache show "postgresql-$pgv-pglogical" >/dev/null 2>&1; then
    want+=("postgresql-$pgv-pglogical")
fi
pick_pg() {
    local v
    for v in 15 16 17 18 14 13; do
        if apt-cache show "postgresql-server-dev-$v" >/dev/null 2>&1; then
            echo "postgresql-$v postgresql-server-dev-$v postgresql-contrib"
            return
        fi
    done
    echo "postgresql postgresql-server-dev-all postgresql-contrib"
}

missing=()
for p in "${want[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'install ok installed'* ]] || missing+=("$p")
done
# pgxs.mk ships with Debian's client package; the server headers are what
# says the development files are really there.
have_pgxs() {
    f=$(pg_config --pgxs 2>/dev/null) && test -f "$f" &&
        test -f "$(pg_config --includedir-server)/postgres.h"
}
have_server() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }

# node/ (the npm package chronoid) needs Node.js >= 18.17 and npm: Debian's
# when the machine has none.  Its test and type-check tools (pg, typescript,
# @types/node: devDependencies) come from the npm registry into
# node/node_modules; that install also builds the addon.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
node_modules() {
    local d
    for d in pg typescript @types/node node-api-headers; do
        [ -d "node/node_modules/$d" ] || break
    done
    [ -d "node/node_modules/$d" ] && return 0
    echo "setup: npm install in node/ (pg, typescript, @types/node, node-api-headers)" >&2
    # Not fatal: the node suites then fail, each saying what is missing.
    (cd node && npm install --no-audit --no-fund --no-package-lock --loglevel=error) >&2 ||
        echo "setup: npm install in node/ failed" >&2
}
# The Node.js runtimes node/test/pack.sh runs the prebuilt addons under
# (the oldest and newest x64 builds from the npm registry, an arm64 Debian
# sysroot with its nodejs and libpq5): scripts/node-runtimes.sh, into its
# cache.  Not fatal either: pack.sh then says what is missing.
node_runtimes() {
    command -v npm >/dev/null 2>&1 || return 0
    scripts/node-runtimes.sh --cached >/dev/null 2>&1 && return 0
    echo "setup: fetching Node.js runtimes for the prebuilt addons' tests (scripts/node-runtimes.sh)" >&2
    scripts/node-runtimes.sh >/dev/null || echo "setup: scripts/node-runtimes.sh failed" >&2
}
cd "$(dirname "$0")/.."

if [ ${#missing[@]} -eq 0 ] && have_pgxs && have_server; then
    node_modules
    node_runtimes
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "setup: missing packages (${missing[*]:-postgresql server/dev}); run as root or install them" >&2
        exit 1
    fi
else
    SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
# Another apt run (unattended-upgrades on a fresh machine, a second make) holds
# dpkg's lock for a while: wait for it instead of failing the whole build.
apt=(apt-get -o DPkg::Lock::Timeout=600)
echo "setup: apt-get update" >&2
$SUDO "${apt[@]}" update -qq >/dev/null
if ! have_pgxs || ! have_server; then
    # shellcheck disable=SC2207
    missing+=($(pick_pg))
fi
echo "setup: installing ${missing[*]}" >&2
$SUDO "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
have_pgxs || { echo "setup: pg_config --pgxs still names no file after install" >&2; exit 1; }
node_modules
node_runtimes
