// validate.test.js — the boolean checks beside inspect(): isValid(id,
// kind?) says yes exactly when inspect() (or, for TypeIDs, parseTypeid())
// reads the ID and finds that kind, and never throws for the ID, whatever
// it is; uuidVersion() is inspect()'s version of a UUID.  Randomized:
// every generated kind is valid as itself and as no other, and mutated or
// random text gets the same verdict from isValid() as from inspect().
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { throwsCode, sfOptions } = require('./helpers');
const cid = require('..');

const KINDS = ['uuid', 'ulid', 'snowflake', 'objectid', 'ksuid', 'typeid'];
const RUNS = Number(process.env.CHRONOID_FUZZ_RUNS ?? 20000);

function inspectReads(id) {
  try {
    return cid.inspect(id).kind;
  } catch (e) {
    assert.match(String(e.code), /^(CHRONOID_|ERR_INVALID_ARG_TYPE$)/, e.message);
    return null;
  }
}

test('each generated kind is valid as itself and as no other kind', () => {
  const sf = new cid.Snowflake(sfOptions({ node: 3, scope: 'validate' }));
  const made = {
    uuid: [cid.uuidv7(), cid.uuidv4(), cid.uuidv6(), cid.uuidv7Bytes(), cid.uuidv7().toUpperCase()],
    ulid: [cid.ulid(), cid.monotonicUlid()],
    snowflake: [sf.next(), sf.nextString()],
    objectid: [cid.objectid()],
    ksuid: [cid.ksuid()],
    typeid: [cid.typeid('user'), cid.typeid('a_b')],
  };
  sf.close();
  for (const [kind, ids] of Object.entries(made)) {
    for (const id of ids) {
      assert.equal(cid.isValid(id), true, `${id} is an ID`);
      for (const k of KINDS)
        assert.equal(cid.isValid(id, k), k === kind, `isValid(${id}, ${k})`);
    }
  }
  // A TypeID without a prefix is a ULID's text in lower case: both kinds
  // hold, either way round.
  for (const bare of [cid.typeid(), cid.ulid().toLowerCase()]) {
    assert.equal(cid.isValid(bare, 'typeid'), true, bare);
    assert.equal(cid.isValid(bare, 'ulid'), true, bare);
  }
});

test('isValid is false, never a throw, for what is not an ID', () => {
  const notIds = [undefined, null, 0, 5, 1.5, NaN, true, {}, [], () => 1, Symbol('x'), '', ' ', 'zz',
    '01890a5d-ac96-7000-8000-00000000000', '01890a5d-ac96-7000-8000-0000000000000',
    '01890a5g-ac96-7000-8000-000000000000', '01ARZ3NDEKTSV4RRFFQ69G5FAU!', '81ARZ3NDEKTSV4RRFFQ69G5FAV',
    '-5', '18446744073709551616', '507f1f77bcf86cd79943901g', 'x'.repeat(1 << 20), 'user_', '_01h455vb4pex5vsknk084sn02q',
    Buffer.alloc(15), Buffer.alloc(17), new Uint16Array(8), -1n, 2n ** 64n];
  for (const x of notIds) {
    for (const k of [undefined, ...KINDS])
      assert.equal(cid.isValid(x, k), false, `isValid(${typeof x === 'symbol' ? 'symbol' : String(x).slice(0, 40)}, ${k})`);
  }
});

test('isValid agrees with inspect() on mutated and random text (randomized)', () => {
  const alphabet = '0123456789abcdefABCDEFGHJKMNPQRSTVWXYZilou-_{} ';
  const seeds = [cid.uuidv7(), cid.ulid(), cid.objectid(), cid.ksuid(), cid.typeid('t'), '7205759403792793599'];
  let valid = 0;
  for (let i = 0; i < RUNS; i++) {
    let s;
    if (i % 2) {
      const seed = seeds[i % seeds.length];
      const chars = [...seed];
      const pos = crypto.randomInt(chars.length);
      const op = crypto.randomInt(3);
      const c = alphabet[crypto.randomInt(alphabet.length)];
      if (op === 0)
        chars[pos] = c;
      else if (op === 1)
        chars.splice(pos, 1);
      else
        chars.splice(pos, 0, c);
      s = chars.join('');
    } else {
      const n = crypto.randomInt(40);
      s = Array.from({ length: n }, () => alphabet[crypto.randomInt(alphabet.length)]).join('');
    }
    const kind = inspectReads(s);
    assert.equal(cid.isValid(s), kind !== null, JSON.stringify(s));
    if (kind !== null && kind !== 'typeid') {
      valid++;
      assert.equal(cid.isValid(s, kind), true, JSON.stringify(s));
    }
  }
  // Mutation keeps many IDs valid (a changed digit): the check saw both verdicts.
  assert.ok(valid > RUNS / 20, `only ${valid} of ${RUNS} valid`);
});

test('isValid under a layout: a Snowflake past the layout is not valid', () => {
  // 2^63 - 1 is a pgedge Snowflake (63 bits); 2^63 is none.
  assert.equal(cid.isValid('9223372036854775807', 'snowflake', { layout: 'pgedge' }), true);
  assert.equal(cid.isValid('9223372036854775808', 'snowflake', { layout: 'pgedge' }), false);
  assert.equal(cid.isValid(2n ** 63n, 'snowflake'), false);
});

test('a bad kind, layout or options throws, naming it', () => {
  throwsCode(() => cid.isValid(cid.uuidv7(), 'uuidv7'), RangeError, 'CHRONOID_EINVAL', '"uuidv7"', '"ksuid"');
  throwsCode(() => cid.isValid(cid.uuidv7(), 'snowflake', { layout: 'nope' }), Error, 'CHRONOID_ELAYOUT', 'nope');
  throwsCode(() => cid.isValid(cid.uuidv7(), undefined, 'pgedge'), TypeError, 'ERR_INVALID_ARG_TYPE', 'string');
});

test('uuidVersion: the version of UUID text or bytes, null outside RFC 9562\'s variant', () => {
  assert.equal(cid.uuidVersion(cid.uuidv7()), 7);
  assert.equal(cid.uuidVersion(cid.uuidv7Bytes()), 7);
  assert.equal(cid.uuidVersion(cid.uuidv4().toUpperCase()), 4);
  assert.equal(cid.uuidVersion(cid.uuidv6()), 6);
  assert.equal(cid.uuidVersion('c232ab00-9414-11ec-b3c8-9f6bdeced846'), 1);
  // Variant 0b110 (Microsoft's), the nil and the max UUID: no RFC version.
  assert.equal(cid.uuidVersion('01890a5d-ac96-7000-c000-000000000000'), null);
  assert.equal(cid.uuidVersion('00000000-0000-0000-0000-000000000000'), null);
  assert.equal(cid.uuidVersion('ffffffff-ffff-ffff-ffff-ffffffffffff'), null);
  throwsCode(() => cid.uuidVersion('01ARZ3NDEKTSV4RRFFQ69G5FAV'), RangeError, 'CHRONOID_EINVAL',
    '"01ARZ3NDEKTSV4RRFFQ69G5FAV" is a ULID, not a UUID');
  throwsCode(() => cid.uuidVersion('zz'), Error, 'CHRONOID_EUNKNOWN', '"zz"');
  throwsCode(() => cid.uuidVersion(5), TypeError, 'ERR_INVALID_ARG_TYPE', 'number');
});
