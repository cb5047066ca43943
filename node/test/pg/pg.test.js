// pg.test.js — chronoid's IDs through node-postgres into a real server
// (node/test/pg.sh starts it and sets PGHOST etc.): UUIDv7 in a uuid key,
// Snowflake BigInts in a bigint key read back as BigInt; IDs minted here
// and by the extension's functions (uuidv7(), snowflake.nextval()) decode
// the same on both sides and sort together by time.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { setTimeout: sleep } = require('node:timers/promises');
const { Client, types } = require('pg');
require('../helpers');
const cid = require('../..');

// int8 as BigInt: a Number cannot hold a 64-bit ID.
types.setTypeParser(types.builtins.INT8, (v) => BigInt(v));

let client;
test.before(async () => {
  client = new Client();
  await client.connect();
});
test.after(async () => {
  await client?.end();
});

test('UUIDv7 into a uuid primary key: stored, sorted and read back as minted', async () => {
  await client.query('CREATE TABLE js_uuid (id uuid PRIMARY KEY, n int NOT NULL)');
  const ids = cid.uuidv7Batch(500).concat(Array.from({ length: 500 }, () => cid.uuidv7()));
  await client.query('INSERT INTO js_uuid SELECT id, n FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, n)', [ids]);
  const { rows } = await client.query('SELECT id, n FROM js_uuid ORDER BY id');
  assert.equal(rows.length, 1000);
  rows.forEach((r, i) => {
    assert.equal(r.id, ids[i]);
    assert.equal(r.n, i + 1);
  });
});

test('Snowflake BigInt into a bigint primary key, int8 read back as BigInt', async () => {
  const sf = new cid.Snowflake({ node: 6, scope: 'pg-test' });
  await client.query('CREATE TABLE js_sf (id bigint PRIMARY KEY, n int NOT NULL)');
  const ids = [...sf.batch(500)];
  for (let i = 0; i < 500; i++)
    ids.push(sf.next());
  await client.query('INSERT INTO js_sf SELECT id, n FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, n)',
    [ids.map(String)]);
  await client.query('INSERT INTO js_sf VALUES ($1, 1001)', [sf.next()]);
  const { rows } = await client.query('SELECT id, n FROM js_sf ORDER BY id');
  assert.equal(rows.length, 1001);
  rows.forEach((r, i) => {
    assert.equal(typeof r.id, 'bigint');
    if (i < 1000)
      assert.equal(r.id, ids[i]);
    assert.equal(r.n, i + 1);
  });
  sf.close();
});

test('IDs from JavaScript and from the extension decode the same and sort together', async () => {
  await client.query('SET snowflake.node = 5');
  await client.query('CREATE TABLE mixed_sf (id bigint PRIMARY KEY, src text, seq int)');
  await client.query('CREATE TABLE mixed_uuid (id uuid PRIMARY KEY, src text, seq int)');
  const sf = new cid.Snowflake({ node: 6, scope: 'pg-test' });
  for (let i = 0; i < 20; i += 2) {
    await client.query("INSERT INTO mixed_sf VALUES ($1, 'js', $2)", [sf.next(), i]);
    await client.query("INSERT INTO mixed_uuid VALUES ($1, 'js', $2)", [cid.uuidv7(), i]);
    await sleep(3);
    await client.query("INSERT INTO mixed_sf VALUES (snowflake.nextval(), 'sql', $1)", [i + 1]);
    await client.query("INSERT INTO mixed_uuid VALUES (uuidv7(), 'sql', $1)", [i + 1]);
    await sleep(3);
  }
  const sfRows = (await client.query(`SELECT id, src, seq, snowflake.get_node(id) AS node,
      (snowflake.get_epoch(id) * 1000)::bigint AS ms FROM mixed_sf ORDER BY id`)).rows;
  assert.deepEqual(sfRows.map((r) => r.seq), [...Array(20).keys()], 'sorted by id = minted order');
  for (const r of sfRows) {
    const info = cid.inspect(r.id);
    assert.equal(info.node, r.src === 'js' ? 6 : 5);
    assert.equal(r.node, info.node, 'the extension decodes the node the same');
    assert.equal(BigInt(info.unixMs), r.ms, 'and the time');
    assert.equal(cid.inspect(r.id.toString()).unixMs, info.unixMs);
  }
  const uRows = (await client.query(`SELECT id, src, seq,
      (extract(epoch FROM chronoid_uuid_extract_timestamp(id)) * 1000)::bigint AS ms
      FROM mixed_uuid ORDER BY id`)).rows;
  assert.deepEqual(uRows.map((r) => r.seq), [...Array(20).keys()], 'sorted by id = minted order');
  for (const r of uRows) {
    const info = cid.inspect(r.id);
    assert.equal(info.version, 7);
    assert.equal(BigInt(info.unixMs), r.ms);
  }
  // A range query with bounds from JavaScript finds the extension's IDs.
  const first = uRows[1];
  const b = cid.uuidv7Bounds(cid.inspect(first.id).time);
  const hit = await client.query('SELECT count(*)::int AS n FROM mixed_uuid WHERE id BETWEEN $1 AND $2 AND seq = $3',
    [b.min, b.max, first.seq]);
  assert.equal(hit.rows[0].n, 1);
  sf.close();
});
