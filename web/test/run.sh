#!/usr/bin/env bash
# run.sh — the npm package's WebAssembly build where it runs (make check's
# web suite; make test T=wasm): make wasm, `npm pack` the package, unpack
# the tarball, and run.mjs against it under Node without an addon, in
# headless Chromium and in workerd, each answer compared with the addon's;
# the inspector page (make inspector) in Chromium against the command.
# CHRONOID_SHOTS=DIR keeps screenshots of the inspector at two widths.
# Needs build/web/node_modules (scripts/setup.sh: web/package.json).
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/tap.bash
modules=$PWD/build/web/node_modules
if [ ! -d "$modules/puppeteer-core" ] || [ ! -d "$modules/workerd" ] || [ ! -d "$modules/esbuild" ]; then
    not_ok "build/web/node_modules has puppeteer-core, esbuild and workerd (scripts/setup.sh installs web/package.json)"
    tap_done
    exit 1
fi
if ! out=$(make -s cli wasm inspector WERROR=1 2>&1); then
    not_ok "make cli wasm inspector"
    diag <<<"$out"
    tap_done
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# npm pack writes node/deps and node/prebuilds for a while (prepack) and
# removes them (postpack): one pack at a time (node/test/pack.sh packs too).
if ! out=$(cd node && flock /tmp/chronoid-npm-pack.lock npm pack --pack-destination "$tmp" --loglevel=error 2>&1) ||
    ! tgz=$(ls "$tmp"/chronoid-*.tgz 2>/dev/null) || ! tar -xzf "$tgz" -C "$tmp"; then
    not_ok "npm pack and unpack"
    diag <<<"$out"
    tap_done
    exit 1
fi
check "the tarball carries the WebAssembly module and its entries" \
    "$(tar tzf "$tgz" | grep -c -x -e package/lib/chronoid.wasm -e package/lib/wasm.mjs -e package/lib/wasm-fetch.mjs \
        -e package/lib/wasm-module.mjs -e package/lib/wasm-node.mjs -e package/lib/api.cjs -e package/lib/wasm-native.cjs)" 7
# "Without an addon": a platform the tarball has no prebuilt addon for.
rm -rf "$tmp/package/prebuilds"
mkdir -p "$tmp/claims"
# run.mjs goes on with this script's count and prints the plan.
CHRONOID_TAP_N=$n CHRONOID_TAP_FAILED=$failed CHRONOID_PKG=$tmp/package CHRONOID_WEB_MODULES=$modules \
    CHRONOID_CLAIM_DIR=$tmp/claims node web/test/run.mjs
