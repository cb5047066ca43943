// typeid.test.js — TypeIDs through the core: the spec's valid and invalid
// cases (tests/vectors.md: jetify-com/typeid spec 0.3.0), generation under
// a prefix, the expected-prefix check, and errors with stable codes that
// name the character and its position.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { throwsCode } = require('./helpers');
const cid = require('..');

const valid = [
  ['nil', '00000000000000000000000000', '', '00000000-0000-0000-0000-000000000000'],
  ['one', '00000000000000000000000001', '', '00000000-0000-0000-0000-000000000001'],
  ['ten', '0000000000000000000000000a', '', '00000000-0000-0000-0000-00000000000a'],
  ['sixteen', '0000000000000000000000000g', '', '00000000-0000-0000-0000-000000000010'],
  ['thirty-two', '00000000000000000000000010', '', '00000000-0000-0000-0000-000000000020'],
  ['max-valid', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
  ['valid-alphabet', 'prefix_0123456789abcdefghjkmnpqrs', 'prefix', '0110c853-1d09-52d8-d73e-1194e95b5f19'],
  ['valid-uuidv7', 'prefix_01h455vb4pex5vsknk084sn02q', 'prefix', '01890a5d-ac96-774b-bcce-b302099a8057'],
  ['prefix-underscore', 'pre_fix_00000000000000000000000000', 'pre_fix', '00000000-0000-0000-0000-000000000000'],
];

// [name, text, code, words the message must hold]
const invalid = [
  ['prefix-uppercase', 'PREFIX_00000000000000000000000000', 'CHRONOID_ESYNTAX', "'P' at position 0"],
  ['prefix-numeric', '12345_00000000000000000000000000', 'CHRONOID_ESYNTAX', "'1' at position 0"],
  ['prefix-period', 'pre.fix_00000000000000000000000000', 'CHRONOID_ESYNTAX', "'.' at position 3"],
  ['prefix-non-ascii', 'pr\u00e9fix_00000000000000000000000000', 'CHRONOID_ESYNTAX', 'byte 0xc3 at position 2'],
  ['prefix-spaces', '  prefix_00000000000000000000000000', 'CHRONOID_ESYNTAX', "' ' at position 0"],
  ['prefix-64-chars', 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000',
    'CHRONOID_ELENGTH', 'TypeID'],
  ['separator-empty-prefix', '_00000000000000000000000000', 'CHRONOID_ESYNTAX', "'_' at position 0"],
  ['separator-empty', '_', 'CHRONOID_ESYNTAX', "'_' at position 0"],
  ['suffix-short', 'prefix_1234567890123456789012345', 'CHRONOID_ELENGTH', 'TypeID'],
  ['suffix-long', 'prefix_123456789012345678901234567', 'CHRONOID_ELENGTH', 'TypeID'],
  ['suffix-spaces', 'prefix_1234567890123456789012345 ', 'CHRONOID_ESYNTAX', "' ' at position 32"],
  ['suffix-uppercase', 'prefix_0123456789ABCDEFGHJKMNPQRS', 'CHRONOID_ESYNTAX', "'A' at position 17"],
  ['suffix-hyphens', 'prefix_123456789-123456789-123456', 'CHRONOID_ESYNTAX', "'-' at position 16"],
  ['suffix-wrong-alphabet', 'prefix_ooooooiiiiiiuuuuuuulllllll', 'CHRONOID_ESYNTAX', "'o' at position 7"],
  ['suffix-ambiguous-crockford', 'prefix_i23456789ol23456789oi23456', 'CHRONOID_ESYNTAX', "'i' at position 7"],
  ['suffix-hyphens-crockford', 'prefix_123456789-0123456789-0123456', 'CHRONOID_ELENGTH', 'TypeID'],
  ['suffix-overflow', 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz', 'CHRONOID_EOVERFLOW', '7zzzzzzzzzzzzzzzzzzzzzzzzz'],
  ['prefix-underscore-start', '_prefix_00000000000000000000000000', 'CHRONOID_ESYNTAX', "'_' at position 0"],
  ['prefix-underscore-end', 'prefix__00000000000000000000000000', 'CHRONOID_ESYNTAX', "'_' at position 6"],
  ['empty', '', 'CHRONOID_ELENGTH', 'TypeID'],
  ['prefix-empty', 'prefix_', 'CHRONOID_ELENGTH', 'TypeID'],
];

test('typeid: every valid case of the spec decodes and encodes back', () => {
  for (const [name, text, prefix, uuid] of valid) {
    assert.deepEqual(cid.parseTypeid(text), { prefix, uuid }, name);
    assert.equal(cid.typeidToUuid(text), uuid, name);
    assert.equal(cid.typeidToUuid(text, prefix), uuid, name);
    assert.equal(cid.typeidFromUuid(prefix, uuid), text, name);
  }
});

test('typeid: every invalid case of the spec is refused with its code and position', () => {
  for (const [name, text, code, ...words] of invalid) {
    throwsCode(() => cid.parseTypeid(text), Error, code, ...words);
    throwsCode(() => cid.typeidToUuid(text), Error, code, ...words);
    assert.ok(name);
  }
});

test('typeid: generation under a prefix is UUIDv7, ordered, and round trips', () => {
  let prev = '';
  for (let i = 0; i < 2000; i++) {
    const t = cid.typeid('user');
    assert.match(t, /^user_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.ok(t > prev, `${t} after ${prev}`);
    prev = t;
    const { prefix, uuid } = cid.parseTypeid(t);
    assert.equal(prefix, 'user');
    assert.equal(cid.inspect(uuid).version, 7);
    assert.equal(cid.typeidFromUuid('user', uuid), t);
  }
  assert.match(cid.typeid(), /^[0-7][0-9a-hjkmnp-tv-z]{25}$/);
  // 16 bytes work where a UUID's text does
  const bytes = cid.uuidv7Bytes();
  assert.equal(cid.typeidToUuid(cid.typeidFromUuid('a', bytes)), cid.inspect(bytes).id);
});

test('typeid: prefixes and the expected prefix', () => {
  const t = 'user_01h455vb4pex5vsknk084sn02q';
  throwsCode(() => cid.typeidToUuid(t, 'order'), Error, 'CHRONOID_EINVAL', '"user"', '"order"');
  throwsCode(() => cid.typeidToUuid('01h455vb4pex5vsknk084sn02q', 'user'), Error, 'CHRONOID_EINVAL', '""');
  throwsCode(() => cid.typeid('User'), Error, 'CHRONOID_ESYNTAX', "'U' at position 0");
  throwsCode(() => cid.typeid('user_'), Error, 'CHRONOID_ESYNTAX', "'_' at position 4");
  throwsCode(() => cid.typeid('a'.repeat(64)), Error, 'CHRONOID_ELENGTH', 'TypeID prefix');
  throwsCode(() => cid.typeid('a'.repeat(1000)), Error, 'CHRONOID_ELENGTH', 'too long');
  throwsCode(() => cid.typeid(7), TypeError, 'ERR_INVALID_ARG_TYPE', 'TypeID prefix');
  throwsCode(() => cid.typeidFromUuid('user', 'nope'), Error, 'CHRONOID_ELENGTH', '"nope"');
  throwsCode(() => cid.parseTypeid(null), TypeError, 'ERR_INVALID_ARG_TYPE', 'TypeID');
  assert.equal(cid.typeid('a'.repeat(63)).length, 90);
  assert.equal(cid.typeidFromUuid('my__type', '00000000-0000-0000-0000-000000000000'),
    'my__type_00000000000000000000000000');
});
