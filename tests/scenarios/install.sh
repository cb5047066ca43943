#!/usr/bin/env bash
# install.sh — `make install` into a staging directory (DESTDIR) puts every
# promised file in place, and a program built against the installed header
# and pkg-config file (docs/example.c) links, statically and dynamically, and
# runs.  The extension is a step of its own (make install-ext).  As an
# ordinary user (nobody): an install into a prefix of one's own works, and
# one that cannot write everything installs nothing.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage" "$stage.build"' EXIT
. scripts/tap.bash

have_pgxs() {
    local f
    f=$(pg_config --pgxs 2>/dev/null) && [ -f "$f" ] && [ -f "$(pg_config --includedir-server)/postgres.h" ]
}

prefix=/opt/chronoid-test
# The installs below build in a directory of their own: another PREFIX
# rebuilds main.o and relinks the command, and in build/ that would replace
# the chronoid binary that the suites running beside this one execute.
# Beside the staging directory, which must hold only what was installed.
build=$stage.build
tree_cli=${BUILD:-build}/chronoid
tree_cli_was=$(stat -c '%i %Y' "$tree_cli" 2>/dev/null)
run_ok "make install DESTDIR=... PREFIX=$prefix" \
    make -s --no-print-directory -j2 BUILD="$build" install DESTDIR="$stage" PREFIX="$prefix"
root=$stage$prefix
for f in include/chronoid.h lib/libchronoid.a lib/libchronoid.so lib/libchronoid.so.1 \
         lib/pkgconfig/chronoid.pc bin/chronoid share/man/man1/chronoid.1 \
         include/chronoid_lease.h lib/libchronoid_lease.a lib/libchronoid_lease.so \
         lib/libchronoid_lease.so.1 lib/pkgconfig/chronoid-lease.pc \
         libexec/chronoid/chronoid-lease libexec/chronoid/chronoid-bench-pk libexec/chronoid/chronoid-migrate \
         libexec/chronoid/chronoid-block; do
    run_ok "installed $f" test -e "$root/$f"
