// helpers.js — what the test files share: a private claim directory for
// this run (so that tests never touch the host's /run/lock/chronoid and
// never collide with another run), and a check that an error is chronoid's.
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

module.exports = { throwsCode };
