// addon.js — which compiled addon this process loads: the one built here
// from source (build/, by the install step or `npm rebuild chronoid
// --build-from-source`), else the first prebuilt one of this platform that
// loads (prebuilds/linux-<arch>/: with leases, which needs libpq.so.5,
// then without), else an error that says what to run.  Our own dozen
// lines rather than node-gyp-build: that one looks for node-gyp's
// build/Release, which this package never makes, and knows nothing of the
// libpq variant to fall back from.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const pkg = path.resolve(__dirname, '..');

// glibc's version, or null (musl: Alpine): the prebuilt addons are glibc's.
function glibc() {
  return process.report?.getReport?.().header?.glibcVersionRuntime ?? null;
}

function candidates() {
  const list = [path.join(pkg, 'build', 'chronoid.node')];
  if (process.platform === 'linux' && glibc() !== null) {
    const dir = path.join(pkg, 'prebuilds', `linux-${process.arch}`);
    list.push(path.join(dir, 'chronoid.node'), path.join(dir, 'chronoid-nolease.node'));
  }
  return list;
}

/*
 * Load the first candidate that loads (skip: paths not to try).  Throws
 * CHRONOID_ENOADDON listing why each failed, and what to run.
 */
function load(skip = []) {
  const tried = [];
  for (const file of candidates()) {
    if (skip.includes(file))
      continue;
    if (!fs.existsSync(file)) {
      tried.push(`${path.relative(pkg, file)}: not there`);
      continue;
    }
    try {
      return { native: require(file), file };
    } catch (e) {
      tried.push(`${path.relative(pkg, file)}: ${String(e.message).split('\n')[0]}`);
    }
  }
  const libc = glibc();
  const e = new Error(`chronoid: no compiled addon loads on ${process.platform}-${process.arch} ` +
    `(${libc ? `glibc ${libc}` : 'no glibc'}, Node.js ${process.version}, Node-API ${process.versions.napi}); ` +
    `tried:\n  ${tried.join('\n  ')}\n` +
    'Build it from source: `npm rebuild chronoid --build-from-source` (needs a C compiler: ' +
    'apt-get install build-essential, or apk add build-base; and libpq-dev for node leases).');
  e.code = 'CHRONOID_ENOADDON';
  throw e;
}

module.exports = { load, candidates };
