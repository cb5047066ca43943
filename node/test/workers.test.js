// workers.test.js — worker_threads of one process share the generators:
// several workers mint in parallel from "their own" Snowflake object for
// one node number and from the module's UUIDv7 and monotonic ULID
// generators; every ID is unique and each worker's IDs strictly increase,
// and a single global order exists (a merge of all of them by value has no
// ties).  Each worker also proves that the claim is per process: its
// objects share the main thread's claim instead of being refused.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { addonOnly } = require('./helpers');
const cid = require('..');

const WORKERS = 4;
const PER_WORKER = 50000;

const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const cid = require(${JSON.stringify(path.resolve(__dirname, '..'))});
const sf = new cid.Snowflake({ node: 42, scope: 'workers' });
const n = workerData.n;
const ids = new BigInt64Array(n);
const v7 = new Array(n / 10);
const ul = new Array(n / 10);
// Batches and single calls mixed, as an application would.
let i = 0;
while (i < n) {
  if (i % 1000 === 0 && i + 500 <= n) {
    ids.set(sf.batch(500), i);
    i += 500;
  } else {
    ids[i++] = sf.next();
  }
}
for (let k = 0; k < n / 10; k++) {
  v7[k] = cid.uuidv7();
  ul[k] = cid.monotonicUlid();
}
parentPort.postMessage({ ids, v7, ul, claimPath: sf.claimPath });
sf.close();
`;

function increasing(xs, what) {
  for (let i = 1; i < xs.length; i++)
    if (!(xs[i] > xs[i - 1]))
      assert.fail(`${what}: ${xs[i]} at ${i} is not above ${xs[i - 1]}`);
}

test(`${WORKERS} workers share one generator per node: unique, strictly increasing`, { skip: addonOnly }, async () => {
  // The main thread holds the node first: the workers join its claim.
  const main = new cid.Snowflake({ node: 42, scope: 'workers' });
  const results = await Promise.all(Array.from({ length: WORKERS }, () => new Promise((resolve, reject) => {
    const w = new Worker(workerCode, { eval: true, workerData: { n: PER_WORKER } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  const all = new BigInt64Array(WORKERS * PER_WORKER);
  const v7 = [];
  const ul = [];
  results.forEach((r, i) => {
    assert.equal(r.claimPath, main.claimPath);
    increasing(r.ids, `worker ${i} snowflakes`);
    increasing(r.v7, `worker ${i} uuidv7`);
    increasing(r.ul, `worker ${i} monotonic ulid`);
    all.set(r.ids, i * PER_WORKER);
    v7.push(...r.v7);
    ul.push(...r.ul);
  });
  all.sort();
  for (let i = 1; i < all.length; i++)
    assert.ok(all[i] !== all[i - 1], `duplicate snowflake ${all[i]}`);
  assert.equal(new Set(v7).size, v7.length, 'uuidv7 duplicates');
  assert.equal(new Set(ul).size, ul.length, 'ulid duplicates');
  // After the workers, the main thread's next ID is above all of theirs.
  assert.ok(main.next() > all[all.length - 1]);
  main.close();
});
