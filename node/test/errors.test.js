// errors.test.js — bad input gets an Error with a stable code and a
// message naming the value, never a crash and never a wrong ID: wrong
// types, NaN, negative and fractional numbers, huge batches, malformed
// text, invalid UTF-8 and lone surrogates; then random text through every
// parser (a fuzz run with a fixed seed, so a failure can be replayed).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { throwsCode, sfOptions, addonOnly } = require('./helpers');
const cid = require('..');

const batchFns = ['uuidv7Batch', 'uuidv7Buffer', 'uuidv4Batch', 'uuidv4Buffer', 'ulidBatch', 'ulidBuffer',
  'monotonicUlidBatch', 'monotonicUlidBuffer'];

test('batch sizes: wrong types, NaN, negative, fractional, huge', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 20, scope: 'errors' }));
  for (const name of [...batchFns, 'snowflake']) {
    const fn = name === 'snowflake' ? (n) => sf.batch(n) : cid[name];
    throwsCode(() => fn('10'), TypeError, 'ERR_INVALID_ARG_TYPE', 'batch size', 'a number', 'a string');
    throwsCode(() => fn(10n), TypeError, 'ERR_INVALID_ARG_TYPE', 'a bigint');
    throwsCode(() => fn(), TypeError, 'ERR_INVALID_ARG_TYPE', 'undefined');
    for (const bad of [NaN, -1, 1.5, Infinity, 2 ** 24 + 1, 1e12, Number.MAX_VALUE])
      throwsCode(() => fn(bad), RangeError, 'CHRONOID_EINVAL', `batch size ${bad}`,
        'expected an integer from 0 to 16777216');
  }
  assert.equal(cid.uuidv7Buffer(2 ** 20).length, 16 * 2 ** 20);
  sf.close();
});

test('node numbers: NaN, negative, fractional, unsafe, wrong types', () => {
  for (const node of [NaN, -1, 0.5, 2 ** 53, -0.1, Infinity])
    throwsCode(() => new cid.Snowflake(sfOptions({ node })), RangeError, 'CHRONOID_ENODE', 'expected an integer from 0 to 1023');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: -1n })), RangeError, 'CHRONOID_ENODE', '0 to 1023');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 2n ** 64n })), RangeError, 'CHRONOID_ENODE');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 2n ** 63n })), RangeError, 'CHRONOID_ENODE', 'node 9223372036854775808');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: '7' })), TypeError, 'ERR_INVALID_ARG_TYPE', 'node', 'a string');
  throwsCode(() => new cid.Snowflake(sfOptions({})), TypeError, 'ERR_INVALID_ARG_TYPE', 'node', 'undefined');
  throwsCode(() => new cid.Snowflake(7), TypeError, 'ERR_INVALID_ARG_TYPE', 'options');
  throwsCode(() => new cid.Snowflake(null), TypeError, 'ERR_INVALID_ARG_TYPE', 'null');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, nod: 2 })), TypeError, 'ERR_INVALID_ARG_TYPE', '"nod"');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, claim: 'yes' })), TypeError, 'ERR_INVALID_ARG_TYPE', 'claim');
});

test('snowflake options: layouts, policies, limits, scopes, claim directories', () => {
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 'twiter' })), Error, 'CHRONOID_ELAYOUT', "'twiter'", 'presets');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 'time:41,node:10,seq:10' })), Error, 'CHRONOID_ELAYOUT');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 'pgedge\0x' })), Error, 'CHRONOID_ELAYOUT', 'NUL');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 42 })), TypeError, 'ERR_INVALID_ARG_TYPE', 'layout');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, layout: 'x'.repeat(300) })), Error, 'CHRONOID_ELENGTH', 'too long');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, onClockBehind: 'later' })), RangeError, 'CHRONOID_EINVAL',
    '"later"', '"run-ahead"');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, onExhausted: 1 })), RangeError, 'CHRONOID_EINVAL', '"1"');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, maxDriftMs: -5 })), RangeError, 'CHRONOID_EINVAL', 'maxDriftMs -5');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, maxWaitMs: NaN })), RangeError, 'CHRONOID_EINVAL', 'maxWaitMs');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, maxBorrowTicks: '3' })), TypeError, 'ERR_INVALID_ARG_TYPE');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, scope: '../etc' })), Error, 'CHRONOID_EINVAL', 'invalid claim scope');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, scope: 'a\0b' })), Error, 'CHRONOID_EINVAL', 'NUL');
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, scope: 'x', claimDir: '/nonexistent-dir/claims' })), Error,
    'CHRONOID_ECLAIM', '/nonexistent-dir/claims');
});

