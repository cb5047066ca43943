// helpers.js — what the test files share: a private claim directory for
// this run (so that tests never touch the host's /run/lock/chronoid and
// never collide with another run), a check that an error is chronoid's,
// and what differs by build: the suites run against the addon and, with
// CHRONOID_BUILD=wasm, against the WebAssembly build (test/run.sh wasm).
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const assert = require('node:assert/strict');

if (!process.env.CHRONOID_CLAIM_DIR) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-node-test-'));
  process.env.CHRONOID_CLAIM_DIR = path.join(dir, 'claims');
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
}

// assert.throws with the class, the code and words the message must have.
function throwsCode(fn, cls, code, ...words) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, `expected ${cls.name} ${code}, nothing was thrown`);
  assert.ok(caught instanceof cls, `expected a ${cls.name}, got ${caught?.constructor?.name}: ${caught?.message}`);
  assert.equal(caught.code, code, `code of "${caught.message}"`);
  for (const w of words)
    assert.ok(caught.message.includes(w), `message "${caught.message}" should mention ${JSON.stringify(w)}`);
  return caught;
}

// The build under test: what lib/index.js loaded.
const build = require('..').build;

// Snowflake options as a test means them under either build.  The
// WebAssembly build has no host claims and refuses to mint without
// claim: false (wasm.test.js), so where a test does not say, it asks for
// none there; under the addon the host claim stays the default tested.
function sfOptions(options) {
  return build === 'wasm' && !('claim' in options) ? { ...options, claim: false } : options;
}

// A test's skip option where it tests host claims, threads sharing one
// generator or two copies of the addon: the addon's alone.
const addonOnly = build === 'wasm' && 'the addon only: host node claims and threads sharing a generator';

module.exports = { throwsCode, sfOptions, addonOnly, build };
