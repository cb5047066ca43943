// kinds.test.js — UUIDv6, MongoDB ObjectId and KSUID generators and the
// UUID v1 <-> v6 conversion: forms, time round trips through inspect(),
// order and uniqueness in batches, RFC 9562's vectors (tests/vectors.md),
// time -> ID range bounds on the specifications' examples, and bad input
// refused with the value named.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { throwsCode } = require('./helpers');
const cid = require('..');

const UUID6_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const OBJECTID_RE = /^[0-9a-f]{24}$/;
const KSUID_RE = /^[0-9A-Za-z]{27}$/;

// RFC 9562 Appendix A.1 (v1) and A.5 (v6): one timestamp, clock sequence
// and node, so each is the other's conversion.
const V1 = 'c232ab00-9414-11ec-b3c8-9f6bdeced846';
const V6 = '1ec9414c-232a-6b00-b3c8-9f6bdeced846';
const VECTOR_MS = 1645557742000; // 2022-02-22T19:22:22Z

// Each shape of a kind, in the order made: one text, one as bytes, a
// Buffer of 50, a batch of 2000, one more text.  Bytes of a UUID come back
// as text through inspect(); those of other kinds stay Buffers.
function allShapes(name, size) {
  const fromBytes = (x) => (size === 16 ? cid.inspect(x).id : Buffer.from(x));
  const ids = [cid[name]()];
  const b = cid[`${name}Bytes`]();
  assert.ok(Buffer.isBuffer(b) && b.length === size, `${name}Bytes: ${b.length} bytes`);
  ids.push(fromBytes(b));
  const buf = cid[`${name}Buffer`](50);
  assert.equal(buf.length, 50 * size);
  for (let i = 0; i < 50; i++)
    ids.push(fromBytes(buf.subarray(size * i, size * i + size)));
  ids.push(...cid[`${name}Batch`](2000), cid[name]());
  assert.deepEqual(cid[`${name}Batch`](0), []);
  assert.equal(cid[`${name}Buffer`](0).length, 0);
  return ids;
}

test('uuidv6: version 6, strictly increasing across every shape, time now', () => {
  const before = Date.now();
  const ids = allShapes('uuidv6', 16);
  const after = Date.now();
  for (let i = 0; i < ids.length; i++) {
    assert.match(ids[i], UUID6_RE);
    if (i > 0)
      assert.ok(ids[i] > ids[i - 1], `${i}: ${ids[i]} after ${ids[i - 1]}`);
  }
  const info = cid.inspect(ids.at(-1));
  assert.equal(info.kind, 'uuid');
  assert.equal(info.version, 6);
  // v6 time has 100-ns steps: the ms it reads back is the ms it was made in.
  assert.ok(info.unixMs >= before && info.unixMs <= after + 1, `time ${info.unixMs} not in ${before}..${after}`);
  assert.ok(info.time instanceof Date && info.time.getTime() === info.unixMs);
});

test('objectid: 24 hex digits, unique, the counter steps by one, time to the second', () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const made = allShapes('objectid', 12);
  const after = Date.now();
  // Buffers come back as bytes: their hex is the ObjectId's text.
  const ids = made.map((x) => (Buffer.isBuffer(x) ? x.toString('hex') : x));
  assert.equal(new Set(ids).size, ids.length);
  const process5 = ids[0].slice(8, 18);
  for (let i = 0; i < ids.length; i++) {
    assert.match(ids[i], OBJECTID_RE);
    // One generator per process: the same 5 process bytes in every ID.
    assert.equal(ids[i].slice(8, 18), process5, ids[i]);
    if (i > 0) {
      const step = (parseInt(ids[i].slice(18), 16) - parseInt(ids[i - 1].slice(18), 16) + 0x1000000) % 0x1000000;
      assert.equal(step, 1, `${i}: counter of ${ids[i]} after ${ids[i - 1]}`);
    }
    const info = cid.inspect(ids[i]);
    assert.equal(info.kind, 'objectid');
    assert.equal(info.unixMs % 1000, 0);
    assert.ok(info.unixMs >= before && info.unixMs <= after, `time ${info.unixMs}`);
    assert.equal(info.bytes.toString('hex'), ids[i]);
  }
});

