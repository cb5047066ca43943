#!/usr/bin/env bash
# dist.sh — the release: META.json against PGXN's Meta Spec 1.0.0 (checked
# by scripts/pgxn-meta-check.py, PGXN's own validator not being packaged
# by Debian), one version for the extension, META.json and the tarball's
# name, and `make dist`: the tarball and its .sha256, what it holds, that
# it builds, that it is the same twice, and that it is refused without a
# LICENSE or with a META.json that disagrees.  `make dist` packs HEAD, so
# it runs in a scratch clone of HEAD, where the refusals are committed.
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

extversion=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" pg/chronoid.control)
meta_version() {
    python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["version"], m["provides"]["chronoid"]["version"])' "$1"
}

out=$(scripts/pgxn-meta-check.py . 2>&1); rc=$?
ok_if "META.json follows PGXN's Meta Spec 1.0.0" '[ $rc -eq 0 ] && [ -z "$out" ]' "$out"
check "META.json's version and its extension's are pg/chronoid.control's ($extversion)" \
    "$(meta_version META.json 2>&1)" "$extversion $extversion"

# The Debian packages carry the same version (debian/changelog's
# upstream part, before the Debian revision).
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
    debversion=$(dpkg-parsechangelog -l debian/changelog -S Version 2>&1)
    check "debian/changelog's upstream version is pg/chronoid.control's ($extversion)" \
        "${debversion%-*}" "$extversion"
else
    skip "debian/changelog's upstream version is pg/chronoid.control's" "no dpkg-parsechangelog"
fi

# The checker must refuse what the spec refuses: each variant breaks one
# rule, in a copy of the files it reads.
variant() {
    local name=$1 expr=$2 needle=$3 dir
    dir=$tmp/variant-$((n + 1))
    mkdir -p "$dir/pg" "$dir/docs"
    cp pg/chronoid.control "$dir/pg/"
    cp docs/postgresql.md "$dir/docs/"
    python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(m, open(sys.argv[3], "w"))' META.json "$expr" "$dir/META.json"
    out=$(scripts/pgxn-meta-check.py "$dir" 2>&1); rc=$?
    ok_if "the check refuses $name" '[ $rc -eq 1 ] && [[ $out == *"$needle"* ]]' "rc=$rc" "$out"
}
variant "a META.json without name" 'del m["name"]' "name: is required"
variant "a version that is not SemVer (0.4)" 'm["version"] = "0.4"' "version: must be a SemVer"
variant "a license name the spec does not know" 'm["license"] = "PostgreSQL License"' "is not one of the spec's license names"
variant "an extension without its file" 'del m["provides"]["chronoid"]["file"]' "lacks the required key file"
variant "an extension file that is not in the distribution" \
    'm["provides"]["chronoid"]["file"] = "sql/chronoid.sql"' "is not a file of the distribution"
variant "meta-spec 2.0.0" 'm["meta-spec"]["version"] = "2.0.0"' "must be 1.0.x"
variant "an unknown key" 'm["homepage"] = "https://example.org/"' "homepage: is not a key the spec knows"
variant "a prereqs phase the spec does not know" 'm["prereqs"]["install"] = {"requires": {"PostgreSQL": "13.0.0"}}' \
    "is not a phase"
variant "a version other than pg/chronoid.control's" 'm["version"] = "9.9.9"' \
    "is not pg/chronoid.control's default_version"
variant "an extension version other than pg/chronoid.control's" 'm["provides"]["chronoid"]["version"] = "9.9.9"' \
    "provides.chronoid.version"

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    skip "make dist" "not a git checkout"
    tap_done
fi

# A scratch clone at HEAD: make dist packs HEAD, and the refusals below
# need commits of their own.
repo=$tmp/repo
git clone -q --no-checkout "$top" "$repo" 2>/dev/null && git -C "$repo" checkout -q "$(git rev-parse HEAD)" ||
    bail "a scratch clone of HEAD"
commit() { git -C "$repo" -c user.name=dist.sh -c user.email=dist.sh@invalid commit -q -a "$@"; }
if git cat-file -e HEAD:LICENSE 2>/dev/null; then
    ok "HEAD carries LICENSE"
else
    skip "HEAD carries LICENSE" "not committed on this branch yet; the rest uses a stand-in"
    echo "stand-in licence for dist.sh" >"$repo/LICENSE"
    git -C "$repo" add LICENSE && commit -m "LICENSE stand-in"
fi

dist=chronoid-$extversion
if out=$(make -C "$repo" -s --no-print-directory dist 2>&1); then
    ok "make dist"
else
    bail "make dist" "$out"
fi
ok_if "make dist writes build/$dist.tar.gz and build/$dist.tar.gz.sha256" \
    '[ -f "$repo/build/$dist.tar.gz" ] && [ -f "$repo/build/$dist.tar.gz.sha256" ]' "$(ls "$repo/build")"
