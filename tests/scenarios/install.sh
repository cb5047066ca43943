#!/usr/bin/env bash
# install.sh — `make install` into a staging directory (DESTDIR) puts every
# promised file in place, and a program built against the installed header
# and pkg-config file (docs/example.c) links, statically and dynamically, and
# runs.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { local name=$1; shift; if "$@" >"$stage/out" 2>&1; then ok "$name"; else nok "$name" "$(tail -n 5 "$stage/out")"; fi; }

prefix=/opt/chronoid-test
check "make install DESTDIR=... PREFIX=$prefix" \
    make -s --no-print-directory install DESTDIR="$stage" PREFIX="$prefix"
root=$stage$prefix
for f in include/chronoid.h lib/libchronoid.a lib/libchronoid.so lib/libchronoid.so.0 \
         lib/pkgconfig/chronoid.pc bin/chronoid share/man/man1/chronoid.1 \
         include/chronoid_lease.h lib/libchronoid_lease.a lib/libchronoid_lease.so \
         lib/libchronoid_lease.so.0 lib/pkgconfig/chronoid-lease.pc; do
    check "installed $f" test -e "$root/$f"
done
check "pkg-config file names the install prefix" grep -qx "prefix=$prefix" "$root/lib/pkgconfig/chronoid.pc"
if f=$(pg_config --pgxs 2>/dev/null) && [ -f "$f" ] && [ -f "$(pg_config --includedir-server)/postgres.h" ]; then
    check "extension module installed where pg_config says" test -f "$stage$(pg_config --pkglibdir)/chronoid.so"
    check "extension control file installed where pg_config says" \
        test -f "$stage$(pg_config --sharedir)/extension/chronoid.control"
fi

export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
cflags=$(pkg-config --cflags chronoid) libs=$(pkg-config --libs chronoid)
check "docs/example.c builds against the installed shared library" \
    cc -std=c11 -Wall -Wextra -Werror $cflags docs/example.c $libs -o "$stage/ex-shared"
check "docs/example.c builds against the installed static library" \
    cc -std=c11 -Wall -Wextra -Werror $cflags docs/example.c "$root/lib/libchronoid.a" -pthread -o "$stage/ex-static"
printf '%s\n' '#include <chronoid_lease.h>' \
    'int main(void) { cid_lease_opts o; uint64_t lo, hi; cid_lease_opts_default(&o);' \
    '  return cid_lease_parse_range("1-9", &lo, &hi) && o.ttl_ms == 30000 && hi == 9 ? 0 : 1; }' >"$stage/lease.c"
check "a program against the installed chronoid_lease.h and chronoid-lease.pc builds and runs" \
    bash -c "cc -std=c11 -Wall -Werror \$(pkg-config --cflags chronoid-lease) '$stage/lease.c' \
             \$(pkg-config --libs chronoid-lease) -o '$stage/lease' && LD_LIBRARY_PATH='$root/lib' '$stage/lease'"
for v in shared static; do
    if out=$(LD_LIBRARY_PATH=$root/lib "$stage/ex-$v" 2>&1) &&
       [[ $out =~ ^[0-9]{15,19}\ [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]; then
        ok "example ($v) prints a snowflake and a UUIDv7"
    else
        nok "example ($v) prints a snowflake and a UUIDv7" "got: $out"
    fi
done
if out=$("$root/bin/chronoid" inspect 017F22E2-79B0-7CC3-98C4-DC0C0C07398F 2>&1) && [[ $out == *unix_ms=1645557742000* ]]; then
    ok "installed CLI runs"
else
    nok "installed CLI runs" "got: $out"
fi
if command -v man >/dev/null 2>&1; then
    check "man page renders without warnings" bash -c "MANWIDTH=80 man --warnings -l '$root/share/man/man1/chronoid.1' 2>&1 >/dev/null | (! grep .)"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
