// handover.test.js — a node number handed from one holder to the next never
// repeats an ID: a generator made per job within one tick, claimed or not;
// a number freed by one process and taken by the next; two copies of the
// addon in one process (npm nests a second copy when two dependencies want
// different versions) hold one claim between them, and neither copy's
// close() drops the other's.  A relative claim directory is refused.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { throwsCode, addonOnly } = require('./helpers');
const cid = require('..');

const pkg = path.resolve(__dirname, '..');
const JOBS = 3000;

for (const claim of [true, false]) {
  test(`a generator per job (claim: ${claim}): ${JOBS} IDs, no repeat`, { skip: claim && addonOnly }, () => {
    const seen = new Set();
    for (let i = 0; i < JOBS; i++) {
      const sf = new cid.Snowflake({ node: 21, scope: `per-job-${claim}`, claim });
      seen.add(sf.next());
      sf.close();
    }
    assert.equal(seen.size, JOBS);
  });
}

test('a number freed by one process and taken by the next: no repeat', { skip: addonOnly }, () => {
  // Each process makes IDs as fast as it can and prints the last; the next
  // one's first ID must be larger, however soon it starts.
  const script = `
    const cid = require(${JSON.stringify(pkg)});
    const sf = new cid.Snowflake({ node: 22, scope: 'relay' });
    const ids = sf.batch(2000);
    process.stdout.write(ids[0] + ' ' + ids[ids.length - 1]);
  `;
  let last = -1n;
  for (let i = 0; i < 8; i++) {
    const [first, end] = execFileSync(process.execPath, ['-e', script], { env: process.env, encoding: 'utf8' })
      .split(' ').map(BigInt);
    assert.ok(first > last, `process ${i} started at ${first}, the previous one ended at ${last}`);
    last = end;
  }
});

test('two copies of the addon in one process: one claim between them', { skip: addonOnly }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-copies-'));
  try {
    const copies = ['a', 'b'].map((name) => {
      const dir = path.join(root, 'node_modules', name, 'node_modules', 'chronoid');
      fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
      fs.cpSync(path.join(pkg, 'lib'), path.join(dir, 'lib'), { recursive: true });
      fs.copyFileSync(path.join(pkg, 'package.json'), path.join(dir, 'package.json'));
      fs.copyFileSync(path.join(pkg, 'build', 'chronoid.node'), path.join(dir, 'build', 'chronoid.node'));
      return require(dir);
    });
    assert.notEqual(copies[0].Snowflake, copies[1].Snowflake);
    const held = new copies[0].Snowflake({ node: 23, scope: 'copies' });
    const e = throwsCode(() => new copies[1].Snowflake({ node: 23, scope: 'copies' }), Error,
      'CHRONOID_ENODE_HELD', 'node 23 of scope "copies"', '(this process)');
    assert.equal(e.holderPid, process.pid);
    // The second copy's own claims and closes leave the first's alone.
    const other = new copies[1].Snowflake({ node: 24, scope: 'copies' });
    other.close();
    throwsCode(() => new copies[1].Snowflake({ node: 23, scope: 'copies' }), Error, 'CHRONOID_ENODE_HELD');
    const first = held.next();
    held.close();
    // Handed over to the other copy: it starts after the first one's IDs.
    const next = new copies[1].Snowflake({ node: 23, scope: 'copies' });
    assert.ok(next.next() > first);
    next.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a relative claim directory is refused', { skip: addonOnly }, () => {
  throwsCode(() => new cid.Snowflake({ node: 25, claimDir: 'claims' }), Error, 'CHRONOID_EINVAL',
    '"claims" is not an absolute path');
});
