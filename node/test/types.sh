#!/usr/bin/env bash
# types.sh — index.d.ts against examples/types.ts, which uses every export:
# tsc (typescript from node/node_modules, scripts/setup.sh) type-checks it
# and compiles it, and the result runs against the addon.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
. ../scripts/tap.bash
tsc=node_modules/.bin/tsc
if [ ! -x "$tsc" ]; then
    not_ok "typescript is not installed in node/node_modules (scripts/setup.sh installs it)"
    tap_done
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/node_modules"
ln -s "$PWD" "$tmp/node_modules/chronoid"
# One tsc run checks the types (a type error fails it) and emits the
# JavaScript that the second case runs.
if out=$("$tsc" -p examples/tsconfig.json --noEmit false --outDir "$tmp" 2>&1); then
    ok "tsc: examples/types.ts uses every export as index.d.ts declares"
else
    not_ok "tsc on examples/types.ts"
    diag <<<"$out"
fi
if [ -f "$tmp/types.js" ] && out=$(cd "$tmp" && CHRONOID_CLAIM_DIR="$tmp/claims" node types.js 2>&1) &&
    grep -q 'CHRONOID_ENODE' <<<"$out"; then
    ok "examples/types.ts compiled and run: every export works as declared"
else
    not_ok "examples/types.ts compiled and run"
    diag <<<"$out"
fi
# An ES module consumer (examples/esm.mts) compiled as an application
# would: the package found in node_modules through its "exports" map,
# under module "nodenext" (tsc's ESM resolution for Node) and under
# "bundler" resolution (what esbuild, Vite and webpack users set), then run.
for mode in nodenext bundler; do
    app=$tmp/esm-$mode
    mkdir -p "$app/node_modules"
    ln -s "$PWD" "$app/node_modules/chronoid"
    cp examples/esm.mts "$app/"
    if [ $mode = nodenext ]; then
        opts='"module": "nodenext", "moduleResolution": "nodenext"'
    else
        opts='"module": "esnext", "moduleResolution": "bundler"'
    fi
    cat >"$app/tsconfig.json" <<JSON
{ "compilerOptions": { "strict": true, "target": "ES2022", $opts, "outDir": "out",
    "types": ["node"], "typeRoots": ["$PWD/node_modules/@types"] }, "files": ["esm.mts"] }
JSON
    if out=$(cd "$app" && "$OLDPWD/$tsc" -p tsconfig.json 2>&1) &&
        out=$(cd "$app" && CHRONOID_CLAIM_DIR="$tmp/claims" node out/esm.mjs 2>&1) &&
        [[ $out == *'"kind":"uuid"'* ]]; then
        ok "tsc (module $mode) compiles examples/esm.mts against the exports map, and it runs"
    else
        not_ok "examples/esm.mts under module $mode"
        diag <<<"$out"
    fi
done
# A page's TypeScript (examples/browser.ts): bundler resolution, the DOM's
# types and no @types/node; the exports map's "default" condition gives it
# wasm.d.mts, whose bytes are Uint8Arrays and which needs no Node types.
# The declarations are copied, not linked: through a link tsc would find
# this checkout's node_modules/@types/node beside them.
app=$tmp/browser
mkdir -p "$app/node_modules/chronoid"
cp package.json ./*.d.ts ./*.d.mts "$app/node_modules/chronoid/"
cp examples/browser.ts "$app/"
cat >"$app/tsconfig.json" <<JSON
{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "esnext",
    "moduleResolution": "bundler", "lib": ["ES2022", "DOM"], "types": [], "noEmit": true },
  "files": ["browser.ts"] }
JSON
if out=$(cd "$app" && "$OLDPWD/$tsc" -p tsconfig.json 2>&1); then
    ok "tsc (bundler, DOM, no @types/node) compiles examples/browser.ts: bytes are Uint8Arrays"
else
    not_ok "examples/browser.ts against the WebAssembly entry's declarations"
    diag <<<"$out"
fi
tap_done
