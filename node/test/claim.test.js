// claim.test.js — the node claim between processes, as Node's cluster
// module makes them (forked workers, each a process of its own): workers
// all given one node number get one success and clear refusals naming the
// holder's pid; workers given distinct numbers all succeed; a holder that
// dies frees its number for the next process.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const cluster = require('node:cluster');
const { spawn } = require('node:child_process');
const { addonOnly } = require('./helpers');

const pkg = path.resolve(__dirname, '..');
const WORKERS = 4;

// Each cluster worker tries its node number and reports; the winners hold
// their claim until told to exit, so that the refusals happen while it is held.
const workerMain = `
const cid = require(${JSON.stringify(pkg)});
let sf = null;
try {
  sf = new cid.Snowflake({ node: Number(process.env.NODE_NUMBER), scope: 'cluster' });
  process.send({ ok: true, pid: process.pid, id: sf.nextString(), claimPath: sf.claimPath });
} catch (e) {
  process.send({ ok: false, pid: process.pid, code: e.code, message: e.message, holderPid: e.holderPid });
}
process.on('message', (m) => { if (m === 'exit') process.exit(0); });
`;

async function runCluster(nodes) {
  cluster.setupPrimary({ execArgv: ['-e', workerMain], silent: false });
  const workers = nodes.map((n) => cluster.fork({ NODE_NUMBER: String(n) }));
  const reports = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('exit', (code) => reject(new Error(`worker exited ${code} before reporting`)));
  })));
  await Promise.all(workers.map((w) => new Promise((resolve) => {
    w.removeAllListeners('exit');
    w.once('exit', resolve);
    w.send('exit');
  })));
  return reports;
}

test(`a cluster of ${WORKERS} workers given one node number: one claims it, the rest are refused`, { skip: addonOnly }, async () => {
  const reports = await runCluster(Array(WORKERS).fill(7));
  const won = reports.filter((r) => r.ok);
  const refused = reports.filter((r) => !r.ok);
  assert.equal(won.length, 1, JSON.stringify(reports));
  assert.equal(refused.length, WORKERS - 1);
  for (const r of refused) {
    assert.equal(r.code, 'CHRONOID_ENODE_HELD');
    assert.equal(r.holderPid, won[0].pid);
    assert.ok(r.message.includes(`node 7 of scope "cluster" is held by process ${won[0].pid}`), r.message);
    assert.ok(r.message.includes('give every process its own node number'), r.message);
  }
});

test(`a cluster of ${WORKERS} workers with their own numbers: all claim, IDs distinct`, { skip: addonOnly }, async () => {
  const reports = await runCluster([1, 2, 3, 4]);
  assert.ok(reports.every((r) => r.ok), JSON.stringify(reports));
  assert.equal(new Set(reports.map((r) => r.id)).size, WORKERS);
  assert.equal(new Set(reports.map((r) => r.claimPath)).size, WORKERS);
});

test('a killed holder frees its number; claim: false takes none', { skip: addonOnly }, async () => {
  const holder = spawn(process.execPath, ['-e', workerMain], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, NODE_NUMBER: '9' } });
  const first = await new Promise((resolve) => holder.once('message', resolve));
  assert.equal(first.ok, true);
  const cid = require('..');
  assert.throws(() => new cid.Snowflake({ node: 9, scope: 'cluster' }), (err) => {
    assert.equal(err.code, 'CHRONOID_ENODE_HELD');
    assert.equal(err.holderPid, first.pid);
    return true;
  });
  // Without a claim nothing stops it: the caller said it knows better.
  const unclaimed = new cid.Snowflake({ node: 9, scope: 'cluster', claim: false });
  assert.equal(unclaimed.claimPath, null);
  unclaimed.close();
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  const sf = new cid.Snowflake({ node: 9, scope: 'cluster' });
  assert.ok(sf.claimPath.endsWith('/cluster.9.lock'));
  sf.close();
});