run_ok "the .sha256 file verifies the tarball (sha256sum -c)" bash -c "cd '$repo/build' && sha256sum -c --quiet '$dist.tar.gz.sha256'"
list=$(tar -tzf "$repo/build/$dist.tar.gz")
ok_if "every file of the tarball is under $dist/" '! grep -v "^$dist/" <<<"$list" >/dev/null' \
    "$(grep -v "^$dist/" <<<"$list" | head -n 3)"
missing=
for f in META.json LICENSE README.md Makefile pg/Makefile pg/chronoid.control pg/sql/src/ pg/src/ include/chronoid.h src/ debian/control; do
    grep -qx "$dist/$f" <<<"$list" || missing+=" $f"
done
ok_if "the tarball holds META.json, LICENSE, pg/ and the library's sources" '[ -z "$missing" ]' "missing:$missing"
ok_if "the tarball holds no build products" '! grep -E "(^$dist/build/|\.(o|so|a|bc)$)" <<<"$list" >/dev/null' \
    "$(grep -E "(^$dist/build/|\.(o|so|a|bc)$)" <<<"$list" | head -n 3)"
first=$(cat "$repo/build/$dist.tar.gz.sha256")
make -C "$repo" -s --no-print-directory dist >/dev/null 2>&1
check "make dist twice gives the same tarball (the same sha256)" "$(cat "$repo/build/$dist.tar.gz.sha256")" "$first"

# The tarball builds: the library and the command, the extension where
# the server's development files are.
mkdir "$tmp/unpacked"
tar -xzf "$repo/build/$dist.tar.gz" -C "$tmp/unpacked"
src=$tmp/unpacked/$dist
if out=$(make -C "$src" -s --no-print-directory -j2 2>&1); then
    ok "the unpacked tarball builds (make)"
else
    not_ok "the unpacked tarball builds (make)" "$(tail -n 10 <<<"$out")"
fi
# the library's version as the build wrote it into chronoid.pc (from the header)
lib_version=$(sed -n 's/^Version: //p' "$src/build/chronoid.pc")
check "... and its chronoid runs" "$("$src/build/chronoid" --version 2>&1)" "chronoid ${lib_version:-?}"
if f=$(pg_config --pgxs 2>/dev/null) && [ -f "$f" ] && [ -f "$(pg_config --includedir-server)/postgres.h" ]; then
    ok_if "... and its extension is built (pg/chronoid.so, the install script of $extversion)" \
        '[ -f "$src/pg/chronoid.so" ] && [ -f "$src/pg/sql/chronoid--$extversion.sql" ]'
else
    skip "... and its extension is built" "no PostgreSQL server development files"
fi

# The tarball is the Debian orig tarball as it is (debian/ is upstream's):
# a source package builds from it, and lintian finds no error or warning
# in it (as nobody: lintian need not run as root).
if command -v dpkg-source >/dev/null 2>&1 && command -v lintian >/dev/null 2>&1; then
    deb=$tmp/deb
    mkdir "$deb"
    cp "$repo/build/$dist.tar.gz" "$deb/chronoid_$extversion.orig.tar.gz"
    tar -xzf "$deb/chronoid_$extversion.orig.tar.gz" -C "$deb"
    if out=$(cd "$deb/$dist" && dpkg-source -b . 2>&1); then
        ok "dpkg-source -b builds a source package with the tarball as its orig tarball"
    else
        not_ok "dpkg-source -b builds a source package with the tarball as its orig tarball" "$(tail -n 5 <<<"$out")"
    fi
    chmod -R a+rX "$tmp"
    lint=(lintian --fail-on error,warning "$deb"/*.dsc)
    [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && lint=(runuser -u nobody -- env HOME="$deb" "${lint[@]}")
    # from a directory nobody may enter: the clone may sit in a private one
    run_ok "lintian: no errors or warnings in the source package" bash -c 'cd "$1" && shift && "$@"' _ "$deb" "${lint[@]}"
else
    skip "dpkg-source -b builds a source package from the tarball" "no dpkg-source or lintian"
fi

# Refusals, each committed in the clone, each leaving no tarball behind.
rm -f "$repo/build/"*.tar.gz*
git -C "$repo" rm -q LICENSE && commit -m "no LICENSE"
out=$(make -C "$repo" -s --no-print-directory dist 2>&1); rc=$?
ok_if "make dist refuses a HEAD without LICENSE, and writes nothing" \
    '[ $rc -ne 0 ] && [[ $out == *LICENSE* ]] && ! ls "$repo/build/"*.tar.gz >/dev/null 2>&1' "rc=$rc" "$out"
git -C "$repo" checkout -q HEAD~1 -- LICENSE && commit -m "LICENSE back"
sed -i 's/"version": "'"$extversion"'"/"version": "9.9.9"/' "$repo/META.json" && commit -m "META.json disagrees"
out=$(make -C "$repo" -s --no-print-directory dist 2>&1); rc=$?
ok_if "make dist refuses a META.json whose version is not the extension's, and writes nothing" \
    '[ $rc -ne 0 ] && [[ $out == *"default_version $extversion"* ]] && ! ls "$repo/build/"*.tar.gz >/dev/null 2>&1' \
    "rc=$rc" "$out"
tap_done
