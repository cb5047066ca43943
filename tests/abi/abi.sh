#!/usr/bin/env bash
# abi.sh — the shared libraries export exactly what their public headers
# declare: for libchronoid.so (include/chronoid.h) and libchronoid_lease.so
# (include/chronoid_lease.h), the defined dynamic symbols are compared with
# the functions and objects the header declares, each symbol must carry the
# version node of the library's version script, the version script must
# list the header's declarations, and the Debian symbols file must list
# the exports (dpkg-gensymbols would stop the package build, minutes
# later, on any difference).  Prints TAP.  Usage: abi.sh [BUILD_DIR]
# (default build; run `make` first).
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
build=${1:-build}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# header_decls HEADER: the names of the functions and objects HEADER itself
# declares (not those of the headers it includes), sorted.  The compiler's
# preprocessor does the hard part: comments, conditionals and macros go, and
# __attribute__ is defined away, so CID_API and CID_MUST_CHECK leave nothing
# behind; the linemarkers say which file each line came from.  What remains
# is split into top-level statements at ';' outside braces; typedefs and
# struct or enum bodies are skipped; a declaration's name is the last
# identifier before its '(' (function) or before '[' or '=' (object).  A
# declaration without CID_API is listed all the same: that is the point.
header_decls() {
    "$CC" -E -Iinclude '-D__attribute__(x)=' "$1" |
        awk -v want="$(basename "$1")" '
            function emit(s,   head, w, k) {
                if (s ~ /^[ \t]*(typedef|static)[ \t]/ || s ~ /[{}]/)
                    return
                head = s
                if (index(head, "(") > 0)
                    head = substr(head, 1, index(head, "(") - 1)
                sub(/[[=].*/, "", head)
                gsub(/[^A-Za-z0-9_]+/, " ", head)
                k = split(head, w, " ")
                if (k > 0)
                    print w[k]
            }
            /^# [0-9]+ "/ {
                f = $3
                gsub(/"/, "", f)
                k = split(f, p, "/")
                keep = (p[k] == want)
                next
            }
            /^#/ { next }
            keep { text = text " " $0 }
            END {
                depth = 0
                stmt = ""
                for (i = 1; i <= length(text); i++) {
                    c = substr(text, i, 1)
                    if (c == "{")
                        depth++
                    else if (c == "}")
                        depth--
                    if (c == ";" && depth == 0) {
                        emit(stmt)
                        stmt = ""
                    } else
                        stmt = stmt c
                }
            }' | sort -u
}

# lib_exports LIB: the symbols LIB defines in its dynamic symbol table, as
# "name version" lines (objdump -T prints the version before the name; the
# version node itself is an absolute symbol and is left out).
lib_exports() {
    objdump -T "$1" | awk '$0 !~ /\*UND\*/ && $0 !~ /\*ABS\*/ && NF >= 6 && $1 ~ /^[0-9a-f]+$/ {
        print $NF, $(NF - 1) }' | sort -u
}

# map_names MAP: the names a version script lists under global:.
map_names() {
    awk '/global:/ { g = 1; next } /local:/ { g = 0 } g && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
        s = $1; sub(/;.*/, "", s); print s }' "$1" | sort -u
}

