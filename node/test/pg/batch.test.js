// batch.test.js — batches of IDs as node-postgres array parameters
// (node/test/pg.sh provides the server), the forms docs/javascript.md
// names: for int8[], batchStrings(n), Array.from(batch(n), String) or
// [...batch(n)] (an Array of BigInt); for uuid[], uuidv7Batch(n) and the
// other text batches.  A BigInt64Array or a Buffer of n IDs goes as bytea
// (node-postgres sends every typed array so), and the server refuses it:
// that failure is played here too, so that the docs' warning stays true.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Client, types } = require('pg');
require('../helpers');
const cid = require('../..');

types.setTypeParser(types.builtins.INT8, (v) => BigInt(v));

const N = 5000;
let client;
let sf;

test.before(async () => {
  client = new Client();
  await client.connect();
  await client.query('DROP SCHEMA IF EXISTS js_batch CASCADE; CREATE SCHEMA js_batch');
  sf = new cid.Snowflake({ node: 9, scope: 'pg-batch' });
});
test.after(async () => {
  sf?.close();
  await client?.query('DROP SCHEMA IF EXISTS js_batch CASCADE');
  await client?.end();
});

// Insert ids through unnest($1::type[]) and read them back in key order.
async function roundTrip(table, type, param) {
  await client.query(`CREATE TABLE js_batch.${table} (id ${type} PRIMARY KEY, n int NOT NULL)`);
  const ins = await client.query(
    `INSERT INTO js_batch.${table} SELECT id, n FROM unnest($1::${type}[]) WITH ORDINALITY AS t(id, n)`, [param]);
  const { rows } = await client.query(`SELECT id, n FROM js_batch.${table} ORDER BY id`);
  return { count: ins.rowCount, rows };
}

for (const [form, make] of [
  ['batchStrings(n)', (n) => sf.batchStrings(n)],
  ['Array.from(batch(n), String)', (n) => Array.from(sf.batch(n), String)],
  ['[...batch(n)] (BigInts)', (n) => [...sf.batch(n)]],
]) {
  test(`int8[] from ${form}: every ID stored, in the order minted`, async () => {
    const param = make(N);
    const want = param.map(BigInt);
    const { count, rows } = await roundTrip(`i${form.replace(/\W/g, '').slice(0, 20).toLowerCase()}`, 'bigint', param);
    assert.equal(count, N);
    assert.deepEqual(rows.map((r) => r.id), want);
    assert.deepEqual(rows.map((r) => r.n), want.map((_, i) => i + 1));
  });
}

for (const [kind, make] of [
  ['uuidv7Batch', (n) => cid.uuidv7Batch(n)],
  ['uuidv6Batch', (n) => cid.uuidv6Batch(n)],
  ['ulidBatch through ulidToUuid', (n) => cid.monotonicUlidBatch(n).map(cid.ulidToUuid)],
]) {
  test(`uuid[] from ${kind}: every ID stored, in the order minted`, async () => {
    const param = make(N);
    const { count, rows } = await roundTrip(`u${kind.replace(/\W/g, '').slice(0, 20).toLowerCase()}`, 'uuid', param);
    assert.equal(count, N);
    assert.deepEqual(rows.map((r) => r.id), param);
  });
}

test('a BigInt64Array or a Buffer of IDs goes as bytea, and the server refuses it', async () => {
  await assert.rejects(client.query('SELECT cardinality($1::int8[])', [sf.batch(10)]),
    (e) => /dimensions|array|element type|insufficient data/i.test(e.message));
  await assert.rejects(client.query('SELECT cardinality($1::uuid[])', [cid.uuidv7Buffer(10)]),
    (e) => /dimensions|array|element type|insufficient data/i.test(e.message));
  // The string forms of the same batch are taken.
  const { rows } = await client.query('SELECT cardinality($1::int8[]) AS n', [sf.batchStrings(10)]);
  assert.equal(rows[0].n, 10);
});