test('ksuid: 27 base62 characters, unique, time to the second', () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const ids = allShapes('ksuid', 20);
  const after = Date.now();
  const texts = new Set();
  for (const x of ids) {
    if (Buffer.isBuffer(x)) {
      assert.equal(x.length, 20);
      // The first 4 bytes: seconds since 2014-05-13T16:53:20Z.
      const ms = (x.readUInt32BE(0) + 1400000000) * 1000;
      assert.ok(ms >= before && ms <= after, `buffer time ${ms}`);
      texts.add(x.toString('hex'));
      continue;
    }
    assert.match(x, KSUID_RE);
    const info = cid.inspect(x);
    assert.equal(info.kind, 'ksuid');
    assert.equal(info.id, x);
    assert.equal(info.unixMs % 1000, 0);
    assert.ok(info.unixMs >= before && info.unixMs <= after, `time ${info.unixMs}`);
    texts.add(info.bytes.toString('hex'));
  }
  // 128 random bits each: a repeat would be a broken random source.
  assert.equal(texts.size, ids.length);
});

test('uuidv1ToV6 and uuidv6ToV1 on RFC 9562 vectors, text and bytes', () => {
  assert.equal(cid.uuidv1ToV6(V1), V6);
  assert.equal(cid.uuidv6ToV1(V6), V1);
  assert.equal(cid.uuidv1ToV6(V1.toUpperCase()), V6);
  assert.equal(cid.uuidv1ToV6(cid.inspect(V1).bytes), V6);
  assert.equal(cid.uuidv6ToV1(Uint8Array.from(cid.inspect(V6).bytes)), V1);
  assert.equal(cid.uuidv6ToV1(`{${V6.replaceAll('-', '')}}`), V1);
  for (const u of [V1, V6]) {
    const info = cid.inspect(u);
    assert.equal(info.unixMs, VECTOR_MS, u);
  }
});

test('v6 -> v1 -> v6 gives back every generated v6, with its time', () => {
  for (const u of cid.uuidv6Batch(2000)) {
    const v1 = cid.uuidv6ToV1(u);
    assert.equal(cid.inspect(v1).version, 1);
    assert.equal(cid.inspect(v1).unixMs, cid.inspect(u).unixMs);
    assert.equal(cid.uuidv1ToV6(v1), u);
  }
});

test('conversion of another version, variant or form throws, naming the UUID', () => {
  const v7 = cid.uuidv7();
  throwsCode(() => cid.uuidv1ToV6(v7), Error, 'CHRONOID_EINVAL', v7, 'version 7', 'version 1');
  throwsCode(() => cid.uuidv6ToV1(V1), Error, 'CHRONOID_EINVAL', V1, 'version 1, not 6');
  throwsCode(() => cid.uuidv1ToV6(V6), Error, 'CHRONOID_EINVAL', V6, 'version 6, not 1');
  // v1's version nibble but the Microsoft variant (110x).
  const ms = 'c232ab00-9414-11ec-d3c8-9f6bdeced846';
  throwsCode(() => cid.uuidv1ToV6(ms), Error, 'CHRONOID_EINVAL', ms, 'variant');
  throwsCode(() => cid.uuidv6ToV1('00000000-0000-0000-0000-000000000000'), Error, 'CHRONOID_EINVAL',
    '00000000-0000-0000-0000-000000000000');
  throwsCode(() => cid.uuidv1ToV6('c232ab00-9414-11ec-b3c8-9f6bdeced84'), Error, 'CHRONOID_ELENGTH',
    '"c232ab00-9414-11ec-b3c8-9f6bdeced84"', '35 characters');
  throwsCode(() => cid.uuidv6ToV1('1ec9414c-232a-6b00-b3c8-9f6bdeced84g'), Error, 'CHRONOID_ESYNTAX',
    '1ec9414c-232a-6b00-b3c8-9f6bdeced84g', "'g' at position 35");
  throwsCode(() => cid.uuidv1ToV6(Buffer.alloc(15)), Error, 'CHRONOID_ELENGTH', '16 bytes, got 15');
  throwsCode(() => cid.uuidv1ToV6(42), TypeError, 'ERR_INVALID_ARG_TYPE', 'got a number');
  throwsCode(() => cid.uuidv6ToV1(), TypeError, 'ERR_INVALID_ARG_TYPE', 'got undefined');
});

