#!/usr/bin/env bash
# pack.sh — the tarball a user installs, as they would meet it.  `npm pack`
# in node/ copies the core's sources in (scripts/vendor.js) and builds the
# prebuilt addons (scripts/prebuild.js: linux-x64 with cc, linux-arm64 with
# Debian's aarch64-linux-gnu-gcc; each with and without libpq), removed
# again afterwards.  Then, each in a scratch application:
#   - `npm publish --dry-run` of the tarball passes;
#   - installed with --ignore-scripts and with its install step, both
#     where no C compiler is on PATH: the prebuilt addon loads and mints
#     under the oldest Node.js the package supports, the newest, and the
#     machine's (scripts/node-runtimes.sh fetched them);
#   - libpq.so.5 hidden (a mount namespace): the addon without leases
#     loads instead, and says so (hasLease false);
#   - linux-arm64 under qemu-aarch64-static: Debian 12's own arm64 nodejs
#     and the newest official arm64 build load the arm64 addon and mint,
#     with libpq (leases) and without;
#   - no addon that fits: require() and the install step fail saying what
#     to run; with a compiler, `npm rebuild --build-from-source` builds one,
#     which is then the one loaded.
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source-path=SCRIPTDIR source=../../scripts/tap.bash
. ../scripts/tap.bash
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm_i=(npm install --no-audit --no-fund --no-package-lock --loglevel=error)

# One pack at a time: prepack writes deps/ and prebuilds/ here, postpack
# removes them, and web/test/run.sh packs too.
if out=$(flock /tmp/chronoid-npm-pack.lock npm pack --pack-destination "$tmp" --loglevel=error 2>&1) && tgz=$(ls "$tmp"/chronoid-*.tgz 2>/dev/null); then
    ok "npm pack: $(basename "$tgz")"
else
    not_ok "npm pack"
    diag <<<"$out"
    tap_done
    exit 1
fi
list=$(tar tzf "$tgz")
check "the tarball carries the core's and bind/'s sources and no build output" \
    "$(grep -c -e '^package/deps/chronoid/src/snowflake_gen.c$' -e '^package/deps/chronoid/include/chronoid.h$' \
        -e '^package/src/addon.c$' -e '^package/scripts/build.js$' -e '^package/src/block.c$' \
        -e '^package/deps/chronoid/db/lease/block_internal.h$' -e '^package/deps/chronoid/bind/bind_internal.h$' \
        -e '^package/deps/chronoid/bind/errors.c$' <<<"$list") $(grep -c -e '/build/' -e 'node_modules' -e '/test/' <<<"$list")" \
    "8 0"
mkdir -p "$tmp/x"
tar xzf "$tgz" -C "$tmp/x"
arches=""
for a in x64 arm64; do
    for f in chronoid chronoid-nolease; do
        arches+="$(file -b "$tmp/x/package/prebuilds/linux-$a/$f.node" 2>&1 | cut -d, -f2 | tr -d ' ') "
    done
done
check "the tarball carries the prebuilt addons of linux-x64 and linux-arm64" "$arches" \
    "x86-64 x86-64 ARMaarch64 ARMaarch64 "
check "npm pack left no copy of the core and no prebuilds in node/" \
    "$([ -e deps ] || [ -e LICENSE ] || [ -e prebuilds ] && echo left || echo clean)" clean
if out=$(cd "$tmp" && npm publish --dry-run --loglevel=warn "$tgz" 2>&1); then
    ok "npm publish --dry-run of the tarball"
else
    not_ok "npm publish --dry-run"
    diag <<<"$out"
fi

# A PATH with node, npm and sh and no C compiler: a slim container.
nocc=$tmp/nocc-bin
mkdir -p "$nocc"
ln -s "$(command -v node)" "$(command -v npm)" "$(command -v sh)" "$nocc/"
for c in cc gcc clang; do
    PATH=$nocc command -v "$c" >/dev/null && bail "$c is still on the compiler-less PATH"
done

# app NAME [npm install args...]: a scratch application with the tarball
# installed as a user would.
app() {
    local dir=$tmp/$1
    shift
    mkdir -p "$dir/claims"
    echo '{"name":"app","private":true}' >"$dir/package.json"
    (cd "$dir" && env PATH="$nocc" CC=cc "${npm_i[@]}" "$@" "$tgz" 2>&1)
}

# What an application prints: the addon loaded, a UUIDv7's version, a
# Snowflake's node, a ULID checked, leases compiled in.
probe='const c = require("chronoid");
const addon = Object.keys(require.cache).find((k) => k.endsWith(".node"));
const s = new c.Snowflake({ node: 3 });
console.log(addon.slice(addon.indexOf("/chronoid/") + 10), c.inspect(c.uuidv7()).version, c.inspect(s.next()).node,
  c.isValid(c.ulid(), "ulid"), c.hasLease, process.version);'
run_probe() {
    local dir=$1
    shift
    (cd "$dir" && CHRONOID_CLAIM_DIR=$dir/claims "$@" -e "$probe" 2>&1)
}

if out=$(app ignore --ignore-scripts); then
    ok "npm install --ignore-scripts of the tarball, no compiler"
else
    not_ok "npm install --ignore-scripts of the tarball"
    diag <<<"$out"
