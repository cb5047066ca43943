#!/usr/bin/env node
// install.js — npm install's step: nothing to build when a prebuilt addon
// (prebuilds/, lib/addon.js) loads here; otherwise build one from source
// (build.js, with the machine's C compiler).  It always builds for
// `npm rebuild chronoid --build-from-source` (npm_config_build_from_source)
// or CHRONOID_BUILD_FROM_SOURCE=1, and in the repository (node/ beside
// include/), where the tests want the addon of the tree's sources.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const pkg = path.resolve(__dirname, '..');
const flag = (v) => v !== undefined && v !== '' && v !== 'false' && v !== '0';
const fromSource = flag(process.env.npm_config_build_from_source) ||
  flag(process.env.CHRONOID_BUILD_FROM_SOURCE) ||
  fs.existsSync(path.join(pkg, '..', 'include', 'chronoid.h'));

if (!fromSource) {
  const addon = require('../lib/addon.js');
  try {
    // Only the prebuilt ones: a build/ left from an earlier install may be stale.
    const { file } = addon.load([path.join(pkg, 'build', 'chronoid.node')]);
    process.stderr.write(`chronoid: using the prebuilt addon ${path.relative(pkg, file)}\n`);
    process.exit(0);
  } catch (e) {
    if (e.code !== 'CHRONOID_ENOADDON')
      throw e;
    process.stderr.write('chronoid: no prebuilt addon loads here; building from source\n');
  }
}
try {
  execFileSync(process.execPath, [path.join(__dirname, 'build.js')], { stdio: 'inherit' });
} catch {
  process.stderr.write('chronoid: the build failed.  It needs a C compiler (apt-get install build-essential, ' +
    'or apk add build-base) and, for node leases, libpq-dev; then run `npm rebuild chronoid --build-from-source`.\n');
  process.exit(1);
}
