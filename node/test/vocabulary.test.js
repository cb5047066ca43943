// vocabulary.test.js — docs/packages.md's table "Errors, case by case":
// each mistake made here, and the class and code the JavaScript column
// names checked (python/tests/test_vocabulary.py checks the Python one).
// A row the table has and this file cannot make, or the reverse, fails.
// The node lease table's "A .. B" limits are checked against the code too.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
require('./helpers');
const cid = require('..');

const NOWHERE = 'host=/nonexistent-chronoid-dir port=1';

const CASES = {
  'batch size out of range': () => cid.uuidv7Batch(cid.maxBatch + 1),
  'batch size of the wrong type': () => cid.uuidv7Batch('5'),
  'node outside the layout': () => new cid.Snowflake({ node: 1024, claim: false }),
  'unknown layout': () => new cid.Snowflake({ node: 1, layout: 'nope', claim: false }),
  'unknown policy name': () => new cid.Snowflake({ node: 1, onClockBehind: 'later', claim: false }),
  'relative claim directory': () => new cid.Snowflake({ node: 1, claimDir: 'claims' }),
  'ULID text with a bad character': () => cid.ulidToUuid('0000000000000000000000000!'),
  'ULID text of the wrong length': () => cid.ulidToUuid('000'),
  'ULID text above the largest': () => cid.ulidToUuid('80000000000000000000000000'),
  'text of no known ID form': () => cid.inspect('zz'),
  'a time UUIDv7 cannot hold': () => cid.uuidv7Bounds(-1),
  'v6 to v1 of another version': () => cid.uuidv6ToV1(cid.uuidv7()),
  // Refused before any connection: the server named is never asked.
  'lease option out of range': () => cid.leaseSnowflake({ conninfo: NOWHERE, ttlMs: 999 }),
  'lease range outside the layout': () => cid.leaseSnowflake({ conninfo: NOWHERE, hi: 1024 }),
  'lease owner with a control character': () => cid.leaseSnowflake({ conninfo: NOWHERE, owner: 'a\nb' }),
};
const LEASE_CASES = new Set(['lease option out of range', 'lease range outside the layout',
  'lease owner with a control character']);

function table() {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/packages.md'), 'utf8');
  const section = doc.split('## Errors, case by case')[1].split('\n## ')[0];
  const rows = {};
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length === 3 && cells[0] !== 'case' && !cells[0].startsWith('---'))
      rows[cells[0]] = cells[1].replace(/`/g, '').split(', ');
  }
  return rows;
}

test('docs/packages.md: every case gives the class and code of the JavaScript column', async () => {
  const rows = table();
  assert.deepEqual(Object.keys(rows).sort(), Object.keys(CASES).sort());
  for (const [name, [cls, code]] of Object.entries(rows)) {
    // The WebAssembly build has no claim directory to check: it refuses
    // every host claim first (CHRONOID_ECLAIM, wasm.test.js).
    if (cid.build === 'wasm' && name === 'relative claim directory')
      continue;
    // A build without libpq has no leases to check (CHRONOID_ENOLEASE).
    if (!cid.hasLease && LEASE_CASES.has(name))
      continue;
    let caught;
    try {
      // A lease's mistake rejects its Promise.
      await CASES[name]();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught, `${name}: nothing thrown`);
    assert.equal(caught.constructor.name, cls, `${name}: ${caught.message}`);
    assert.equal(caught.code, code, `${name}: ${caught.message}`);
  }
});

// The node lease table's rows whose limits are "A .. B": A - 1 and
// B + 1 are refused naming the option, A and B pass the check (and fail
// only at the server, which is never there).
function leaseRanges() {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/packages.md'), 'utf8');
  const section = doc.split('## Node leases')[1].split('\n## ')[0];
  const ranges = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const m = cells.length === 5 && /^(\d+) \.\. (\d+)$/.exec(cells[4]);
    if (m && /^`\w+`$/.test(cells[1]))
      ranges.push([cells[1].replace(/`/g, ''), Number(m[1]), Number(m[2])]);
  }
  return ranges;
}

test('docs/packages.md: the lease limits of the options table are the ones enforced', { skip: !cid.hasLease }, async () => {
  const ranges = leaseRanges();
  assert.deepEqual(ranges.map(([name]) => name).sort(), ['clockWaitMs', 'graceMs', 'ttlMs']);
  for (const [name, lo, hi] of ranges) {
    for (const v of [lo - 1, hi + 1])
      await assert.rejects(cid.leaseSnowflake({ conninfo: NOWHERE, [name]: v }), (e) =>
        e instanceof RangeError && e.code === 'CHRONOID_EINVAL' &&
        e.message.includes(`${name} ${v} is out of range: expected ${lo}..${hi}`));
    for (const v of [lo, hi])
      await assert.rejects(cid.leaseSnowflake({ conninfo: NOWHERE, [name]: v }),
        (e) => e.code === 'CHRONOID_ELEASE_DB' || assert.fail(`${name} ${v}: ${e.message}`));
  }
});
