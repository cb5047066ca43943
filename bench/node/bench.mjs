// bench.mjs — chronoid's Node.js package against its npm peers, in one
// process: every case runs ROUNDS times, the cases interleaved (round 1 of
// every case, then round 2, ...), so a slow moment of the machine hits all
// of them alike; the table shows the median ns per ID and, per kind, how
// many times faster than the fastest peer chronoid is.  Run by `make
// bench-node`, which installs the peers (bench/node/package.json) into
// build/bench-node: `node --expose-gc bench/node/bench.mjs PEER_DIR`.
//
// It also counts, untimed, the duplicates each Snowflake generator makes
// when called as fast as it can: a generator that beats the layout's
// 4096 IDs per millisecond by wrapping its sequence is not faster, it is
// wrong, and the table says so.
import { createRequire } from 'node:module';
import path from 'node:path';
import crypto from 'node:crypto';

const peerDir = path.resolve(process.argv[2] ?? 'build/bench-node');
const require = createRequire(path.join(peerDir, 'package.json'));
const here = path.dirname(new URL(import.meta.url).pathname);
const chronoid = createRequire(import.meta.url)(path.join(here, '..', '..', 'node'));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SINGLE_OPS = Number(process.env.BENCH_OPS ?? 200000);
const BATCH = 1000;

const uuid = await import(require.resolve('uuid'));
const { uuidv7: uuidv7Peer } = require('uuidv7');
const ulidPkg = require('ulid');
const ulidx = require('ulidx');
const { Snowflake: Sapphire } = require('@sapphire/snowflake');
const { Snowflake: NodejsSnowflake } = require('nodejs-snowflake');

const epoch = Date.UTC(2023, 0, 1);
const claimDir = process.env.CHRONOID_CLAIM_DIR ?? path.join(peerDir, 'claims');
const sf = new chronoid.Snowflake({ node: 1, claimDir, scope: 'bench' });
// The same generator code on a layout with room for more than 4096 IDs per
// ms: what one call costs when the sequence never runs out.
const sfWide = new chronoid.Snowflake({ node: 1, claimDir, scope: 'bench-wide',
  layout: 'time:41,node:2,seq:20;epoch=2023-01-01;tick=1ms' });
const sapphire = new Sapphire(epoch);
const nodejsSf = new NodejsSnowflake({ custom_epoch: epoch, instance_id: 1 });
const ulidMono = ulidPkg.monotonicFactory();
const ulidxMono = ulidx.monotonicFactory();

// [kind, name, peer?, ids per call, fn]
const cases = [
  ['uuidv4', 'crypto.randomUUID()', true, 1, () => crypto.randomUUID()],
  ['uuidv4', 'uuid v4()', true, 1, () => uuid.v4()],
  ['uuidv4', 'chronoid uuidv4()', false, 1, () => chronoid.uuidv4()],
  ['uuidv7', 'uuid v7()', true, 1, () => uuid.v7()],
  ['uuidv7', 'uuidv7 uuidv7()', true, 1, () => uuidv7Peer()],
  ['uuidv7', 'chronoid uuidv7()', false, 1, () => chronoid.uuidv7()],
  ['uuidv7', 'chronoid uuidv7Bytes()', false, 1, () => chronoid.uuidv7Bytes()],
  ['uuidv7', 'chronoid uuidv7Batch(1000) strings', false, BATCH, () => chronoid.uuidv7Batch(BATCH)],
  ['uuidv7', 'chronoid uuidv7Buffer(1000) bytes', false, BATCH, () => chronoid.uuidv7Buffer(BATCH)],
  ['ulid', 'ulid monotonicFactory()', true, 1, () => ulidMono()],
  ['ulid', 'ulidx monotonicFactory()', true, 1, () => ulidxMono()],
  ['ulid', 'chronoid monotonicUlid()', false, 1, () => chronoid.monotonicUlid()],
  ['ulid', 'chronoid ulid() (plain)', false, 1, () => chronoid.ulid()],
  ['ulid', 'chronoid monotonicUlidBatch(1000) strings', false, BATCH, () => chronoid.monotonicUlidBatch(BATCH)],
  ['ulid', 'chronoid monotonicUlidBuffer(1000) bytes', false, BATCH, () => chronoid.monotonicUlidBuffer(BATCH)],
  ['snowflake', '@sapphire/snowflake generate()', true, 1, () => sapphire.generate()],
  ['snowflake', 'nodejs-snowflake getUniqueID()', true, 1, () => nodejsSf.getUniqueID()],
  ['snowflake', 'chronoid Snowflake next() (pgedge)', false, 1, () => sf.next()],
  ['snowflake', 'chronoid Snowflake next() (20-bit seq)', false, 1, () => sfWide.next()],
  ['snowflake', 'chronoid batch(1000) (pgedge)', false, BATCH, () => sf.batch(BATCH)],
  ['snowflake', 'chronoid batch(1000) (20-bit seq)', false, BATCH, () => sfWide.batch(BATCH)],
];

