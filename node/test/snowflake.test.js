// snowflake.test.js — Snowflake generators: every preset and a spec, the
// policies, BigInt / text / BigInt64Array forms, decoding, bounds, one
// generator per (scope, node) in a process, close().
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { throwsCode, sfOptions, addonOnly } = require('./helpers');
const cid = require('..');

test('every preset mints increasing IDs that decode to their node', () => {
  for (const layout of cid.presets) {
    const node = Math.min(5, cid.layout(layout).maxNode);
    const sf = new cid.Snowflake(sfOptions({ node, layout, scope: `presets-${layout}` }));
    assert.equal(sf.layout.name, layout);
    let prev = sf.next();
    const before = Date.now();
    for (let i = 0; i < 2000; i++) {
      const id = sf.next();
      assert.equal(typeof id, 'bigint');
      assert.ok(id > prev, `${layout}: ${id} after ${prev}`);
      prev = id;
    }
    const info = sf.inspect(prev);
    assert.equal(info.kind, 'snowflake');
    assert.equal(info.node, node);
    assert.equal(info.layout, layout);
    // sonyflake ticks are 10 ms: the decoded time is the start of the tick.
    assert.ok(info.unixMs <= Date.now() && info.unixMs >= before - 1000, `${layout}: ${info.time.toISOString()}`);
    sf.close();
  }
});

test('a text spec with its own epoch and tick', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 3, scope: 'spec',
    layout: 'time:40,node:8,seq:15;epoch=2024-06-01;tick=2ms' }));
  assert.equal(sf.layout.name, 'custom');
  assert.equal(sf.layout.tickMs, 2);
  assert.equal(sf.layout.epoch.toISOString(), '2024-06-01T00:00:00.000Z');
  assert.equal(sf.layout.maxNode, 255);
  const id = sf.next();
  const info = sf.inspect(id);
  assert.equal(info.node, 3);
  assert.equal(info.unixMs % 2, 0);
  assert.equal(cid.inspect(id.toString(), { layout: sf.layout.spec }).node, 3);
  sf.close();
});

test('next, nextString and batch share one sequence', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 9, scope: 'forms' }));
  const a = sf.next();
  const s = sf.nextString();
  assert.match(s, /^[0-9]+$/);
  const b = sf.batch(5000);
  assert.ok(b instanceof BigInt64Array);
  assert.equal(b.length, 5000);
  const strs = sf.batchStrings(3);
  const all = [a, BigInt(s), ...b, ...strs.map(BigInt), sf.next()];
  for (let i = 1; i < all.length; i++)
    assert.ok(all[i] > all[i - 1], `${i}: ${all[i]} after ${all[i - 1]}`);
  assert.equal(sf.batch(0).length, 0);
  // JSON: the string form survives, a Number would not.
  assert.equal(JSON.parse(JSON.stringify({ id: s })).id, s);
  sf.close();
});

test('a generator object per (scope, node) shares one sequence; close is per object', () => {
  const a = new cid.Snowflake(sfOptions({ node: 11, scope: 'shared' }));
  const b = new cid.Snowflake(sfOptions({ node: 11, scope: 'shared' }));
  let prev = 0n;
  for (let i = 0; i < 3000; i++) {
    const x = (i % 2 ? a : b).next();
    assert.ok(x > prev);
    prev = x;
  }
  assert.equal(a.claimPath, b.claimPath);
  a.close();
  a.close();
  throwsCode(() => a.next(), Error, 'CHRONOID_ECLOSED', 'closed', 'node 11');
  throwsCode(() => a.batch(2), Error, 'CHRONOID_ECLOSED');
  assert.ok(b.next() > prev, 'the other object goes on');
  // Another layout for a number in use in this process is refused.
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 11, scope: 'shared', layout: 'twitter' })), Error,
    'CHRONOID_ENODE_HELD', 'node 11', 'already in use in this process');
  b.close();
  // All closed: the number is free for any layout.
  const c = new cid.Snowflake(sfOptions({ node: 11, scope: 'shared', layout: 'twitter' }));
  assert.equal(c.layout.name, 'twitter');
  c.close();
});