done
run_ok "pkg-config file names the install prefix" grep -qx "prefix=$prefix" "$root/lib/pkgconfig/chronoid.pc"
ok_if "make install installs nothing outside PREFIX (the extension is make install-ext)" \
    '[ -z "$(cd "$stage" && find . -path "./${prefix#/}" -prune -o ! -type d -print)" ]' \
    "$(cd "$stage" && find . -path "./${prefix#/}" -prune -o ! -type d -print | head -n 5)"
if have_pgxs; then
    ext=$stage/ext
    run_ok "make install-ext DESTDIR=..." make -s --no-print-directory install-ext DESTDIR="$ext"
    run_ok "extension module installed where pg_config says" test -f "$ext$(pg_config --pkglibdir)/chronoid.so"
    run_ok "extension control file installed where pg_config says" \
        test -f "$ext$(pg_config --sharedir)/extension/chronoid.control"
    ok_if "make install-ext installs the extension only" \
        '[ -z "$(cd "$ext" && find . ! -type d | grep -v -e "^.$(pg_config --pkglibdir)/" -e "^.$(pg_config --sharedir)/extension/")" ]' \
        "$(cd "$ext" && find . ! -type d | head -n 5)"
    # The current version's install script and every upgrade script; no
    # old version's full script (those are test fixtures, pg/test/released).
    extver=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" pg/chronoid.control)
    shipped=$(cd "$ext$(pg_config --sharedir)/extension" && ls chronoid--*.sql | sort | tr '\n' ' ')
    want=$(cd pg/sql && { echo "chronoid--$extver.sql"; ls chronoid--*--*.sql; } | sort | tr '\n' ' ')
    check "SQL scripts installed: chronoid--$extver.sql and the upgrade scripts, no old full script" \
        "$shipped" "$want"
else
    skip "make install-ext DESTDIR=..." "no PostgreSQL server development files"
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
ok_if "the ID command does not link libpq" '[[ $(ldd "$nopq/root$prefix/bin/chronoid") != *libpq* ]]' \
    "$(ldd "$nopq/root$prefix/bin/chronoid")"

# The build takes the flags Debian's dpkg-buildflags exports: every compile
# line CPPFLAGS and CFLAGS, every link line LDFLAGS (a dry run of a fresh
# build directory prints them all).
flags=$stage/flags.log
make -n --no-print-directory BUILD="$stage/flags" HAVE_PGXS= CPPFLAGS=-D_FORTIFY_SOURCE=2 \
    CFLAGS='-O2 -fstack-protector-strong' LDFLAGS=-Wl,-z,relro all tests 2>&1 |
    sed -e :a -e '/\\$/N; s/\\\n//; ta' >"$flags"
compiles=$(grep -E '^(cc|gcc|c\+\+|g\+\+|clang) .* -c ' "$flags")
links=$(grep -E '^(cc|gcc|c\+\+|g\+\+|clang) ' "$flags" | grep -v -- ' -c ')
ok_if "every compile line has CPPFLAGS and CFLAGS from the environment ($(wc -l <<<"$compiles") lines)" \
    '[ -n "$compiles" ] && ! grep -v -e "-D_FORTIFY_SOURCE=2.*-O2 -fstack-protector-strong" <<<"$compiles" >/dev/null' \
    "$(grep -v -e "-D_FORTIFY_SOURCE=2.*-O2 -fstack-protector-strong" <<<"$compiles" | head -n 3)"
ok_if "every link line has LDFLAGS from the environment ($(wc -l <<<"$links") lines)" \
    '[ -n "$links" ] && ! grep -v -e "-Wl,-z,relro" <<<"$links" >/dev/null' \
    "$(grep -v -e "-Wl,-z,relro" <<<"$links" | head -n 3)"

# ldconfig: run after a root install into the live system (no DESTDIR),
# not after a staged one; a stand-in records the calls.
fake=$stage/fake-ldconfig
printf '#!/bin/sh\necho called >>"%s"\n' "$stage/ldconfig.calls" >"$fake"
chmod 755 "$fake"
make -s --no-print-directory BUILD="$build" install DESTDIR="$stage/ld" PREFIX="$prefix" LDCONFIG="$fake" >/dev/null 2>&1
ok_if "a staged install (DESTDIR) does not run ldconfig" '[ ! -e "$stage/ldconfig.calls" ]'
if [ "$(id -u)" -eq 0 ]; then
    out=$(make -s --no-print-directory BUILD="$build" install PREFIX="$stage/live" LDCONFIG="$fake" 2>&1)
    ok_if "a root install without DESTDIR runs ldconfig" '[ "$(cat "$stage/ldconfig.calls" 2>/dev/null)" = called ]' "$out"
    ok_if "an install outside the loader's path says how to reach it (PKG_CONFIG_PATH, LD_LIBRARY_PATH)" \
        '[[ $out == *"PKG_CONFIG_PATH=$stage/live/lib/pkgconfig LD_LIBRARY_PATH=$stage/live/lib"* ]]' "$out"
else
    skip "a root install without DESTDIR runs ldconfig" "not root"
    skip "an install outside the loader's path says how to reach it" "not root"
fi

# As an ordinary user: a copy of the sources it owns (it may not read the
# checkout), built and installed into a prefix of its own; then installs it
# cannot complete, which must leave nothing behind.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    user=$stage/user
    mkdir -p "$user/src"
    have_pgxs && make -s --no-print-directory -C pg >/dev/null 2>&1
    cp -a Makefile include src cli db docs scripts pg "$user/src/"
    chown -R nobody "$user"
    as_nobody() { runuser -u nobody -- env HOME="$user" "$@"; }
    up=$user/prefix
    if out=$(as_nobody make -C "$user/src" -s --no-print-directory -j2 HAVE_PGXS= PREFIX="$up" install 2>&1); then
        ok "as nobody: make install PREFIX=\$HOME/prefix"
    else
        not_ok "as nobody: make install PREFIX=\$HOME/prefix" "$(tail -n 5 <<<"$out")"
    fi
    ok_if "as nobody: library, header, pkg-config file, command in the prefix" \
        '[ -e "$up/lib/libchronoid.so.1" ] && [ -e "$up/include/chronoid.h" ] && [ -x "$up/bin/chronoid" ] &&
         [ -e "$up/lib/pkgconfig/chronoid.pc" ]' "$(find "$up" | head -n 10)"
    run_ok "as nobody: docs/example.c builds with PKG_CONFIG_PATH and runs with LD_LIBRARY_PATH (as README says)" \
        as_nobody bash -c "export PKG_CONFIG_PATH='$up/lib/pkgconfig' LD_LIBRARY_PATH='$up/lib';
            cc -std=c11 \$(pkg-config --cflags chronoid) '$user/src/docs/example.c' \$(pkg-config --libs chronoid) \
               -o '$user/ex' && '$user/ex'"

    # A prefix it can write, a libexec directory it cannot: refused before
    # anything is copied.
    mkdir -m 555 "$user/ro"
    chown nobody "$user/ro"
    out=$(as_nobody make -C "$user/src" -s --no-print-directory HAVE_PGXS= PREFIX="$user/half" \
          LIBEXECDIR="$user/ro/libexec" install 2>&1); rc=$?
    ok_if "as nobody: an install that cannot write LIBEXECDIR fails, naming it" \
        '[ $rc -ne 0 ] && [[ $out == *"$user/ro/libexec/chronoid"* ]]' "rc=$rc" "$out"
    ok_if "as nobody: ... and installs nothing (not even the library)" '[ ! -e "$user/half" ]' \
        "$(find "$user/half" 2>/dev/null | head -n 5)"

    if have_pgxs; then
        pkglib=$(pg_config --pkglibdir)
        before=$(md5sum "$pkglib/chronoid.so" 2>/dev/null)
        out=$(as_nobody make -C "$user/src" -s --no-print-directory install-ext 2>&1); rc=$?
        ok_if "as nobody: make install-ext into the server's directories fails, saying why" \
            '[ $rc -ne 0 ] && [[ $out == *"cannot write $pkglib"* ]]' "rc=$rc" "$out"
        ok_if "as nobody: ... and leaves the server's chronoid.so as it was" \
            '[ "$(md5sum "$pkglib/chronoid.so" 2>/dev/null)" = "$before" ]'
        # Staged, with the extension directory read-only and the module's
        # writable: still nothing copied, the module included.
        dd=$user/extstage
        mkdir -p "$dd$(pg_config --sharedir)/extension" "$dd$pkglib"
        chown -R nobody "$dd"
        chmod 555 "$dd$(pg_config --sharedir)/extension"
        out=$(as_nobody make -C "$user/src" -s --no-print-directory install-ext DESTDIR="$dd" 2>&1); rc=$?
        ok_if "as nobody: make install-ext DESTDIR with the extension directory read-only fails" \
            '[ $rc -ne 0 ] && [[ $out == *"cannot write $dd$(pg_config --sharedir)/extension"* ]]' "rc=$rc" "$out"
        ok_if "as nobody: ... and copies nothing, not even the module" \
            '[ -z "$(find "$dd" ! -type d)" ]' "$(find "$dd" ! -type d | head -n 5)"
        chmod 755 "$dd$(pg_config --sharedir)/extension"
        run_ok "as nobody: make install-ext DESTDIR=... (pg_buildext's way)" \
            as_nobody make -C "$user/src" -s --no-print-directory install-ext DESTDIR="$dd"
        ok_if "as nobody: ... module, control file and install script staged" \
            '[ -f "$dd$pkglib/chronoid.so" ] && [ -f "$dd$(pg_config --sharedir)/extension/chronoid.control" ] &&
             ls "$dd$(pg_config --sharedir)/extension/chronoid--"*.sql >/dev/null 2>&1'
    fi
else
    skip "as nobody: make install into a prefix of its own" "not root, or no nobody user"
fi

ok_if "the tree's own chronoid is left as it was (not relinked for another PREFIX)" \
    '[ "$(stat -c "%i %Y" "$tree_cli" 2>/dev/null)" = "$tree_cli_was" ]' "before: $tree_cli_was" \
    "after: $(stat -c '%i %Y' "$tree_cli" 2>/dev/null)"

if command -v man >/dev/null 2>&1; then
    run_ok "man page renders without warnings" bash -c "MANWIDTH=80 man --warnings -l '$root/share/man/man1/chronoid.1' 2>&1 >/dev/null | (! grep .)"
fi
tap_done
