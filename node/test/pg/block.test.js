// block.test.js — values of a PostgreSQL sequence a block at a time
// through libchronoid_lease's allocator (BlockAllocator; node/test/pg.sh
// provides the server): several allocators in this process, three child
// processes and nextval() on one sequence never share a value; sequences
// a block cannot serve (INCREMENT 2, CYCLE, UNLOGGED) and bad options are
// refused, naming the value; a sequence that runs out says so; a
// nextAsync() that waits for a block leaves the event loop running; an
// allocator dropped without close() lets its connection go.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { setTimeout: sleep } = require('node:timers/promises');
const { Client, types } = require('pg');
require('../helpers');
const cid = require('../..');

types.setTypeParser(types.builtins.INT8, (v) => BigInt(v));

const pkg = path.resolve(__dirname, '../..');
let client;

test.before(async () => {
  client = new Client();
  await client.connect();
  await client.query(`CREATE EXTENSION IF NOT EXISTS chronoid;
    DROP SCHEMA IF EXISTS js_block CASCADE;
    CREATE SCHEMA js_block;
    CREATE SEQUENCE js_block.s;
    CREATE SEQUENCE js_block.by2 INCREMENT 2;
    CREATE SEQUENCE js_block.cyc CYCLE;
    CREATE UNLOGGED SEQUENCE js_block.unl;
    CREATE SEQUENCE js_block.small MAXVALUE 20;
    CREATE SEQUENCE js_block.locked;`);
});
test.after(async () => {
  await client?.query('DROP SCHEMA IF EXISTS js_block CASCADE');
  await client?.end();
});

// Small blocks (target 20 ms, from 1 value up) so that many are reserved
// while values are taken.
const SMALL = { targetMs: 20, minSize: 1, initialSize: 8 };
const PER_CHILD = 20000;

