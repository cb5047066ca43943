#!/usr/bin/env bash
# debian.sh — the Debian packages (debian/): built with dpkg-buildpackage in
# a copy of the tree, checked by lintian, installed with apt-get and used as
# a user would (the command; docs/example.c built with pkg-config; import
# chronoid in python3; CREATE EXTENSION on a throwaway cluster; the
# autopkgtests), then purged.  The
# system is left as it was: packages the install pulled in are purged too,
# and files the packages replace (a chronoid.so from `make install-ext`,
# say) are saved first and put back, so that later suites still find them.
# Root only (it installs packages).  Prints TAP.
#
#   debian.sh              build, check, install, use, purge
#   debian.sh build DIR    build and check the packages into DIR (a new
#                          directory /tmp/chronoid-deb.*), and keep it
#   debian.sh install DIR  install, use and purge what `build DIR` left
#                          there, then remove DIR
#
# make check runs the two halves apart: the build touches nothing outside
# its directory and runs beside the other suites; only the install, which
# swaps the server's chronoid for the package's, waits for them to end.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
top=$(pwd)
export LC_ALL=C

[ "$(id -u)" -eq 0 ] || skip_all "needs root: it installs and removes packages"
for c in dpkg-buildpackage dh pg_buildext lintian apt-get pg_config; do
    command -v "$c" >/dev/null 2>&1 || skip_all "no $c (scripts/setup.sh installs it)"
done
# Packages this scenario would replace and then purge are someone's.
# (Each match below reads its input whole: under pipefail, a grep -q that
# exits at its first match can kill the writer with SIGPIPE and fail a
# check that should pass.)
if [[ $'\n'$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' 'libchronoid*' chronoid \
        'postgresql-*-chronoid' 2>/dev/null) == *$'\n'installed* ]]; then
    skip_all "chronoid packages are installed already; not touching them"
fi

phase=${1:-all}
case $phase in
    all) work=$(mktemp -d /tmp/chronoid-deb.XXXXXX) ;;
    build | install)
        work=${2:-}
        if [[ $work != /tmp/chronoid-deb.* ]] || [ ! -d "$work" ]; then
            bail "debian.sh $phase DIR: DIR is a directory /tmp/chronoid-deb.* (got '$work')"
        fi ;;
    *) bail "usage: debian.sh [build DIR | install DIR]" ;;
