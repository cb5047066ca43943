// chronoid — unique, time-sortable IDs for Node.js over libchronoid's C core.
// Under Node the Node-API addon (build/chronoid.node) is the build, where it
// loads; where none fits (another OS, no compiler at install) the same core
// compiled to WebAssembly (lib/chronoid.wasm) stands in.  CHRONOID_BUILD=addon
// or =wasm picks one (the test suites run against each).  api.mjs shapes the
// API alike over both; docs/javascript.md is the manual.
'use strict';

const path = require('node:path');
const { makeApi } = require('./api.cjs');

const alloc = (n) => Buffer.allocUnsafe(n);

// The addon built here, else a prebuilt one of this platform (addon.js).
function addon() {
  return require('./addon.js').load().native;
}

function wasm() {
  const fs = require('node:fs');
  const crypto = require('node:crypto');
  const { wasmImports, wasmNative } = require('./wasm-native.cjs');
  const mod = new WebAssembly.Module(fs.readFileSync(path.join(__dirname, 'chronoid.wasm')));
  let instance = null;
  instance = new WebAssembly.Instance(mod, wasmImports({ randomFill: (u8) => crypto.randomFillSync(u8) },
    () => instance.exports.memory));
  return wasmNative(instance, alloc);
}

function native() {
  const want = process.env.CHRONOID_BUILD;
  if (want === 'wasm')
    return wasm();
  if (want === 'addon')
    return addon();
  if (want !== undefined && want !== '') {
    const e = new RangeError(`CHRONOID_BUILD ${JSON.stringify(want)} is not a build: expected "addon" or "wasm"`);
    e.code = 'CHRONOID_EINVAL';
    throw e;
  }
  try {
    return addon();
  } catch (e) {
    // No addon loads on this platform (none built, none prebuilt for
    // it): the WebAssembly build.  Anything else is a fault to see.
    if (e.code !== 'CHRONOID_ENOADDON')
      throw e;
    return wasm();
  }
}

module.exports = makeApi(native(), alloc);
