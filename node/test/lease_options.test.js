// lease_options.test.js — what leaseSnowflake() and leaseSetup() refuse
// before any connection (bind/lease_opts.c, the checks the Python package
// shares: python/tests/test_lease.py plays the same values): each bad
// value is a RangeError CHRONOID_EINVAL naming the value, spelled as
// JavaScript spells the option, and what was expected.  The edges of
// each range pass the check and fail only at the (absent) server.  No
// server is needed; test/pg/lease.test.js leases for real.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
require('./helpers');
const cid = require('..');

// A server that is never there: a value that passes reaches it and fails.
const NOWHERE = 'host=/nonexistent-chronoid-dir port=1 connect_timeout=1';

const REFUSED = [
  [{ ttlMs: 999 }, 'ttlMs 999 is out of range: expected 1000..86400000 ms'],
  [{ ttlMs: 86400001 }, 'ttlMs 86400001 is out of range: expected 1000..86400000 ms'],
  [{ ttlMs: 0 }, 'ttlMs 0 is out of range: expected 1000..86400000 ms'],
  [{ ttlMs: -1 }, 'ttlMs -1 is out of range: expected 1000..86400000 ms'],
  [{ graceMs: -1 }, 'graceMs -1 is out of range: expected 0..86400000 ms'],
  [{ graceMs: 86400001 }, 'graceMs 86400001 is out of range: expected 0..86400000 ms'],
  [{ clockWaitMs: -1 }, 'clockWaitMs -1 is out of range: expected 0..86400000 ms'],
  [{ clockWaitMs: 86400001 }, 'clockWaitMs 86400001 is out of range: expected 0..86400000 ms'],
  [{ lo: -1 }, 'lo -1 is out of range: expected 0..1023 (layout pgedge)'],
  [{ lo: 1024 }, 'lo 1024 is out of range: expected 0..1023 (layout pgedge)'],
  [{ hi: 0 }, 'hi 0 is out of range: expected 1..1023 (layout pgedge)'],
  [{ lo: 0, hi: 0 }, 'hi 0 is out of range: expected 1..1023 (layout pgedge)'],
  [{ hi: 1024 }, 'hi 1024 is out of range: expected 1..1023 (layout pgedge)'],
  [{ layout: 'sonyflake', hi: 65536 }, 'hi 65536 is out of range: expected 1..65535 (layout sonyflake)'],
  [{ lo: 5, hi: 2 }, 'lo 5 is above hi 2: expected lo <= hi'],
  [{ schema: 'Bad-Name' }, 'schema "Bad-Name" is not a lease schema name: expected lower-case letters, ' +
    'digits and _, not starting with a digit, at most 63'],
  [{ schema: '9lives' }, 'schema "9lives" is not a lease schema name'],
  [{ schema: 'a'.repeat(64) }, `schema "${'a'.repeat(64)}" is not a lease schema name`],
  [{ schema: '' }, 'schema "" is not a lease schema name'],
  [{ owner: 'x'.repeat(256) }, `owner "${'x'.repeat(64)}..." is 256 bytes long: expected at most 255`],
  [{ owner: 'é'.repeat(128) }, `owner "${'é'.repeat(32)}..." is 256 bytes long: expected at most 255`],
  [{ owner: 'web\n1' }, 'owner "web\\x0a1" has a control character at byte 3: expected printable text'],
  [{ owner: '\x1b[2Jweb' }, 'owner "\\x1b[2Jweb" has a control character at byte 0: expected printable text'],
  [{ owner: 'web\x7f' }, 'owner "web\\x7f" has a control character at byte 3'],
  [{ maxDriftMs: -1 }, 'maxDriftMs -1 is out of range: expected 0..9223372036854 ms'],
  [{ maxDriftMs: 9223372036855 }, 'maxDriftMs 9223372036855 is out of range: expected 0..9223372036854 ms'],
  [{ maxWaitMs: -1 }, 'maxWaitMs -1 is out of range: expected 0..9223372036854 ms'],
  [{ maxBorrowTicks: 2 ** 32 }, 'maxBorrowTicks 4294967296 is out of range: expected 0..4294967295'],
  [{ ttlMs: 2 ** 53 }, 'ttlMs 9007199254740992 is out of range: expected an integer from ' +
    '-9007199254740991 to 9007199254740991'],
  [{ ttlMs: 1500.5 }, 'ttlMs 1500.5 is out of range: expected an integer'],
];

function refusedAs(words) {
  return (e) => {
    assert.ok(e instanceof RangeError, `expected a RangeError, got ${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.code, 'CHRONOID_EINVAL', e.message);
    assert.ok(e.message.includes(words), `"${e.message}" should say "${words}"`);
    return true;
  };
}

test('every bad lease option is refused before any connection, naming it', { skip: !cid.hasLease }, async () => {
  for (const [options, words] of REFUSED)
    await assert.rejects(cid.leaseSnowflake({ conninfo: NOWHERE, ...options }), refusedAs(words),
      JSON.stringify(options));
});

test('leaseSetup refuses a bad schema the same way', { skip: !cid.hasLease }, async () => {
  await assert.rejects(cid.leaseSetup({ conninfo: NOWHERE, schema: 'Bad-Name' }),
    refusedAs('schema "Bad-Name" is not a lease schema name'));
});

test('a lease policy number the layer above never sends is refused too',
  { skip: !cid.hasLease || cid.build !== 'addon' }, () => {
  // The addon's function itself, as another JavaScript layer could call it.
  const native = require('../lib/addon.js').load().native;
  const args = (at, value) => {
    const a = [1, undefined, NOWHERE, undefined, undefined, true];
    a[at] = value;
    return a;
  };
  assert.throws(() => native.lease(...args(11, 3)), refusedAs('onClockBehind 3 is out of range: expected 0..2'));
  assert.throws(() => native.lease(...args(14, 2)), refusedAs('onExhausted 2 is out of range: expected 0..1'));
});

test('the edges of every range pass the check and fail only at the server', { skip: !cid.hasLease }, async () => {
  const edges = [{ ttlMs: 1000 }, { ttlMs: 86400000 }, { graceMs: 0 }, { graceMs: 86400000 },
    { clockWaitMs: 0 }, { clockWaitMs: 86400000 }, { lo: 0, hi: 1 }, { lo: 1023 }, { hi: 1023 },
    { lo: 7, hi: 7 }, { layout: 'sonyflake', lo: 65535 }, { schema: 'a'.repeat(63) },
    { owner: 'x'.repeat(255) }, { owner: 'web-1 (pid 7) ü' }, { maxDriftMs: 9223372036854 },
    { maxBorrowTicks: 2 ** 32 - 1 }, { onClockBehind: 'fail', onExhausted: 'borrow' }];
  for (const options of edges)
    await assert.rejects(cid.leaseSnowflake({ conninfo: NOWHERE, ...options }),
      (e) => e.code === 'CHRONOID_ELEASE_DB' || assert.fail(`${JSON.stringify(options)}: ${e.message}`));
});
