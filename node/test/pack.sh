#!/usr/bin/env bash
# pack.sh — the tarball a user installs: `npm pack` in node/ (the core's
# sources copied in by scripts/vendor.js, removed again afterwards), then
# `npm install` of it into a scratch application, which builds the addon
# from the tarball alone (the repository is not beside it) and downloads
# nothing but npm packages; the installed package then mints.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
. ../scripts/tap.bash
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if out=$(npm pack --pack-destination "$tmp" --loglevel=error 2>&1) && tgz=$(ls "$tmp"/chronoid-*.tgz 2>/dev/null); then
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
check "npm pack left no copy of the core in node/" "$([ -e deps ] || [ -e LICENSE ] && echo left || echo clean)" clean

mkdir -p "$tmp/app/claims"
echo '{"name":"app","private":true}' >"$tmp/app/package.json"
if out=$(cd "$tmp/app" && npm install --no-audit --no-fund --no-package-lock --loglevel=error "$tgz" 2>&1); then
    ok "npm install of the tarball builds the addon"
else
    not_ok "npm install of the tarball"
    diag <<<"$out"
fi
out=$(cd "$tmp/app" && CHRONOID_CLAIM_DIR="$tmp/app/claims" node -e '
    const c = require("chronoid");
    const s = new c.Snowflake({ node: 3 });
    const u = c.uuidv7();
    console.log(c.inspect(u).version, c.inspect(s.next()).node, require.resolve("chronoid").includes("node_modules"));' 2>&1)
check "the installed package mints (a v7 UUID, a Snowflake of node 3)" "$out" "7 3 true"
tap_done
