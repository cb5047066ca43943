// ids.test.js — UUIDv7, UUIDv4 and ULID: forms, order, bytes, batches,
// conversion, bounds and inspection, each checked by its properties.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { build } = require('./helpers');
const cid = require('..');

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

test('uuidv7 strings are v7, strictly increasing, near now', () => {
  const before = Date.now();
  let prev = '';
  for (let i = 0; i < 20000; i++) {
    const u = cid.uuidv7();
    assert.match(u, UUID_RE);
    assert.ok(u > prev, `${u} after ${prev}`);
    prev = u;
  }
  const info = cid.inspect(prev);
  assert.equal(info.kind, 'uuid');
  assert.equal(info.version, 7);
  assert.ok(info.unixMs >= before && info.unixMs <= Date.now() + 100, `time ${info.unixMs}`);
});

test('uuidv7 bytes, buffers and batches continue one sequence', () => {
  const a = cid.uuidv7Bytes();
  assert.ok(Buffer.isBuffer(a) && a.length === 16);
  const buf = cid.uuidv7Buffer(1000);
  assert.equal(buf.length, 16000);
  const batch = cid.uuidv7Batch(1000);
  assert.equal(batch.length, 1000);
  const all = [cid.inspect(a).id];
  for (let i = 0; i < 1000; i++)
    all.push(cid.inspect(buf.subarray(16 * i, 16 * i + 16)).id);
  all.push(...batch, cid.uuidv7());
  for (let i = 1; i < all.length; i++) {
    assert.match(all[i], UUID_RE);
    assert.ok(all[i] > all[i - 1], `${i}: ${all[i]} after ${all[i - 1]}`);
  }
  assert.deepEqual(cid.uuidv7Batch(0), []);
  assert.equal(cid.uuidv7Buffer(0).length, 0);
});

test('uuidv4: version 4, no repeats', () => {
  const seen = new Set(cid.uuidv4Batch(5000));
  seen.add(cid.uuidv4());
  seen.add(cid.inspect(cid.uuidv4Bytes()).id);
  assert.equal(seen.size, 5002);
  for (const u of seen)
    assert.match(u, UUID4_RE);
  assert.equal(cid.uuidv4Buffer(3).length, 48);
});

test('monotonic ulid strictly increases across singles, bytes and batches', () => {
  const all = [cid.monotonicUlid()];
  all.push(cid.uuidToUlid(cid.monotonicUlidBytes()));
  all.push(...cid.monotonicUlidBatch(2000));
  const buf = cid.monotonicUlidBuffer(100);
  for (let i = 0; i < 100; i++)
    all.push(cid.uuidToUlid(buf.subarray(16 * i, 16 * i + 16)));
  all.push(cid.monotonicUlid());
  for (let i = 1; i < all.length; i++) {
    assert.match(all[i], ULID_RE);
    assert.ok(all[i] > all[i - 1], `${i}: ${all[i]} after ${all[i - 1]}`);
  }
});

test('plain ulid: valid, unique, time now', () => {
  const ids = cid.ulidBatch(3000).concat([cid.ulid(), cid.uuidToUlid(cid.ulidBytes())]);
  assert.equal(new Set(ids).size, ids.length);
  const now = Date.now();
  for (const id of ids) {
    assert.match(id, ULID_RE);
    assert.ok(Math.abs(cid.inspect(id).unixMs - now) < 5000);
  }
  assert.equal(cid.ulidBuffer(2).length, 32);
});

test('UUID <-> ULID keeps the 128 bits', () => {
  const u = cid.uuidv7();
  const l = cid.uuidToUlid(u);
  assert.match(l, ULID_RE);
  assert.equal(cid.ulidToUuid(l), u);
  assert.equal(cid.ulidToUuid(l.toLowerCase()), u);
  assert.equal(cid.uuidToUlid(u.toUpperCase()), l);
  assert.equal(cid.uuidToUlid(`{${u}}`), l);
  assert.equal(cid.uuidToUlid(u.replaceAll('-', '')), l);
  assert.equal(cid.inspect(l).unixMs, cid.inspect(u).unixMs);
  // Known vector: the nil and max values.
  assert.equal(cid.uuidToUlid('00000000-0000-0000-0000-000000000000'), '0'.repeat(26));
  assert.equal(cid.uuidToUlid('ffffffff-ffff-ffff-ffff-ffffffffffff'), '7' + 'Z'.repeat(25));
  const bytes = Buffer.from(u.replaceAll('-', ''), 'hex');
  assert.equal(cid.uuidToUlid(bytes), l);
  assert.equal(cid.ulidToUuid(new Uint8Array(bytes)), u);
});

test('uuidv7 and ulid bounds enclose the IDs of their millisecond', () => {
  const t = new Date('2025-03-04T05:06:07.089Z');
  const b = cid.uuidv7Bounds(t);
  assert.equal(b.min, '01955f8c-0671-7000-8000-000000000000');
  assert.equal(b.max, '01955f8c-0671-7fff-bfff-ffffffffffff');
  assert.deepEqual(cid.uuidv7Bounds(t.getTime()), b);
  assert.deepEqual(cid.uuidv7Bounds('2025-03-04T05:06:07.089Z'), b);
  const now = cid.uuidv7Bounds(Date.now() - 1);
  assert.ok(cid.uuidv7() > now.max);
  const lb = cid.ulidBounds(t);
  assert.equal(lb.min, cid.uuidToUlid('01955f8c-0671-0000-0000-000000000000'));
  assert.equal(lb.max, cid.uuidToUlid('01955f8c-0671-ffff-ffff-ffffffffffff'));
  assert.equal(cid.inspect(lb.min).unixMs, t.getTime());
  assert.equal(cid.inspect(lb.max).unixMs, t.getTime());
});