# check_lib LIB HEADER MAP SYMBOLS: the cases for one library.
check_lib() {
    local lib=$1 header=$2 map=$3 symbols=$4 name node soname sover
    name=$(basename "$lib")
    node=$(sed -n 's/^\([A-Z_0-9.]*\) *{.*/\1/p' "$map" | head -n 1)
    header_decls "$header" >"$tmp/decl"
    lib_exports "$lib" >"$tmp/exp"
    awk '{ print $1 }' "$tmp/exp" | sort -u >"$tmp/exp.names"

    if [ ! -s "$tmp/decl" ]; then
        not_ok "$name: $header declares nothing the parser can see"
    elif cmp -s "$tmp/decl" "$tmp/exp.names"; then
        ok "$name exports exactly the $(wc -l <"$tmp/decl") functions and objects $header declares"
    else
        not_ok "$name exports what $header does not declare, or the reverse" \
            "in $header only (not exported: CID_API or $map missing?):" \
            "$(comm -23 "$tmp/decl" "$tmp/exp.names" | sed 's/^/  /')" \
            "exported only (declare it in $header, or make it static/hidden):" \
            "$(comm -13 "$tmp/decl" "$tmp/exp.names" | sed 's/^/  /')"
    fi

    # Every symbol carries one of the script's nodes: CHRONOID_1, and the
    # nodes later additions go into (CHRONOID_1.1 { ... } CHRONOID_1;).
    local nodes unversioned
    nodes=$(sed -n 's/^\([A-Z_0-9.]*\) *{.*/\1/p' "$map" | tr '\n' ' ')
    unversioned=$(awk -v nodes=" $nodes" 'index(nodes, " " $2 " ") == 0 { print "  " $1 " " $2 }' "$tmp/exp")
    if [ -n "$node" ] && [ -z "$unversioned" ]; then
        ok "$name: every exported symbol has a version node of $map ($nodes)"
    else
        not_ok "$name: exported symbols outside the version nodes ($nodes) of $map" "$unversioned"
    fi

    map_names "$map" >"$tmp/map"
    if cmp -s "$tmp/decl" "$tmp/map"; then
        ok "$map lists exactly what $header declares"
    else
        not_ok "$map and $header differ" "$(diff "$tmp/decl" "$tmp/map" | grep '^[<>]' |
            sed 's/^</  header only:/; s/^>/  map only:/')"
    fi

    # debian/*.symbols: " name@NODE version" per export (the version nodes
    # themselves listed too, as dpkg-gensymbols writes them).
    awk '$1 ~ /@/ { split($1, p, "@"); if (p[1] != p[2]) print p[1], p[2] }' "$symbols" 2>/dev/null |
        sort -u >"$tmp/deb"
    if [ ! -f "$symbols" ]; then
        skip "$symbols lists the exports of $name" "no $symbols in this tree"
    elif cmp -s "$tmp/exp" "$tmp/deb"; then
        ok "$symbols lists exactly the $(wc -l <"$tmp/exp") exports of $name with their nodes"
    else
        not_ok "$symbols and $name's exports differ" "$(diff "$tmp/exp" "$tmp/deb" | grep '^[<>]' |
            sed 's/^</  exported, not in the symbols file:/; s/^>/  in the symbols file, not exported:/')"
    fi

    # The node's number is the soname's: CHRONOID_1 goes with lib.so.1.
    soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
    sover=${soname##*.so.}
    check "$name: the soname ($soname) and the version node ($node) carry the same number" \
        "${node##*_}" "$sover"
}

echo "# abi.sh on $build"
# The parser itself: a declaration added without CID_API, an object, and a
# function-pointer typedef (not a symbol) in a scratch header.
mkdir -p "$tmp/inc"
printf '%s\n' '#include <stddef.h>' 'typedef int (*cid_x_fn) (void *ctx);' \
    'typedef struct cid_x { int a; } cid_x;' 'enum { CID_X = 1 };' \
    '/* int cid_commented(void); */' 'int cid_x_plain(const char *s,' '    size_t len);' \
    'CID_API void *cid_x_ptr(void) CID_MUST_CHECK;' 'extern const char *const cid_x_names[];' \
    >"$tmp/inc/cid_x.h"
check "the header parser sees declarations with and without CID_API, and objects" \
    "$(header_decls "$tmp/inc/cid_x.h" | tr '\n' ' ')" "cid_x_names cid_x_plain cid_x_ptr "

if [ -f "$build/libchronoid.so" ]; then
    check_lib "$build/libchronoid.so" include/chronoid.h src/libchronoid.map debian/libchronoid1.symbols
else
    not_ok "$build/libchronoid.so is missing (run make)"
fi
if [ -f "$build/libchronoid_lease.so" ]; then
    check_lib "$build/libchronoid_lease.so" include/chronoid_lease.h db/lease/libchronoid_lease.map \
        debian/libchronoid-lease1.symbols
else
    skip "libchronoid_lease.so" "not built (no libpq header)"
fi
tap_done