let sink = 0;
// The garbage of the case before is collected before each timed run (with
// node --expose-gc, as make bench-node runs it), so that no case pays for
// another's strings; batches make 5x the IDs of single calls per run, so
// that one collection inside the run weighs as little as in the others.
const collect = globalThis.gc ?? (() => {});
function runOnce(ids, fn) {
  const calls = ids === 1 ? SINGLE_OPS : Math.max(1, Math.round(5 * SINGLE_OPS / ids));
  collect();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const v = fn();
    if (v === undefined)
      sink++;
  }
  const t1 = process.hrtime.bigint();
  return Number(t1 - t0) / (calls * ids);
}

const samples = cases.map(() => []);
// Warm-up: one untimed round so that every case is compiled.
cases.forEach(([, , , ids, fn]) => runOnce(ids, fn));
for (let r = 0; r < ROUNDS; r++)
  cases.forEach(([, , , ids, fn], i) => samples[i].push(runOnce(ids, fn)));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const med = samples.map(median);
const fastestPeer = {};
cases.forEach(([kind, , peer], i) => {
  if (peer && (fastestPeer[kind] === undefined || med[i] < fastestPeer[kind]))
    fastestPeer[kind] = med[i];
});

// Duplicates per 1,000,000 IDs minted back to back (not timed).
function duplicates(fn, n = 1000000) {
  const ids = new BigInt64Array(n);
  for (let i = 0; i < n; i++)
    ids[i] = BigInt.asIntN(64, fn());
  ids.sort();
  let d = 0;
  for (let i = 1; i < n; i++)
    if (ids[i] === ids[i - 1])
      d++;
  return d;
}
const dups = {
  '@sapphire/snowflake generate()': duplicates(() => sapphire.generate()),
  'nodejs-snowflake getUniqueID()': duplicates(() => nodejsSf.getUniqueID()),
  'chronoid Snowflake next() (pgedge)': duplicates(() => sf.next()),
};

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
console.log(`# node ${process.version}, ${ROUNDS} interleaved rounds of ~${SINGLE_OPS} IDs per case; ` +
  `median ns per ID; "vs peer": the fastest peer's time / this one's (higher is faster)`);
console.log(`${pad('kind', 10)} ${pad('case', 44)} ${lpad('ns/ID', 9)} ${lpad('vs peer', 8)}  note`);
cases.forEach(([kind, name, peer], i) => {
  const ratio = fastestPeer[kind] / med[i];
  const notes = [];
  if (peer)
    notes.push('peer');
  if (dups[name] !== undefined)
    notes.push(`${dups[name]} duplicates per 1M`);
  console.log(`${pad(kind, 10)} ${pad(name, 44)} ${lpad(med[i].toFixed(1), 9)} ${lpad(ratio.toFixed(2) + 'x', 8)}  ${notes.join(', ')}`);
});
sf.close();
sfWide.close();
if (sink < 0)
  console.log(sink);