test('inspect: UUIDs of other versions, bytes, and the nil UUID', () => {
  const v4 = cid.inspect(cid.uuidv4());
  assert.equal(v4.version, 4);
  assert.equal(v4.time, null);
  assert.equal(v4.unixMs, null);
  const nil = cid.inspect('00000000-0000-0000-0000-000000000000');
  assert.equal(nil.version, null);
  const u = cid.uuidv7();
  const viaBytes = cid.inspect(Buffer.from(u.replaceAll('-', ''), 'hex'));
  assert.equal(viaBytes.id, u);
  assert.ok(viaBytes.time instanceof Date);
});

test('layouts: presets and specs', () => {
  assert.deepEqual([...cid.presets].sort(), ['discord', 'instagram', 'pgedge', 'sonyflake', 'twitter']);
  for (const name of cid.presets) {
    const l = cid.layout(name);
    assert.equal(l.name, name);
    assert.equal(cid.layout(l.spec).spec, l.spec);
    assert.ok(l.maxNode > 0);
  }
  const l = cid.layout('time:42,seq:12,reserved:10;epoch=2025-01-01;tick=1ms');
  assert.equal(l.name, 'custom');
  assert.equal(l.nodeBits, 0);
  assert.equal(l.maxNode, 0);
  assert.equal(l.epoch.toISOString(), '2025-01-01T00:00:00.000Z');
  assert.equal(cid.layout().name, 'pgedge');
  assert.equal(typeof cid.version, 'string');
  assert.equal(cid.maxBatch, 1 << 24);
  // No claim directory where there are no host claims.
  if (build === 'wasm')
    assert.equal(cid.claimDir(), null);
  else
    assert.equal(typeof cid.claimDir(), 'string');
});

// tests/vectors.md: MongoDB's manual and the ObjectId spec's test plan, the KSUID README.
test('inspect: MongoDB ObjectIds and KSUIDs, their time and bytes', () => {
  const cases = [
    ['507F1F77BCF86CD799439011', 'objectid', '507f1f77bcf86cd799439011', 1350508407000, 12],
    ['ffffffffffffffffffffffff', 'objectid', 'ffffffffffffffffffffffff', 4294967295000, 12],
    ['0ujtsYcgvSTl8PAuAdqWYSMnLOv', 'ksuid', '0ujtsYcgvSTl8PAuAdqWYSMnLOv', 1507608047000, 20],
    ['aWgEPTl1tmebfsQzFP4bxwgy80V', 'ksuid', 'aWgEPTl1tmebfsQzFP4bxwgy80V', 5694967295000, 20],
  ];
  for (const [text, kind, id, ms, n] of cases) {
    const info = cid.inspect(text);
    assert.equal(info.kind, kind);
    assert.equal(info.id, id);
    assert.equal(info.unixMs, ms);
    assert.equal(info.time.getTime(), ms);
    assert.equal(info.bytes.length, n);
  }
  assert.equal(cid.inspect('0ujtsYcgvSTl8PAuAdqWYSMnLOv').bytes.toString('hex'),
    '0669f7efb5a1cd34b5f99d1154fb6853345c9735');
});

test('a batch of texts longer than one string holds is made in parts, in order', () => {
  // 2^20 texts a part (lib/index.js): the parts meet after the first 2^20.
  const n = 2 ** 20 + 3;
  for (const name of ['uuidv7', 'monotonicUlid']) {
    const ids = cid[`${name}Batch`](n);
    assert.equal(ids.length, n, name);
    let sorted = true;
    for (let i = 1; i < n && sorted; i++)
      sorted = ids[i - 1] < ids[i];
    assert.ok(sorted, `${name}: every text above the one before it, across the parts`);
  }
  assert.throws(() => cid.uuidv7Batch(cid.maxBatch + 1), /expected an integer from 0 to 16777216/);
  assert.throws(() => cid.uuidv7Batch(2 ** 20 + 0.5), /batch size 1048576.5 is out of range/);
});

test('an ID kept from a text batch does not keep the batch alive', () => {
  // Pieces of one big string cut by split() were slices of it in V8: one
  // kept ID held its whole batch's text (37 bytes an ID).  Twenty kept
  // IDs of batches of 100,000 would hold 74 MB that way; copies hold
  // about 1 KB.  The heap is measured after a full collection.
  const v8 = require('node:v8');
  const vm = require('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  for (const name of ['uuidv7', 'ulid', 'ksuid']) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = [];
    for (let i = 0; i < 20; i++)
      kept.push(cid[`${name}Batch`](100000)[i]);
    gc();
    const grew = process.memoryUsage().heapUsed - before;
    assert.equal(new Set(kept).size, 20);
    assert.ok(grew < 16e6, `${name}: 20 kept IDs grew the heap by ${(grew / 1e6).toFixed(1)} MB`);
  }
});