test('the claim: a lock file in the claim directory, or none', { skip: addonOnly }, () => {
  const sf = new cid.Snowflake(sfOptions({ node: 12, scope: 'claimed' }));
  assert.equal(sf.claimPath, `${process.env.CHRONOID_CLAIM_DIR}/claimed.12.lock`);
  assert.equal(cid.claimDir(), process.env.CHRONOID_CLAIM_DIR);
  sf.close();
  const free = new cid.Snowflake(sfOptions({ node: 13, scope: 'unclaimed', claim: false }));
  assert.equal(free.claimPath, null);
  free.close();
});

test('node numbers: numbers and BigInts, the range of the layout', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 1023n, scope: 'range' }));
  assert.equal(sf.node, 1023);
  sf.close();
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1024 })), RangeError, 'CHRONOID_ENODE',
    'node 1024', '0 to 1023', 'pgedge');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 65536, layout: 'sonyflake' })), RangeError, 'CHRONOID_ENODE');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 'time:42,seq:12,reserved:10' })), RangeError,
    'CHRONOID_ENODE', '0 to 0');
});

test('policies: borrow runs ahead instead of waiting, fail refuses', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 14, scope: 'policies', onExhausted: 'borrow', maxBorrowTicks: 1000,
    onClockBehind: 'fail' }));
  // 20000 IDs from a 12-bit sequence: five ticks' worth at once.
  const ids = sf.batch(20000);
  for (let i = 1; i < ids.length; i++)
    assert.ok(ids[i] > ids[i - 1]);
  sf.close();
  const tight = new cid.Snowflake(sfOptions({ node: 15, scope: 'policies', onExhausted: 'borrow', maxBorrowTicks: 0 }));
  throwsCode(() => { for (let i = 0; i < 100; i++) tight.batch(5000); }, Error, 'CHRONOID_EEXHAUSTED',
    'node 15', 'sequence exhausted');
  tight.close();
  const waiting = new cid.Snowflake(sfOptions({ node: 16, scope: 'policies', onClockBehind: 'wait', maxWaitMs: 10,
    maxDriftMs: 5 }));
  assert.equal(typeof waiting.next(), 'bigint');
  waiting.close();
});

test('bounds: every ID of the tick lies within, of any node', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 17, scope: 'bounds' }));
  const id = sf.next();
  const info = sf.inspect(id);
  const b = sf.bounds(info.time);
  assert.ok(b.min <= id && id <= b.max, `${b.min} <= ${id} <= ${b.max}`);
  assert.deepEqual(cid.snowflakeBounds(info.unixMs), b);
  assert.equal(sf.inspect(b.min).sequence, 0);
  assert.equal(sf.inspect(b.min).node, 0);
  assert.equal(sf.inspect(b.max).node, 1023);
  throwsCode(() => sf.bounds('2000-01-01'), RangeError, 'CHRONOID_ETIME_RANGE', 'pgedge', '2023-01-01');
  sf.close();
});

test('64-bit layouts read back as signed, as PostgreSQL bigint', () => {
  // A 64-bit layout whose epoch puts now past bit 63.
  const spec = 'time:42,node:10,seq:12;epoch=1950-01-01;tick=1ms';
  const l = cid.layout(spec);
  assert.equal(l.bits, 64);
  const sf = new cid.Snowflake(sfOptions({ node: 2, layout: spec, scope: 'signed' }));
  const id = sf.next();
  assert.ok(id < 0n, `${id} should be negative`);
  const s = sf.nextString();
  assert.ok(s.startsWith('-'));
  const info = sf.inspect(id);
  assert.equal(info.node, 2);
  assert.equal(cid.inspect(s, { layout: spec }).node, 2);
  assert.equal(sf.inspect(BigInt.asUintN(64, id)).id, info.id);
  const batch = sf.batch(3);
  assert.ok(batch[0] < 0n);
  sf.close();
});

test('a Snowflake dropped without close() gives its number up once collected, not before', async () => {
  const v8 = require('node:v8');
  const vm = require('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const other = () => new cid.Snowflake(sfOptions({ node: 12, scope: 'dropped', layout: 'twitter' }));
  // Collections run their finalizers later, off the current job.
  const collect = async () => {
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // Only its batch kept: the number is still in use.
  let batch = new cid.Snowflake(sfOptions({ node: 12, scope: 'dropped' })).batch;
  await collect();
  throwsCode(other, Error, 'CHRONOID_ENODE_HELD', 'node 12');
  assert.equal(batch(3).length, 3);
  batch = null;
  await collect();
  const c = other();
  assert.equal(c.layout.name, 'twitter');
  c.close();
});