esac
chmod 755 "$work"
apt_opts=(-y -q -o DPkg::Lock::Timeout=300 -o APT::Sandbox::User=root)
installed=()   # what to purge: our packages and what they pulled in
saved=         # the tar of the files the packages replaced
restored=
purge_all() {
    [ ${#installed[@]} -gt 0 ] || return 0
    DEBIAN_FRONTEND=noninteractive apt-get purge "${apt_opts[@]}" "${installed[@]}" >"$work/purge.log" 2>&1
    local rc=$?
    installed=()
    return $rc
}
restore_saved() {
    [ -n "$saved" ] && [ -z "$restored" ] || return 0
    restored=1
    tar -xpf "$saved" -C /
}
# Set before pgcluster.sh's traps: it runs after the server has stopped.
cleanup() {
    purge_all
    restore_saved
    [ "$phase" = build ] || rm -rf "$work"
}
trap cleanup EXIT

# build: dpkg-buildpackage on a copy of the tree, into $work.
build() {
    # The tree as it is (uncommitted changes too), without build products.
    mkdir "$work/src"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z -co --exclude-standard | tar --null -cf - -T - | tar -xf - -C "$work/src"
    else
        tar --exclude=./build -cf - . | tar -xf - -C "$work/src"
    fi

    # The unit tests are make check's own suites, and the debug symbols
    # packages are not needed here: both left out to keep this under 3 minutes.
    start=$SECONDS
    if (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
            dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
        ok "dpkg-buildpackage -us -uc -b ($((SECONDS - start)) s)"
    else
        bail "dpkg-buildpackage -us -uc -b" "$(tail -n 30 "$work/build.log")"
    fi
}

pgv=$(pg_config --version | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
want=(libchronoid1 libchronoid-lease1 libchronoid-dev chronoid "postgresql-$pgv-chronoid" python3-chronoid)
debs=()
for p in "${want[@]}"; do
    debs+=("$work/${p}_${version}_$(dpkg --print-architecture).deb")
done
# contains DEB PATH: the package holds PATH.
contains() { dpkg-deb -c "$1" | awk -v p="./${2#/}" '$6 == p { hit = 1 } END { exit !hit }'; }
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# check_built: what the packages hold, and lintian.
check_built() {
    ok_if "the packages are built: ${want[*]}" 'ls "${debs[@]}" >/dev/null 2>&1' "$(ls "$work")"

    local soname
    soname=$(objdump -p "$work/src/debian/libchronoid1/usr/lib/$multiarch/libchronoid.so.1" 2>&1 |
        awk '$1 == "SONAME" { print $2 }')
    ok_if "libchronoid1 holds the library under its soname (libchronoid.so.1)" \
        'contains "${debs[0]}" "/usr/lib/$multiarch/libchronoid.so.1" && [ "$soname" = libchronoid.so.1 ]' \
        "SONAME: ${soname:-none}"
    ok_if "chronoid holds the command, its man page and the database tools" \
        'contains "${debs[3]}" /usr/bin/chronoid && contains "${debs[3]}" /usr/share/man/man1/chronoid.1.gz &&
         contains "${debs[3]}" /usr/libexec/chronoid/chronoid-lease'
    ok_if "postgresql-$pgv-chronoid holds the module and the control file where pg_config says" \
        'contains "${debs[4]}" "$(pg_config --pkglibdir)/chronoid.so" &&
         contains "${debs[4]}" "$(pg_config --sharedir)/extension/chronoid.control"'

    ok_if "python3-chronoid holds the extension module, the package and its stubs (PEP 561)" \
        '[ -n "$pymod" ] && contains "${debs[5]}" /usr/lib/python3/dist-packages/chronoid/__init__.py &&
         contains "${debs[5]}" /usr/lib/python3/dist-packages/chronoid/_chronoid.pyi &&
         contains "${debs[5]}" /usr/lib/python3/dist-packages/chronoid/py.typed' "$(dpkg-deb -c "${debs[5]}")"

    # Errors and warnings fail; every override is explained in
    # debian/lintian-overrides.common.  lintian need not run as root.
    chmod -R a+rX "$work"
    start=$SECONDS
    # (from $work: nobody cannot enter a clone that sits in a private directory)
    if out=$(cd "$work" && runuser -u nobody -- env HOME="$work" lintian --fail-on error,warning "$work"/*.changes 2>&1); then
        ok "lintian: no errors or warnings ($((SECONDS - start)) s)"
    else
        not_ok "lintian: no errors or warnings" "$out"
    fi
}

if [ "$phase" = install ]; then
    ls "${debs[@]}" >/dev/null 2>&1 ||
        bail "debian.sh install: no packages in $work (did debian.sh build $work run?)"
else
    build
fi
# the Python module's installed path, which has the interpreter's ABI tag
pymod=$(dpkg-deb -c "${debs[5]}" 2>/dev/null | awk '{print $6}' | grep -E '/dist-packages/chronoid/_chronoid\..*\.so$' | sed 's|^\.||')
if [ "$phase" != install ]; then
    check_built
    [ "$phase" = build ] && tap_done
fi

# From the install until the files are put back, the server's chronoid is
# the package's, and for a moment none at all: hold the lock that every
# suite installing the extension takes, so that none installs its build
# over the package's, or loads a library that is not there.
# (Until this script exits: the cleanup trap's purge and restore too.)
# shellcheck source=scripts/pgcluster.sh
. scripts/pgcluster.sh
pgc_lock || bail "$PGC_LOCK_ERROR (another suite installs the extension)"

# Files the packages will replace, saved to be put back after the purge.
dpkg-query -W -f='${Package}\n' | sort >"$work/before.list"
for d in "${debs[@]}"; do
    dpkg-deb -c "$d" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||'
done | sort -u >"$work/files.list"
while read -r f; do
    if [ -e "/$f" ] || [ -L "/$f" ]; then echo "$f"; fi
done <"$work/files.list" >"$work/replaced.list"
if [ -s "$work/replaced.list" ]; then
    (cd / && tr '\n' '\0' <"$work/replaced.list" | xargs -0 md5sum 2>/dev/null) >"$work/replaced.md5"
    tar -cpf "$work/replaced.tar" -C / -T "$work/replaced.list" && saved=$work/replaced.tar
fi

if DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" --no-install-recommends \
        "${debs[@]}" >"$work/install.log" 2>&1; then
    ok "apt-get install ./*.deb"
else
    not_ok "apt-get install ./*.deb" "$(tail -n 20 "$work/install.log")"
fi
dpkg-query -W -f='${Package}\n' | sort >"$work/after.list"
mapfile -t installed < <(comm -13 "$work/before.list" "$work/after.list")
diag "installed: ${installed[*]}"

# dpkg-buildflags' hardening (CPPFLAGS' _FORTIFY_SOURCE, CFLAGS' stack
# protector, LDFLAGS' relro and now) in every installed ELF file.
# Bookworm's dpkg-buildflags does not add -fcf-protection, hence
# --nocfprotection.
if command -v hardening-check >/dev/null 2>&1; then
    elfs=(/usr/bin/chronoid /usr/libexec/chronoid/chronoid-lease /usr/libexec/chronoid/chronoid-bench-pk /usr/libexec/chronoid/chronoid-migrate
          "/usr/lib/$multiarch/libchronoid.so.1" "/usr/lib/$multiarch/libchronoid_lease.so.1"
          "$(pg_config --pkglibdir)/chronoid.so" ${pymod:+"$pymod"})
    out=$(hardening-check --nocfprotection "${elfs[@]}" 2>&1); rc=$?
    ok_if "hardened: fortify, stack protector, PIE, relro, bind now (hardening-check, ${#elfs[@]} files)" \
        '[ $rc -eq 0 ]' "$(grep -B8 -E ': no' <<<"$out" | head -n 20)"
else
    skip "hardened (hardening-check)" "no hardening-check (devscripts)"
fi

# the library's version as the installed chronoid.pc has it (the header's)
lib_version=$(pkg-config --modversion chronoid 2>/dev/null)
check "the installed chronoid prints the library's version" "$(/usr/bin/chronoid --version 2>&1)" "chronoid ${lib_version:-?}"
out=$(chronoid inspect 017F22E2-79B0-7CC3-98C4-DC0C0C07398F 2>&1)
ok_if "the installed chronoid decodes a UUIDv7" '[[ $out == *unix_ms=1645557742000* ]]' "$out"
out=$(chronoid lease --help 2>&1)
ok_if "the installed chronoid runs its database tools from /usr/libexec/chronoid" \
    '[[ $out == "usage: chronoid lease"* ]]' "$(head -n 3 <<<"$out")"
run_ok "man chronoid is installed" man -w chronoid
out=$(cd / && /usr/bin/python3 -c 'import chronoid, uuid
u = chronoid.uuid7()
assert type(u) is uuid.UUID and u.version == 7
print(chronoid.__file__, chronoid.Snowflake("pgedge", node=1).next() > 0)' 2>&1)
ok_if "python3 imports the packaged chronoid, which mints" \
    '[[ $out == "/usr/lib/python3/dist-packages/chronoid/__init__.py True" ]]' "$out"

cflags=$(pkg-config --cflags chronoid 2>&1) libs=$(pkg-config --libs chronoid 2>&1)
run_ok "docs/example.c builds against the installed package with pkg-config" \
    cc -std=c11 -Wall -Wextra -Werror $cflags docs/example.c $libs -o "$work/example"
out=$("$work/example" 2>&1)
ok_if "... and runs, printing a snowflake and a UUIDv7" \
    '[[ $out =~ ^[0-9]{15,19}\ [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]' "$out"
linked=$(ldd "$work/example" 2>&1 | awk '$1 == "libchronoid.so.1" { print $3 }')
ok_if "... with the packaged libchronoid.so.1" \
    '[ "$linked" = "/usr/lib/$multiarch/libchronoid.so.1" ] || [ "$linked" = "/lib/$multiarch/libchronoid.so.1" ]' \
    "$(ldd "$work/example")"

# The extension from the package, on a throwaway cluster.  The server's
# directories are shared: another make check on this machine may install
# its own build over the package meanwhile, which dpkg --verify shows.
check "the server's chronoid.so belongs to postgresql-$pgv-chronoid" \
    "$(dpkg -S "$(pg_config --pkglibdir)/chronoid.so" 2>&1 | cut -d: -f1)" "postgresql-$pgv-chronoid"
verify() {
    local out
    out=$(dpkg --verify "${want[@]}" 2>&1)
    ok_if "the packages' files are intact (dpkg --verify)$1" '[ -z "$out" ]' \
        "$out" "(changed since the install: did another make check install the extension meanwhile?)"
}
verify ""
if pgc_start >"$work/pgc.log" 2>&1; then
    extversion=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" pg/chronoid.control)
    check "CREATE EXTENSION chronoid from the package (version $extversion)" \
        "$(psql -XAtq -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION chronoid' \
            -c "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'" 2>&1)" "$extversion"
    check "... and it mints: uuidv7(), a ulid, a snowflake" \
        "$(psql -XAtq -v ON_ERROR_STOP=1 -c "SET snowflake.node = 3" \
            -c "SELECT uuid_extract_version(uuidv7()) = 7 AND gen_monotonic_ulid() IS NOT NULL
                       AND snowflake.nextval() > 0" 2>&1)"
else
    not_ok "CREATE EXTENSION chronoid from the package" "$(cat "$work/pgc.log")"
fi
pgc_stop

# The autopkgtests (debian/tests/control).  autopkgtest itself wants a
# testbed (a chroot, container or VM) this machine does not offer, so the
# test scripts run directly, against the packages installed above, as
# autopkgtest would run them: from the source tree, AUTOPKGTEST_TMP set.
for t in $(sed -n 's/^Tests: *//p' "$work/src/debian/tests/control"); do
    tmp=$(mktemp -d "$work/autopkgtest.XXXXXX")
    chmod 755 "$tmp"
    start=$SECONDS
    if out=$(cd "$work/src" && AUTOPKGTEST_TMP=$tmp "debian/tests/$t" 2>&1); then
        ok "autopkgtest $t, run directly ($((SECONDS - start)) s)"
    else
        not_ok "autopkgtest $t, run directly" "$(tail -n 30 <<<"$out")"
    fi
done

verify ", after the tests"

if purge_all; then
    ok "apt-get purge"
else
    not_ok "apt-get purge" "$(tail -n 20 "$work/purge.log")"
fi
dpkg-query -W -f='${Package}\n' | sort >"$work/purged.list"
ok_if "the installed package set is as before" 'cmp -s "$work/before.list" "$work/purged.list"' \
    "$(diff "$work/before.list" "$work/purged.list")"
left=$(comm -23 "$work/files.list" "$work/replaced.list" | while read -r f; do
    if [ -e "/$f" ] || [ -L "/$f" ]; then echo "/$f"; fi
done)
ok_if "the packages' $(wc -l <"$work/files.list") files are gone" '[ -z "$left" ]' "$(head -n 5 <<<"$left")"
if [ -n "$saved" ]; then
    restore_saved
    ok_if "the $(wc -l <"$work/replaced.list") files the packages replaced are back as they were" \
        '(cd / && md5sum --quiet -c "$work/replaced.md5")' "$(cd / && md5sum --quiet -c "$work/replaced.md5" 2>&1 | head -n 5)"
else
    skip "files the packages replaced are back" "the packages replaced none"
fi
tap_done