fi
if runtimes=$(../scripts/node-runtimes.sh --cached); then
    # x64-oldest=DIR lines as rt_x64_oldest=DIR
    # shellcheck disable=SC2001
    eval "$(sed 's/^\([a-z0-9]*\)-\([a-z]*\)=/rt_\1_\2=/' <<<"$runtimes")"
else
    not_ok "the Node.js runtimes of scripts/node-runtimes.sh are not all fetched (scripts/setup.sh fetches them)"
    rt_x64_oldest=/nonexistent rt_x64_newest=/nonexistent rt_arm64_newest=/nonexistent rt_arm64_debian=/nonexistent
fi
for node in "$(command -v node)" "$rt_x64_oldest/bin/node" "$rt_x64_newest/bin/node"; do
    v=$("$node" --version 2>/dev/null || echo "missing $node")
    out=$(run_probe "$tmp/ignore" "$node")
    check "x64 prebuilt addon under Node.js $v, without install step or compiler" \
        "$out" "prebuilds/linux-x64/chronoid.node 7 3 true true $v"
done
# shellcheck disable=SC2016 # expanded by the inner shell
out=$(cd "$tmp/ignore" && CHRONOID_CLAIM_DIR=$tmp/ignore/claims unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' _ \
    "$(readlink -f /usr/lib/x86_64-linux-gnu/libpq.so.5)" node -e "$probe" 2>&1)
check "libpq.so.5 missing: the x64 addon without leases loads" \
    "$out" "prebuilds/linux-x64/chronoid-nolease.node 7 3 true false $(node --version)"

# arm64 under qemu: the sysroot with libpq, and a copy of it without.
if command -v qemu-aarch64-static >/dev/null; then
    nopq=$tmp/arm64-nopq
    cp -al "$rt_arm64_debian" "$nopq" 2>/dev/null && rm -f "$nopq"/usr/lib/aarch64-linux-gnu/libpq.so.5*
    for spec in "debian:$rt_arm64_debian/usr/bin/node" "official:$rt_arm64_newest/bin/node"; do
        node=${spec#*:}
        v=$(qemu-aarch64-static -L "$rt_arm64_debian" "$node" --version 2>/dev/null || echo "missing $node")
        out=$(run_probe "$tmp/ignore" qemu-aarch64-static -L "$rt_arm64_debian" "$node")
        check "arm64 prebuilt addon under qemu, ${spec%%:*} Node.js $v" \
            "$out" "prebuilds/linux-arm64/chronoid.node 7 3 true true $v"
    done
    v=$(qemu-aarch64-static -L "$nopq" "$nopq/usr/bin/node" --version 2>&1)
    out=$(run_probe "$tmp/ignore" qemu-aarch64-static -L "$nopq" "$nopq/usr/bin/node")
    check "arm64 without libpq.so.5 under qemu: the addon without leases loads" \
        "$out" "prebuilds/linux-arm64/chronoid-nolease.node 7 3 true false $v"
else
    not_ok "qemu-aarch64-static is missing (scripts/setup.sh installs qemu-user-static)"
fi

# The install step where a prebuilt addon loads: nothing compiled.
if out=$(app withscripts --foreground-scripts) && [[ $out == *'using the prebuilt addon prebuilds/linux-x64/chronoid.node'* ]] &&
        [ ! -e "$tmp/withscripts/node_modules/chronoid/build" ]; then
    ok "npm install (install step run), no compiler: the prebuilt addon, nothing built"
else
    not_ok "npm install with its install step and no compiler"
    diag <<<"$out"
fi

# No addon fits (no prebuilds for this platform, nothing built): the
# package runs on its WebAssembly build; asked for the addon, the error
# says what to run, and so does the install step, which goes on.
pkgdir=$tmp/ignore/node_modules/chronoid
rm -rf "$pkgdir/prebuilds"
out=$(cd "$tmp/ignore" && node -e 'const c = require("chronoid");
console.log(c.build, c.inspect(c.uuidv7()).version, c.isValid(c.ulid(), "ulid"));' 2>&1)
check "no addon fits: require() runs on the WebAssembly build" "$out" "wasm 7 true"
out=$(cd "$tmp/ignore" && CHRONOID_BUILD=addon run_probe "$tmp/ignore" node)
check "no addon fits, CHRONOID_BUILD=addon: CHRONOID_ENOADDON naming the fix" \
    "$(grep -c -e 'CHRONOID_ENOADDON' -e 'npm rebuild chronoid --build-from-source' -e 'prebuilds/linux-x64/chronoid.node: not there' <<<"$out")" 3
out=$(cd "$pkgdir" && PATH=$nocc node scripts/install.js 2>&1)
check "no addon fits and no compiler: the install step goes on, naming the WebAssembly build and the fix" \
    "$?:$(grep -c -e 'runs on the WebAssembly build' -e 'npm rebuild chronoid --build-from-source' <<<"$out")" "0:1"
# With a compiler: built from source, and preferred from then on.
if out=$(cd "$tmp/ignore" && npm rebuild chronoid --build-from-source --loglevel=error 2>&1) &&
        out=$(run_probe "$tmp/ignore" node) && [[ $out == "build/chronoid.node 7 3 true"* ]]; then
    ok "npm rebuild chronoid --build-from-source builds the addon, and it is the one loaded"
else
    not_ok "npm rebuild chronoid --build-from-source"
    diag <<<"$out"
fi
tap_done
