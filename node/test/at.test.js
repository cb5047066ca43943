// at.test.js — uuidv7At() and ulidAt(): IDs of a given time, under either
// build (run.sh runs this file against the addon and the WebAssembly one).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { throwsCode } = require('./helpers');
const cid = require('..');

const T = Date.UTC(2021, 5, 1, 12, 0, 0, 123);

test('uuidv7At and ulidAt carry the time given, to the millisecond, in every form', () => {
  for (const when of [T, new Date(T), '2021-06-01T12:00:00.123Z']) {
    const u = cid.uuidv7At(when);
    assert.equal(cid.inspect(u).kind, 'uuid');
    assert.equal(cid.inspect(u).version, 7);
    assert.equal(cid.inspect(u).unixMs, T);
    const l = cid.ulidAt(when);
    assert.equal(cid.inspect(l).kind, 'ulid');
    assert.equal(cid.inspect(l).unixMs, T);
  }
});

test('IDs of one millisecond differ (random bits, no generator) and sort between its bounds', () => {
  const seen = new Set();
  const b7 = cid.uuidv7Bounds(T);
  const bl = cid.ulidBounds(T);
  for (let i = 0; i < 2000; i++) {
    const u = cid.uuidv7At(T);
    const l = cid.ulidAt(T);
    assert.ok(u >= b7.min && u <= b7.max, u);
    assert.ok(l >= bl.min && l <= bl.max, l);
    seen.add(u);
    seen.add(l);
  }
  assert.equal(seen.size, 4000);
});

test('the edges of what they hold, and times outside them, named', () => {
  assert.equal(cid.inspect(cid.uuidv7At(0)).unixMs, 0);
  assert.equal(cid.inspect(cid.ulidAt(2 ** 48 - 1)).unixMs, 2 ** 48 - 1);
  throwsCode(() => cid.uuidv7At(-1), RangeError, 'CHRONOID_ETIME_RANGE',
    'time -1 ms is outside what a UUIDv7 can hold');
  throwsCode(() => cid.ulidAt(2 ** 48), RangeError, 'CHRONOID_ETIME_RANGE', 'time 281474976710656 ms', 'ULID');
  throwsCode(() => cid.uuidv7At('yesterday'), Error, 'CHRONOID_ESYNTAX', '"yesterday"');
  throwsCode(() => cid.ulidAt({}), TypeError, 'ERR_INVALID_ARG_TYPE', 'got an object');
});