test('malformed ID text names the value and what was expected', () => {
  throwsCode(() => cid.uuidToUlid('01955f8c-0671-7000-8000-00000000000g'), Error, 'CHRONOID_ESYNTAX',
    "character 'g' at position 35", '8-4-4-4-12');
  throwsCode(() => cid.uuidToUlid('abc'), Error, 'CHRONOID_ELENGTH', '"abc"', '3 characters');
  throwsCode(() => cid.ulidToUuid('01ARZ3NDEKTSV4RRFFQ69G5FAI'), Error, 'CHRONOID_ESYNTAX', "'I'", 'position 25');
  throwsCode(() => cid.ulidToUuid('81ARZ3NDEKTSV4RRFFQ69G5FAV'), Error, 'CHRONOID_EOVERFLOW', '7ZZZ');
  throwsCode(() => cid.inspect('hello'), Error, 'CHRONOID_EUNKNOWN', '"hello"', 'no known ID form');
  throwsCode(() => cid.inspect(''), Error, 'CHRONOID_EUNKNOWN');
  throwsCode(() => cid.inspect('99999999999999999999'), Error, 'CHRONOID_EOVERFLOW');
  throwsCode(() => cid.inspect(2n ** 64n), RangeError, 'CHRONOID_EOVERFLOW');
  throwsCode(() => cid.inspect(-(2n ** 63n) - 1n), RangeError, 'CHRONOID_EOVERFLOW');
  throwsCode(() => cid.inspect(-1n), Error, 'CHRONOID_EOVERFLOW', 'pgedge');
  throwsCode(() => cid.inspect(Buffer.alloc(15)), Error, 'CHRONOID_ELENGTH', '16 bytes, got 15');
  throwsCode(() => cid.inspect(new Uint16Array(8)), TypeError, 'ERR_INVALID_ARG_TYPE');
  throwsCode(() => cid.inspect(42), TypeError, 'ERR_INVALID_ARG_TYPE', 'a number');
  throwsCode(() => cid.inspect({}), TypeError, 'ERR_INVALID_ARG_TYPE', 'an object');
  throwsCode(() => cid.inspect('1', null), TypeError, 'ERR_INVALID_ARG_TYPE');
  throwsCode(() => cid.uuidToUlid('x'.repeat(10000)), Error, 'CHRONOID_ELENGTH', 'too long', '10000 bytes');
  // the forms inspect() knows by length: ObjectId (24), KSUID (27)
  throwsCode(() => cid.inspect('507f1f77bcf86cd79943901z'), Error, 'CHRONOID_ESYNTAX', "'z'", 'ObjectId');
  throwsCode(() => cid.inspect('aWgEPTl1tmebfsQzFP4bxwgy80!'), Error, 'CHRONOID_ESYNTAX', "'!'", 'KSUID');
  throwsCode(() => cid.inspect('aWgEPTl1tmebfsQzFP4bxwgy80W'), Error, 'CHRONOID_EOVERFLOW', 'KSUID');
});

test('invalid UTF-8 and lone surrogates are refused, with the bytes shown', () => {
  // A JavaScript string cannot hold invalid UTF-8; a lone surrogate is the
  // nearest thing, and arrives as U+FFFD (EF BF BD).
  const lone = '01ARZ3NDEKTSV4RRFFQ69G5FA\ud800';
  throwsCode(() => cid.ulidToUuid(lone), Error, 'CHRONOID_ELENGTH', 'ULID', '\\xef\\xbf\\xbd', '26 characters (expected');
  throwsCode(() => cid.ulidToUuid('01ARZ3NDEKTSV4RRFFQ69G5\ud800'), Error, 'CHRONOID_ESYNTAX', 'byte 0xef at position 23');
  const e = throwsCode(() => cid.uuidToUlid('\ud83d' + 'a'.repeat(40)), Error, 'CHRONOID_ELENGTH');
  assert.ok(e.message.includes('\\xef\\xbf\\xbd'), e.message);
  // Bytes that are not UTF-8 only reach chronoid as bytes: 16 of them are an ID.
  const raw = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0x80, 0x80, 0x80]);
  assert.equal(cid.inspect(raw).bytes.toString('hex'), raw.toString('hex'));
  throwsCode(() => cid.inspect(raw.toString('latin1')), Error, 'CHRONOID_EUNKNOWN');
  throwsCode(() => cid.inspect(raw.toString('utf8')), Error, 'CHRONOID_EUNKNOWN');
});

test('times: Dates, numbers and text, with their errors', () => {
  throwsCode(() => cid.uuidv7Bounds(new Date(NaN)), RangeError, 'CHRONOID_ETIME_RANGE', 'Date NaN');
  throwsCode(() => cid.uuidv7Bounds(1.5), RangeError, 'CHRONOID_ETIME_RANGE', 'time 1.5');
  throwsCode(() => cid.uuidv7Bounds(-1), RangeError, 'CHRONOID_ETIME_RANGE', 'UUIDv7');
  throwsCode(() => cid.ulidBounds(2 ** 48), RangeError, 'CHRONOID_ETIME_RANGE', 'ULID');
  throwsCode(() => cid.uuidv7Bounds('2025-13-01'), RangeError, 'CHRONOID_ETIME_RANGE', '"2025-13-01"');
  throwsCode(() => cid.uuidv7Bounds('yesterday'), Error, 'CHRONOID_ESYNTAX', '"yesterday"', 'YYYY-MM-DD');
  throwsCode(() => cid.uuidv7Bounds({}), TypeError, 'ERR_INVALID_ARG_TYPE', 'time');
  throwsCode(() => cid.snowflakeBounds(Date.now(), 'nope'), Error, 'CHRONOID_ELAYOUT');
  assert.equal(cid.uuidv7Bounds(0).min, '00000000-0000-7000-8000-000000000000');
});

