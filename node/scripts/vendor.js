#!/usr/bin/env node
// vendor.js — `npm pack` (prepack) copies the core's sources, the ones
// this package compiles, from the repository into deps/chronoid/, so that
// the tarball builds on its own; `vendor.js --clean` (postpack) removes
// the copy again, so that the repository build never reads a stale one.
// A copy of the same files, not a second implementation: the tarball is
// made from the repository, never edited.  It also makes the WebAssembly
// build, lib/chronoid.wasm, which the tarball carries.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const pkg = path.resolve(__dirname, '..');
const repo = path.resolve(pkg, '..');
const dest = path.join(pkg, 'deps', 'chronoid');

fs.rmSync(path.join(pkg, 'deps'), { recursive: true, force: true });
fs.rmSync(path.join(pkg, 'LICENSE'), { force: true });
if (process.argv[2] === '--clean')
  process.exit(0);
if (!fs.existsSync(path.join(repo, 'include', 'chronoid.h'))) {
  process.stderr.write('chronoid: npm pack runs in the repository (node/ next to src/ and include/)\n');
  process.exit(1);
}
// The WebAssembly build goes into every tarball (lib/chronoid.wasm): made
// now from the same sources, so that it is never older than they are.
const made = require('node:child_process').spawnSync('make', ['-s', '-C', repo, 'wasm'], { stdio: 'inherit' });
if (made.status !== 0) {
  process.stderr.write('chronoid: `make wasm` failed: the tarball needs lib/chronoid.wasm ' +
    '(clang, lld, wasi-libc and libclang-rt-14-dev-wasm32: scripts/setup.sh)\n');
  process.exit(1);
}
for (const [dir, keep] of [['src', /\.(c|h)$/], ['bind', /\.(c|h)$/], ['include', /^chronoid(_lease)?\.h$/],
  ['db/lease', /\.(c|h)$/], ['db/pq', /\.(c|h)$/]]) {
  fs.mkdirSync(path.join(dest, dir), { recursive: true });
  for (const f of fs.readdirSync(path.join(repo, dir)).filter((f) => keep.test(f)))
    fs.copyFileSync(path.join(repo, dir, f), path.join(dest, dir, f));
}
fs.copyFileSync(path.join(repo, 'LICENSE'), path.join(pkg, 'LICENSE'));
