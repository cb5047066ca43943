#!/usr/bin/env bash
# pgbuild.sh — PostgreSQL servers built from Debian source packages, for
# testing the extension on versions Debian 12 has no binaries for (17, 18:
# their binary packages need a newer glibc).  One prefix per major version,
# reused when present:
#
#   scripts/pgbuild.sh 18            # build unless cached; prints its pg_config
#   scripts/pgbuild.sh --cached 18   # print its pg_config if cached, else exit 1
#
# Cache: $CHRONOID_PG_CACHE, default /var/cache/chronoid/pg, holding
# <major>/ (the install prefix), src/ (the downloaded source packages) and
# build-<major>.log.  Not under $HOME: the server runs as the postgres OS
# user, which cannot enter root's home.  A prefix counts as cached only
# once its .chronoid-built stamp exists (written last), so an interrupted
# build is redone.  Delete a <major>/ directory to rebuild it.
#
# Sources: Debian's deb-src for trixie (17, also trixie-security), sid
# (18) and bookworm (15, for pg_upgrade.sh), from
# /etc/apt/sources.list.d/chronoid-src.sources, which this script writes
# when missing (deb-src only: binary lines for trixie or sid on Debian 12
# would let apt upgrade the system into them).  PostgreSQL 16 has no
# source package in those suites.  Chatter goes to stderr; stdout is only
# the pg_config path(s).  Exit status: 0 all there, 1 a failure (a build,
# or not cached with --cached), 3 no source package to download.  Needs
# root (apt-get), make, a C compiler, bison, flex and dpkg-dev (the last
# three installed when missing).
set -euo pipefail

cache=${CHRONOID_PG_CACHE:-/var/cache/chronoid/pg}
jobs=${PGBUILD_JOBS:-2}
srclist=/etc/apt/sources.list.d/chronoid-src.sources
# The contrib modules the tests use: dblink (pg/test/cluster), pgstattuple
# (chronoid bench-pk); the rest of contrib is not built.
contrib="dblink pgstattuple"

say() { echo "pgbuild: $*" >&2; }

# suites MAJOR: where Debian's source package of that major version lives.
suites() {
    case $1 in
        # 15 only for pg_upgrade.sh: bookworm's own source (15.18 here)
        # predates the pg_attver column option of Debian 12's 15.20
        # binaries, which 18.6 rejects (docs/postgresql.md, pg_upgrade).
        15) echo "bookworm" ;;
        17) echo "trixie trixie-security" ;;
        18) echo "sid" ;;
        *) return 1 ;;
    esac
}

ensure_srclist() {
    grep -qs 'bookworm trixie sid' "$srclist" && return 0
    say "writing $srclist (deb-src only)"
    cat >"$srclist" <<'EOF'
# Written by chronoid's scripts/pgbuild.sh: source packages only, for
# building PostgreSQL 15, 17 and 18.  Never add "Types: deb" for trixie
# or sid on Debian 12: apt would upgrade the system into them.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt-get update -qq >&2
}

ensure_tools() {
    local p missing=()
    for p in bison flex dpkg-dev build-essential zlib1g-dev; do
        [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'install ok installed'* ]] || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# fetch MAJOR: download the source package into $cache/src/MAJOR, print the .dsc.
fetch() {
    local major=$1 dir=$cache/src/$1 s dsc
    mkdir -p "$dir"
    local found=("$dir"/postgresql-"$major"_*.dsc)
    if [ -f "${found[-1]}" ]; then
        echo "${found[-1]}"
        return 0
    fi
    ensure_srclist
    apt-cache showsrc "postgresql-$major" >/dev/null 2>&1 || apt-get update -qq >&2
    for s in $(suites "$major"); do
        say "apt-get source --download-only postgresql-$major/$s"
        # apt's sandbox user cannot write a root-owned directory; harmless.
        if (cd "$dir" && apt-get source -qq --download-only "postgresql-$major/$s") >&2 2>"$dir/fetch.err"; then
            found=("$dir"/postgresql-"$major"_*.dsc)
            echo "${found[-1]}"
            return 0
        fi
        grep -E '^E:' "$dir/fetch.err" | head -n 3 >&2 || true
        rm -f "$dir"/postgresql-"$major"_*
    done
    say "no source package of PostgreSQL $major could be downloaded"
    return 1
}

# build MAJOR: configure, make, install into $cache/MAJOR.
build() {
    local major=$1 prefix=$cache/$1 dsc work log=$cache/build-$1.log t0
    # 3: no source to build from (as for 17 on this mirror), which the
    # matrix reports as a skip, not a failure.
    ensure_tools
    dsc=$(fetch "$major") || return 3
    work=$cache/work-$major
    # psql's line editing is optional for tests; build without it when
    # libreadline-dev is missing rather than fail.
    local noreadline=()
    [ -f /usr/include/readline/readline.h ] || noreadline=(--without-readline)
    rm -rf "$work" "$prefix"
    mkdir -p "$work"
    t0=$(date +%s)
    say "building PostgreSQL $major from $(basename "$dsc") into $prefix (log: $log)"
    {
        # --skip-patches: upstream's tree as released.  Debian's patches
        # adapt it to Debian's multi-version layout (per-version library
        # directories, the socket in /var/run/postgresql), which a private
        # prefix does not want.  (apt checked the files against the signed
        # Sources index; the .dsc signature warning is harmless.)
        # Run from make (make check-matrix), the outer make's MAKELEVEL
        # would reach PostgreSQL's: its top level then takes itself for a
        # sub-make and skips the generated headers (utils/errcodes.h ...),
        # and the build fails.  The jobserver and flags are not its either.
        unset MAKELEVEL MAKEFLAGS MFLAGS MAKEOVERRIDES
        dpkg-source --skip-patches -x "$dsc" "$work/src" &&
            cd "$work/src" &&
            ./configure --prefix="$prefix" --without-icu "${noreadline[@]}" &&
            make -j"$jobs" -s &&
            make -s install &&
            for c in $contrib; do
                make -j"$jobs" -s -C "contrib/$c" install || exit 1
            done &&
            echo "${dsc##*/}" >"$prefix/.chronoid-built"
    } >"$log" 2>&1 || {
        say "build of PostgreSQL $major failed; last lines of $log:"
        tail -n 25 "$log" >&2
        return 1
    }
    rm -rf "$work"
    say "PostgreSQL $major built in $(($(date +%s) - t0)) s"
}

cached=
if [ "${1:-}" = "--cached" ]; then
    cached=1
    shift
fi
[ $# -gt 0 ] || { echo "usage: pgbuild.sh [--cached] MAJOR..." >&2; exit 2; }

rc=0
for major in "$@"; do
    if ! suites "$major" >/dev/null; then
        say "no Debian source package is known for PostgreSQL $major (15, 17 and 18 are)"
        rc=1
        continue
    fi
    if [ ! -f "$cache/$major/.chronoid-built" ]; then
        if [ -n "$cached" ]; then
            rc=1
            continue
        fi
        if [ "$(id -u)" -ne 0 ]; then
            say "building needs root (apt-get, $cache)"
            rc=1
            continue
        fi
        mkdir -p "$cache"
        build "$major" || {
            r=$?
            [ "$rc" -ne 1 ] && rc=$r
            continue
        }
    fi
    echo "$cache/$major/bin/pg_config"
done
exit "$rc"
