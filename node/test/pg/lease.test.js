// lease.test.js — node numbers leased from PostgreSQL through
// libchronoid_lease (node/test/pg.sh provides the server): a lease mints
// under its number and gives it back; a full range is refused; a lease
// that is not renewed is fenced at its deadline and mints nothing more;
// and a cluster of 4 forked workers leasing from one range gets 4
// distinct numbers and 4 x 1,000,000 IDs without a duplicate.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const cluster = require('node:cluster');
const { setTimeout: sleep } = require('node:timers/promises');
require('../helpers');
const cid = require('../..');

const pkg = path.resolve(__dirname, '../..');
const schema = 'chronoid_js_test';

test.before(async () => {
  await cid.leaseSetup({ schema });
});

test('a lease mints under its number and gives it back', async () => {
  const sf = await cid.leaseSnowflake({ schema, lo: 1, hi: 10, owner: 'lease.test.js' });
  assert.ok(sf.node >= 1 && sf.node <= 10, `node ${sf.node}`);
  assert.match(sf.holder, /^[0-9a-f]{32}$/);
  assert.equal(sf.status(), null);
  assert.ok(sf.remainingMs() > 0);
  const a = sf.next();
  const b = sf.batch(1000);
  const c = BigInt(sf.nextString());
  assert.ok(b[0] > a && c > b[999]);
  assert.equal(sf.inspect(a).node, sf.node);
  await sf.release();
  assert.throws(() => sf.next(), (e) => e.code === 'CHRONOID_ELEASE_RELEASED');
});

test('a full range is refused, naming the range', async () => {
  const first = await cid.leaseSnowflake({ schema, lo: 50, hi: 50 });
  assert.equal(first.node, 50);
  await assert.rejects(cid.leaseSnowflake({ schema, lo: 50, hi: 50 }), (e) => {
    assert.equal(e.code, 'CHRONOID_ELEASE_FULL');
    assert.ok(e.message.includes('no free node number in 50..50: 1 held by leases'), e.message);
    // Said once, not after its own summary.
    assert.equal(e.message.split('no free node number').length, 2, e.message);
    return true;
  });
  await first.release();
  const again = await cid.leaseSnowflake({ schema, lo: 50, hi: 50 });
  assert.equal(again.node, 50);
  assert.equal(again.inspect(again.next()).node, 50);
  await again.release();
});

test('a lease that is not renewed is fenced at its deadline', async () => {
  const sf = await cid.leaseSnowflake({ schema, lo: 60, hi: 60, ttlMs: 1000, renew: false });
  assert.equal(typeof sf.next(), 'bigint');
  await sleep(1300);
  assert.equal(sf.status(), 'CHRONOID_ELEASE_EXPIRED');
  assert.equal(sf.remainingMs(), 0);
  assert.throws(() => sf.next(), (e) => e.code === 'CHRONOID_ELEASE_EXPIRED' && /leased node 60/.test(e.message));
  assert.throws(() => sf.batch(10), (e) => e.code === 'CHRONOID_ELEASE_EXPIRED');
  await assert.rejects(sf.release(), (e) => e.code === 'CHRONOID_ELEASE_LOST' || e.code === 'CHRONOID_ELEASE_EXPIRED');
});

test('lo alone leases up to the layout\'s largest number', async () => {
  const top = await cid.leaseSnowflake({ schema, lo: 1023 });
  assert.equal(top.node, 1023);
  await top.release();
  const low = await cid.leaseSnowflake({ schema, layout: 'sonyflake', lo: 65535, owner: 'web-1 ü' });
  assert.equal(low.node, 65535);
  await low.release();
});

test('bad lease options are refused before any connection', async () => {
  await assert.rejects(cid.leaseSnowflake({ schema, ttl: 5 }), (e) => e.code === 'ERR_INVALID_ARG_TYPE' && /"ttl"/.test(e.message));
  await assert.rejects(cid.leaseSnowflake({ schema, ttlMs: -1 }), (e) => e.code === 'CHRONOID_EINVAL');
  await assert.rejects(cid.leaseSnowflake({ schema, lo: 5, hi: 2 }), (e) => e.code === 'CHRONOID_EINVAL');
  await assert.rejects(cid.leaseSnowflake({ schema: 'Bad Schema' }), (e) => e.code === 'CHRONOID_EINVAL');
  await assert.rejects(cid.leaseSnowflake(null), (e) => e.code === 'ERR_INVALID_ARG_TYPE');
});

const PER_WORKER = 1000000;
const workerMain = `
const cid = require(${JSON.stringify(pkg)});
(async () => {
  const sf = await cid.leaseSnowflake({ schema: ${JSON.stringify(schema)}, lo: 100, hi: 107 });
  const ids = new BigInt64Array(${PER_WORKER});
  for (let i = 0; i < ids.length; i += 10000)
    ids.set(sf.batch(10000), i);
  const node = sf.node;
  await sf.release();
  process.send({ node, ids });
})().catch((e) => process.send({ error: e.code + ': ' + e.message }));
process.on('message', (m) => { if (m === 'exit') process.exit(0); });
`;

test('4 cluster workers lease distinct numbers: 4 x 1,000,000 IDs, no duplicate', async () => {
  cluster.setupPrimary({ execArgv: ['-e', workerMain], serialization: 'advanced' });
  const workers = Array.from({ length: 4 }, () => cluster.fork());
  const reports = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('exit', (code) => reject(new Error(`worker exited ${code} before reporting`)));
  })));
  for (const w of workers) {
    w.removeAllListeners('exit');
    w.send('exit');
  }
  for (const r of reports)
    assert.equal(r.error, undefined, r.error);
  // Leases are held at the same time, so the numbers differ.
  assert.equal(new Set(reports.map((r) => r.node)).size, 4, JSON.stringify(reports.map((r) => r.node)));
  const all = new BigInt64Array(4 * PER_WORKER);
  reports.forEach((r, i) => {
    assert.equal(r.ids.length, PER_WORKER);
    for (let k = 1; k < r.ids.length; k++)
      if (!(r.ids[k] > r.ids[k - 1]))
        assert.fail(`worker ${i}: ${r.ids[k]} after ${r.ids[k - 1]}`);
    assert.equal(cid.inspect(r.ids[0]).node, r.node);
    all.set(r.ids, i * PER_WORKER);
  });
  all.sort();
  let dups = 0;
  for (let k = 1; k < all.length; k++)
    if (all[k] === all[k - 1])
      dups++;
  assert.equal(dups, 0);
});
