#!/usr/bin/env bash
# install.sh — `make install` into a staging directory (DESTDIR) puts every
# promised file in place, and a program built against the installed header
# and pkg-config file (docs/example.c) links, statically and dynamically, and
# runs.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. scripts/tap.bash

prefix=/opt/chronoid-test
run_ok "make install DESTDIR=... PREFIX=$prefix" \
    make -s --no-print-directory install DESTDIR="$stage" PREFIX="$prefix"
root=$stage$prefix
for f in include/chronoid.h lib/libchronoid.a lib/libchronoid.so lib/libchronoid.so.1 \
         lib/pkgconfig/chronoid.pc bin/chronoid share/man/man1/chronoid.1 \
         include/chronoid_lease.h lib/libchronoid_lease.a lib/libchronoid_lease.so \
         lib/libchronoid_lease.so.1 lib/pkgconfig/chronoid-lease.pc \
         libexec/chronoid/chronoid-lease libexec/chronoid/chronoid-bench-pk; do
    run_ok "installed $f" test -e "$root/$f"
done
run_ok "pkg-config file names the install prefix" grep -qx "prefix=$prefix" "$root/lib/pkgconfig/chronoid.pc"
if f=$(pg_config --pgxs 2>/dev/null) && [ -f "$f" ] && [ -f "$(pg_config --includedir-server)/postgres.h" ]; then
    run_ok "extension module installed where pg_config says" test -f "$stage$(pg_config --pkglibdir)/chronoid.so"
    run_ok "extension control file installed where pg_config says" \
        test -f "$stage$(pg_config --sharedir)/extension/chronoid.control"
fi

export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
cflags=$(pkg-config --cflags chronoid) libs=$(pkg-config --libs chronoid)
run_ok "docs/example.c builds against the installed shared library" \
    cc -std=c11 -Wall -Wextra -Werror $cflags docs/example.c $libs -o "$stage/ex-shared"
run_ok "docs/example.c builds against the installed static library" \
    cc -std=c11 -Wall -Wextra -Werror $cflags docs/example.c "$root/lib/libchronoid.a" -pthread -o "$stage/ex-static"
printf '%s\n' '#include <chronoid_lease.h>' \
    'int main(void) { cid_lease_opts o; uint64_t lo, hi; cid_lease_opts_default(&o);' \
    '  (void) lo; (void) hi; return o.ttl_ms == 30000 && cid_lease_default_grace_ms(o.ttl_ms) == 6000 ? 0 : 1; }' >"$stage/lease.c"
run_ok "a program against the installed chronoid_lease.h and chronoid-lease.pc builds and runs" \
    bash -c "cc -std=c11 -Wall -Werror \$(pkg-config --cflags chronoid-lease) '$stage/lease.c' \
             \$(pkg-config --libs chronoid-lease) -o '$stage/lease' && LD_LIBRARY_PATH='$root/lib' '$stage/lease'"
for v in shared static; do
    if out=$(LD_LIBRARY_PATH=$root/lib "$stage/ex-$v" 2>&1) &&
       [[ $out =~ ^[0-9]{15,19}\ [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]; then
        ok "example ($v) prints a snowflake and a UUIDv7"
    else
        not_ok "example ($v) prints a snowflake and a UUIDv7" "got: $out"
    fi
done
if out=$("$root/bin/chronoid" inspect 017F22E2-79B0-7CC3-98C4-DC0C0C07398F 2>&1) && [[ $out == *unix_ms=1645557742000* ]]; then
    ok "installed CLI runs"
else
    not_ok "installed CLI runs" "got: $out"
fi
run_ok "installed man page names the version chronoid --version prints" \
    grep -q "^\.TH CHRONOID 1 .* \"$("$root/bin/chronoid" --version)\"" "$root/share/man/man1/chronoid.1"
out=$(CHRONOID_EXEC_PATH=$root/libexec/chronoid "$root/bin/chronoid" lease --help 2>&1)
ok_if "installed chronoid runs its database tools from libexec (chronoid lease --help)" \
    '[[ $out == "usage: chronoid lease init"* ]]' "got: $(head -n 3 <<<"$out")"

# Without libpq: the library, its header and the ID command build and
# install with a C compiler alone (HAVE_LIBPQ= stands for a machine
# without libpq-dev: no compile line may then name its include directory
# or link it), and the ID command says what is missing.
nopq=$stage/nopq
if make --no-print-directory BUILD="$nopq/build" HAVE_LIBPQ= HAVE_PGXS= PREFIX="$prefix" \
        DESTDIR="$nopq/root" install >"$nopq.log" 2>&1; then
    ok "make install without libpq"
else
    not_ok "make install without libpq" "$(tail -n 5 "$nopq.log")"
fi
ok_if "without libpq no compile or link line names libpq" \
    '! grep -E -- "-lpq|include/postgresql" "$nopq.log" >/dev/null' "$(grep -E -- "-lpq|include/postgresql" "$nopq.log" | head -n 3)"
ok_if "without libpq the core, its header and the ID command are installed, the database parts are not" \
    '[ -x "$nopq/root$prefix/bin/chronoid" ] && [ -e "$nopq/root$prefix/lib/libchronoid.so" ] &&
     [ -e "$nopq/root$prefix/include/chronoid.h" ] && [ ! -e "$nopq/root$prefix/include/chronoid_lease.h" ] &&
     [ ! -e "$nopq/root$prefix/libexec" ]' "$(cd "$nopq/root" && find . -type f | head -n 20)"
out=$("$nopq/root$prefix/bin/chronoid" lease list 2>&1); rc=$?
ok_if "without the tools, chronoid lease exits 2 saying it is not installed" \
    '[ $rc -eq 2 ] && [[ $out == *"\"lease\" is not installed"* ]]' "rc=$rc $out"
ok_if "the ID command does not link libpq" '! ldd "$nopq/root$prefix/bin/chronoid" | grep -q libpq' \
    "$(ldd "$nopq/root$prefix/bin/chronoid")"

if command -v man >/dev/null 2>&1; then
    run_ok "man page renders without warnings" bash -c "MANWIDTH=80 man --warnings -l '$root/share/man/man1/chronoid.1' 2>&1 >/dev/null | (! grep .)"
fi
tap_done