// xorshift32: the fuzz run's inputs, reproducible from the seed.
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
}

test('fuzz: random text through every parser gives an ID or a chronoid Error', () => {
  const seed = Number(process.env.CHRONOID_FUZZ_SEED ?? 20261126);
  const next = rng(seed);
  const alphabet = '0123456789abcdefABCDEFGHJKMNPQRSTVWXYZilou-{}: .T_\u00e9\ud800\u0000';
  const valid = [cid.uuidv7(), cid.monotonicUlid(), new cid.Snowflake(sfOptions({ node: 21, scope: 'fuzz', claim: false })).nextString(),
    cid.typeid('user'), cid.uuidv6(), cid.uuidv6ToV1(cid.uuidv6()), cid.objectid(), cid.ksuid()];
  const parsers = [
    (s) => cid.inspect(s),
    (s) => cid.inspect(s, { layout: 'sonyflake' }),
    (s) => cid.uuidToUlid(s),
    (s) => cid.ulidToUuid(s),
    (s) => cid.uuidv1ToV6(s),
    (s) => cid.uuidv6ToV1(s),
    (s) => cid.uuidv7Bounds(s),
    (s) => cid.layout(s),
    (s) => cid.parseTypeid(s),
    (s) => cid.typeidToUuid(s, 'user'),
    (s) => cid.typeid(s),
  ];
  let accepted = 0;
  const runs = Number(process.env.CHRONOID_FUZZ_RUNS ?? 20000);
  for (let i = 0; i < runs; i++) {
    let s;
    if (next() % 2) {
      // A valid ID with a few characters changed, cut or doubled.
      s = valid[next() % valid.length].split('');
      for (let k = next() % 3; k >= 0; k--) {
        const at = next() % (s.length + 1);
        const op = next() % 3;
        const ch = alphabet[next() % alphabet.length];
        if (op === 0) s[at] = ch;
        else if (op === 1) s.splice(at, 1);
        else s.splice(at, 0, ch);
      }
      s = s.join('');
    } else {
      s = '';
      for (let k = next() % 40; k > 0; k--)
        s += alphabet[next() % alphabet.length];
    }
    for (const p of parsers) {
      try {
        const r = p(s);
        assert.ok(r !== undefined && r !== null);
        accepted++;
        // What a parser accepts it gives back the same way.
        if (p === parsers[2])
          assert.equal(cid.ulidToUuid(r), cid.inspect(s).id);
        if (p === parsers[4])
          assert.equal(cid.uuidv6ToV1(r), cid.inspect(s).id);
      } catch (e) {
        assert.ok(e instanceof Error, `seed ${seed}, input ${JSON.stringify(s)}: threw ${e}`);
        assert.ok(/^(CHRONOID_E|ERR_INVALID_ARG_TYPE)/.test(e.code ?? ''),
          `seed ${seed}, input ${JSON.stringify(s)}: code ${e.code}, ${e.message}`);
        assert.ok(e.message.length > 10 && e.message.length < 1200);
      }
    }
  }
  assert.ok(accepted > 0, 'some mutated inputs stay valid');
});

// bind/snowflake_opts.c: the policy limits a Snowflake and a lease share,
// with the Python package (test_snowflake.py plays the same values).
test('snowflake policy limits: each edge taken, one past it refused naming it', () => {
  const limits = [['maxDriftMs', 9223372036854, ' ms'], ['maxWaitMs', 9223372036854, ' ms'],
    ['maxBorrowTicks', 4294967295, '']];
  let node = 100;
  for (const [name, max, unit] of limits) {
    for (const v of [0, max]) {
      const sf = new cid.Snowflake(sfOptions({ node: node++, scope: 'limits', [name]: v }));
      assert.equal(typeof sf.next(), 'bigint');
      sf.close?.();
    }
    for (const v of [-1, max + 1])
      throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, [name]: v })), RangeError, 'CHRONOID_EINVAL',
        `${name} ${v} is out of range: expected 0..${max}${unit}`);
  }
  throwsCode(() => new cid.Snowflake(sfOptions({ node: 1, maxWaitMs: 1.5 })), RangeError, 'CHRONOID_EINVAL',
    'maxWaitMs 1.5 is out of range: expected an integer');
});