function child() {
  const script = `
    const cid = require(${JSON.stringify(pkg)});
    (async () => {
      const a = await cid.BlockAllocator.open('js_block.s', ${JSON.stringify(SMALL)});
      const out = [];
      for (let i = 0; i < ${PER_CHILD}; i++)
        out.push(i % 2 ? a.next() : await a.nextAsync());
      await a.close();
      process.stdout.write(out.join('\\n') + '\\n');
    })().catch((e) => { process.stderr.write(e.code + ': ' + e.message + '\\n'); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').map(BigInt))
      : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

function increasing(vals, who) {
  for (let i = 1; i < vals.length; i++)
    if (!(vals[i] > vals[i - 1]))
      assert.fail(`${who}: ${vals[i]} after ${vals[i - 1]}`);
}

test('allocators, child processes and nextval() on one sequence never share a value', async () => {
  const children = [child(), child(), child()];
  const mine = [];
  const allocators = await Promise.all([1, 2, 3].map(() => cid.BlockAllocator.open('js_block.s', SMALL)));
  for (const [k, a] of allocators.entries()) {
    assert.equal(a.sequence, 'js_block.s');
    const vals = [];
    for (let i = 0; i < 10000; i++)
      vals.push(i % 3 === k ? await a.nextAsync() : a.next());
    increasing(vals, `allocator ${k}`);
    const st = a.stats();
    assert.equal(st.issued, 10000);
    assert.ok(st.blocks >= 2, `blocks ${st.blocks}`);
    for (const key of ['failures', 'waits', 'inHand', 'size'])
      assert.ok(Number.isInteger(st[key]) && st[key] >= 0, `${key} ${st[key]}`);
    mine.push(...vals);
  }
  const core = (await client.query("SELECT nextval('js_block.s') AS v FROM generate_series(1, 500)")).rows.map((r) => r.v);
  await Promise.all(allocators.map((a) => a.close()));
  const theirs = await Promise.all(children);
  for (const [i, vals] of theirs.entries()) {
    assert.equal(vals.length, PER_CHILD);
    increasing(vals, `child ${i}`);
  }
  const every = [...mine, ...core, ...theirs.flat()];
  assert.equal(every.length, 30000 + 500 + 3 * PER_CHILD);
  assert.equal(new Set(every).size, every.length, 'a value was handed out twice');
});

test('a sequence a block cannot serve is refused, naming it and why', async () => {
  for (const [seq, why] of [['js_block.by2', 'INCREMENT'], ['js_block.cyc', 'CYCLE'], ['js_block.unl', 'UNLOGGED'],
    ['js_block.nosuch', 'js_block.nosuch']]) {
    await assert.rejects(cid.BlockAllocator.open(seq), (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.code, 'CHRONOID_EBLOCK_DB', e.message);
      assert.ok(e.message.includes(`"${seq}"`) && e.message.toLowerCase().includes(why.toLowerCase()), e.message);
      // Refused at once: nothing was waited for.
      assert.ok(!/in time|timed out/.test(e.message), e.message);
      return true;
    });
  }
  await assert.rejects(cid.BlockAllocator.open('s', { conninfo: 'host=/nonexistent' }), (e) =>
    e.code === 'CHRONOID_EBLOCK_DB' && /"s"/.test(e.message));
});

test('bad options throw TypeError or RangeError naming the value, before connecting', async () => {
  const bad = [
    [{ targetMs: -1 }, RangeError, 'targetMs -1'],
    [{ minSize: 2.5 }, RangeError, 'minSize 2.5'],
    [{ maxSize: 2 ** 64 }, RangeError, 'maxSize 1.8446744073709552e+19'],
    [{ initialSize: NaN }, RangeError, 'initialSize NaN'],
    [{ targetMs: 5 }, RangeError, 'target 5 ms'],
    [{ targetMs: 1e12 }, RangeError, 'target 1000000000000 ms'],
    [{ minSize: 10, maxSize: 5 }, RangeError, '10 .. 5'],
    [{ maxSize: 2e9 }, RangeError, '2000000000'],
    [{ prefetchPct: 100 }, RangeError, 'prefetch at 100 %'],
    [{ prefetchPct: 2 ** 40 }, RangeError, 'prefetch at 1000 %'],
    [{ waitMs: 86400001 }, RangeError, 'wait 86400001 ms'],
    [{ timeoutMs: 99 }, RangeError, 'timeout 99 ms'],
    [{ waitMs: '5' }, TypeError, 'waitMs must be a number, got a string'],
    [{ conninfo: 5 }, TypeError, 'conninfo must be a string, got a number'],
    [{ target: 5 }, TypeError, '"target"'],
  ];
  // A conninfo nobody listens at: a check that connected would fail otherwise.
  for (const [opts, cls, words] of bad) {
    await assert.rejects(cid.BlockAllocator.open('js_block.s', { conninfo: 'host=/nonexistent', ...opts }), (e) => {
      assert.ok(e instanceof cls, `${JSON.stringify(opts)}: ${e.name} ${e.message}`);
      assert.ok(e.message.includes(words), `${JSON.stringify(opts)}: "${e.message}" should name ${words}`);
      return true;
    });
  }
  await assert.rejects(cid.BlockAllocator.open(42), (e) => e instanceof TypeError && /got a number/.test(e.message));
  await assert.rejects(cid.BlockAllocator.open(''), (e) => e instanceof RangeError && /no sequence/.test(e.message));
  await assert.rejects(cid.BlockAllocator.open('js_block.s', null), TypeError);
  assert.throws(() => new cid.BlockAllocator(), (e) => e instanceof TypeError && /BlockAllocator\.open/.test(e.message));
});

test('a sequence that runs out hands out what is left, then says so', async () => {
  const a = await cid.BlockAllocator.open('js_block.small', { minSize: 1, initialSize: 16, waitMs: 2000 });
  const vals = [];
  let err;
  for (;;) {
    try {
      vals.push(a.next());
    } catch (e) {
      err = e;
      break;
    }
  }
  assert.deepEqual(vals, Array.from({ length: 20 }, (_, i) => BigInt(i + 1)));
  assert.equal(err.code, 'CHRONOID_EBLOCK_EXHAUSTED', err.message);
  assert.ok(err.message.includes('"js_block.small"'), err.message);
  await assert.rejects(a.nextAsync(), (e) => e.code === 'CHRONOID_EBLOCK_EXHAUSTED');
  await a.close();
});

test('after close() every call refuses; close() again is a no-op', async () => {
  const a = await cid.BlockAllocator.open('js_block.s');
  assert.equal(typeof a.next(), 'bigint');
  const p = a.close();
  assert.throws(() => a.next(), (e) => e.code === 'CHRONOID_ECLOSED' && e.message.includes('"js_block.s"'));
  assert.throws(() => a.stats(), (e) => e.code === 'CHRONOID_ECLOSED');
  await assert.rejects(a.nextAsync(), (e) => e.code === 'CHRONOID_ECLOSED');
  await p;
  await a.close();
});

test('nextAsync() waiting for a block leaves the event loop running', async () => {
  const a = await cid.BlockAllocator.open('js_block.locked', { minSize: 1, maxSize: 1, initialSize: 1, prefetchPct: 0 });
  const locker = new Client();
  await locker.connect();
  // ALTER SEQUENCE holds a lock that nextval_block()'s conflicts with,
  // until the transaction ends: no block can be reserved meanwhile.
  await locker.query('BEGIN; ALTER SEQUENCE js_block.locked INCREMENT 1');
  const before = [];
  while (a.stats().inHand > 0)
    before.push(a.next());
  let ticks = 0;
  let settled = false;
  const timer = setInterval(() => { ticks++; }, 10);
  const p = a.nextAsync().finally(() => { settled = true; });
  await sleep(500);
  const ticksWhileWaiting = ticks;
  const waited = !settled;
  await locker.query('COMMIT');
  const v = await p;
  clearInterval(timer);
  assert.ok(waited, 'nextAsync() settled while no block could be reserved');
  assert.ok(ticksWhileWaiting >= 5, `only ${ticksWhileWaiting} timer ticks in 500 ms of waiting`);
  assert.ok(before.every((x) => v > x), `${v} after ${before}`);
  assert.ok(a.stats().waits >= 1);

  // close() while a nextAsync() waits: it closes once that call is answered.
  await locker.query('BEGIN; ALTER SEQUENCE js_block.locked INCREMENT 1');
  while (a.stats().inHand > 0)
    a.next();
  const last = a.nextAsync();
  const closing = a.close();
  assert.throws(() => a.next(), (e) => e.code === 'CHRONOID_ECLOSED');
  await sleep(100);
  await locker.query('COMMIT');
  assert.ok(await last > v);
  await closing;
  await locker.end();
});

test('an allocator dropped without close() is freed when collected: its connection ends', async () => {
  require('node:v8').setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc');
  const backends = async () => Number((await client.query(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'chronoid-block'")).rows[0].n);
  const before = await backends();
  let a = await cid.BlockAllocator.open('js_block.s');
  assert.equal(typeof a.next(), 'bigint');
  assert.equal(await backends(), before + 1);
  a = null;
  let now = before + 1;
  for (let i = 0; i < 100 && now > before; i++) {
    gc();
    await sleep(50);
    now = await backends();
  }
  assert.equal(now, before, 'the dropped allocator still holds its connection');
});