test('bounds: the first and last ID of the millisecond (UUIDv6) or second (ObjectId, KSUID)', () => {
  const v6 = cid.uuidv6Bounds(VECTOR_MS);
  assert.deepEqual(v6, { min: '1ec9414c-232a-6b00-8000-000000000000', max: '1ec9414c-232d-620f-bfff-ffffffffffff' });
  assert.ok(v6.min <= V6 && V6 <= v6.max);
  assert.equal(cid.inspect(v6.max).unixMs, VECTOR_MS);
  assert.equal(cid.uuidv6Bounds(-12219292800000).min, '00000000-0000-6000-8000-000000000000');
  for (const u of cid.uuidv6Batch(100)) {
    const b = cid.uuidv6Bounds(cid.inspect(u).unixMs);
    assert.ok(b.min <= u && u <= b.max, `${u} in ${b.min} .. ${b.max}`);
  }
  // The manual's ObjectId, 2012-10-17T21:13:27Z, inside its second.
  assert.deepEqual(cid.objectidBounds('2012-10-17T21:13:27.500Z'),
    { min: '507f1f770000000000000000', max: '507f1f77ffffffffffffffff' });
  assert.deepEqual(cid.objectidBounds(0), { min: '000000000000000000000000', max: '00000000ffffffffffffffff' });
  // The reference's README KSUID, Unix 1507608047.
  const k = cid.ksuidBounds(new Date(1507608047999));
  assert.ok(k.min < '0ujtsYcgvSTl8PAuAdqWYSMnLOv' && '0ujtsYcgvSTl8PAuAdqWYSMnLOv' < k.max, JSON.stringify(k));
  assert.equal(cid.inspect(k.min).bytes.toString('hex'), '0669f7ef' + '00'.repeat(16));
  assert.equal(cid.inspect(k.max).bytes.toString('hex'), '0669f7ef' + 'ff'.repeat(16));
  assert.equal(cid.ksuidBounds(1400000000000).min, '000000000000000000000000000');
  for (const id of cid.ksuidBatch(100).concat(cid.objectidBatch(100))) {
    const b = (id.length === 24 ? cid.objectidBounds : cid.ksuidBounds)(cid.inspect(id).time);
    assert.ok(b.min <= id && id <= b.max, `${id} in ${b.min} .. ${b.max}`);
  }
  throwsCode(() => cid.uuidv6Bounds(-12219292800001), RangeError, 'CHRONOID_ETIME_RANGE', '-12219292800001', 'UUIDv6', '1582-10-15');
  throwsCode(() => cid.objectidBounds(-1), RangeError, 'CHRONOID_ETIME_RANGE', 'time -1 ms', 'ObjectId', '2106-02-07');
  throwsCode(() => cid.objectidBounds(2 ** 32 * 1000), RangeError, 'CHRONOID_ETIME_RANGE', String(2 ** 32 * 1000));
  throwsCode(() => cid.ksuidBounds(1399999999999), RangeError, 'CHRONOID_ETIME_RANGE', '1399999999999', 'KSUID', '2014-05-13');
  throwsCode(() => cid.ksuidBounds('soon'), Error, 'CHRONOID_ESYNTAX', '"soon"');
  throwsCode(() => cid.objectidBounds({}), TypeError, 'ERR_INVALID_ARG_TYPE', 'time');
});

test('bad batch sizes throw, naming the value', () => {
  for (const name of ['uuidv6', 'objectid', 'ksuid']) {
    throwsCode(() => cid[`${name}Batch`](-1), RangeError, 'CHRONOID_EINVAL', 'batch size -1');
    throwsCode(() => cid[`${name}Buffer`](1.5), RangeError, 'CHRONOID_EINVAL', 'batch size 1.5');
    throwsCode(() => cid[`${name}Batch`](cid.maxBatch + 1), RangeError, 'CHRONOID_EINVAL', String(cid.maxBatch + 1));
    throwsCode(() => cid[`${name}Buffer`]('3'), TypeError, 'ERR_INVALID_ARG_TYPE', 'got a string');
  }
});
