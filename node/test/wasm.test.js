// wasm.test.js — what only the WebAssembly build has (the shared suites
// run against it too, under CHRONOID_BUILD=wasm): it refuses to mint
// Snowflakes under a host claim it cannot make, takes its clock and random
// bytes only from the host, shares a (scope, node) generator between two
// copies of the package, carries a number's last tick over to new
// settings, and stands in under Node where no addon loads.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { throwsCode, build } = require('./helpers');
const cid = require('..');
const { wasmImports, wasmNative } = require('../lib/wasm-native.cjs');
const { makeApi } = require('../lib/api.cjs');

const pkg = path.resolve(__dirname, '..');
const wasmFile = path.join(pkg, 'lib', 'chronoid.wasm');
const skip = build !== 'wasm' && "the WebAssembly build's own tests: test/run.sh wasm";

// Another instance of the module, as a second copy of the package makes.
function instance(randomFill = (u8) => require('node:crypto').randomFillSync(u8)) {
  let inst = null;
  inst = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasmFile)),
    wasmImports({ randomFill }, () => inst.exports.memory));
  const alloc = (n) => Buffer.allocUnsafe(n);
  return makeApi(wasmNative(inst, alloc), alloc);
}

test('Snowflake: no host claim and no guessed node number', { skip }, () => {
  for (const options of [{ node: 1 }, { node: 1, claim: true }, { node: 1, scope: 'x', claim: true }])
    throwsCode(() => new cid.Snowflake(options), Error, 'CHRONOID_ECLAIM', 'no node claims', 'claim: false',
      'node number');
  throwsCode(() => new cid.Snowflake({ node: 1, claim: false, claimDir: '/tmp/claims' }), Error, 'CHRONOID_ECLAIM',
    '"/tmp/claims"');
  throwsCode(() => new cid.Snowflake({ claim: false }), TypeError, 'ERR_INVALID_ARG_TYPE', 'node', 'undefined');
  const sf = new cid.Snowflake({ node: 1, claim: false, scope: 'explicit' });
  assert.equal(sf.claimPath, null);
  assert.equal(sf.inspect(sf.next()).node, 1);
  sf.close();
  assert.equal(cid.hasLease, false);
});

test('leases and block allocators: refused, they need libpq', { skip }, async () => {
  await assert.rejects(cid.leaseSnowflake({ conninfo: '' }), { code: 'CHRONOID_ENOLEASE', message: /node leases/ });
  await assert.rejects(cid.leaseSetup({ conninfo: '' }), { code: 'CHRONOID_ENOLEASE' });
  await assert.rejects(cid.BlockAllocator.open('s', {}), { code: 'CHRONOID_ENOLEASE', message: /block allocators/ });
});

test('the module imports the clock, random bytes and inert WASI calls, nothing else', { skip }, () => {
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(wasmFile)))
    .map((i) => `${i.module}.${i.name}`).sort();
  assert.deepEqual(imports, ['chronoid.mono_ms', 'chronoid.now_ms', 'chronoid.random',
    'wasi_snapshot_preview1.clock_time_get', 'wasi_snapshot_preview1.fd_close', 'wasi_snapshot_preview1.fd_seek',
    'wasi_snapshot_preview1.fd_write', 'wasi_snapshot_preview1.sched_yield']);
});

test('random bytes come from the host, the clock from Date.now()', { skip }, () => {
  const zeros = instance((u8) => u8.fill(0));
  assert.equal(zeros.uuidv4(), '00000000-0000-4000-8000-000000000000');
  const ones = instance((u8) => u8.fill(0xff));
  assert.equal(ones.uuidv4(), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  let broken = false;
  const failing = instance((u8) => {
    if (broken)
      throw new Error('no entropy');
    u8.fill(1);
  });
  assert.equal(failing.uuidv4(), '01010101-0101-4101-8101-010101010101');
  broken = true;
  // 16,000 bytes: more than the module's pool of 4,096 holds, so drawn
  // from the host at once (a smaller batch is served from the pool).
  throwsCode(() => failing.uuidv4Batch(1000), Error, 'CHRONOID_ERANDOM', 'UUIDv4');
  // The generators start at the first ID (edge runtimes give no random
  // bytes before a request): a source failing from the start fails that.
  const never = instance(() => {
    throw new Error('no entropy');
  });
  throwsCode(() => never.uuidv7(), Error, 'CHRONOID_ERANDOM', 'cannot start the generators');
  const now = Date.now;
  try {
    for (const ms of [1700000000000, 1700000000001, 2000000000000]) {
      Date.now = () => ms;
      assert.equal(cid.inspect(cid.uuidv7()).unixMs, ms);
      assert.equal(cid.inspect(cid.ulid()).unixMs, ms);
    }
    Date.now = () => NaN;
    throwsCode(() => cid.ulid(), Error, 'CHRONOID_ECLOCK');
    // A Snowflake's next() reads Date.now() itself and hands the reading
    // in; the reading serves that call only, never a later one.
    const sf = new cid.Snowflake({ node: 3, scope: 'clock-in', claim: false, layout: 'twitter' });
    Date.now = () => 1800000000000;
    assert.equal(sf.inspect(sf.next()).unixMs, 1800000000000);
    Date.now = () => NaN;
    throwsCode(() => sf.next(), Error, 'CHRONOID_ECLOCK');
    Date.now = now;
    const t = Date.now();
    assert.ok(Math.abs(cid.inspect(cid.ulid()).unixMs - t) < 1000, 'a later call reads the clock anew');
    sf.close();
    // The handed-in reading meets the policies as the driver's own would:
    // a clock 5 ms back runs ahead or fails, and a tick used up under a
    // frozen clock waits until maxWaitMs, then times out (no hang).
    const frozen = 1800000100000;
    Date.now = () => frozen;
    const ahead = new cid.Snowflake({ node: 4, scope: 'clock-in', claim: false, layout: 'twitter' });
    const strict = new cid.Snowflake({ node: 5, scope: 'clock-in', claim: false, layout: 'twitter',
      onClockBehind: 'fail' });
    const a1 = ahead.next();
    strict.next();
    Date.now = () => frozen - 5;
    assert.ok(ahead.next() > a1, 'run-ahead: still increasing with the clock 5 ms back');
    throwsCode(() => strict.next(), Error, 'CHRONOID_ECLOCK_BACKWARDS');
    Date.now = () => frozen + 10;
    const waits = new cid.Snowflake({ node: 6, scope: 'clock-in', claim: false, layout: 'twitter',
      maxWaitMs: 20 });
    const got = waits.batch(4096);
    assert.equal(got.length, 4096);
    throwsCode(() => waits.next(), Error, 'CHRONOID_EWAIT_TIMEOUT');
    for (const g of [ahead, strict, waits])
      g.close();
  } finally {
    Date.now = now;
  }
});

test('two copies of the package in one process share a (scope, node) generator', { skip }, () => {
  const a = instance();
  const b = instance();
  const x = new a.Snowflake({ node: 40, scope: 'copies', claim: false });
  const y = new b.Snowflake({ node: 40, scope: 'copies', claim: false });
  let prev = 0n;
  for (let i = 0; i < 5000; i++) {
    const id = (i % 3 ? x : y).next();
    assert.ok(id > prev, `${id} after ${prev}`);
    prev = id;
  }
  const batch = y.batch(1000);
  assert.ok(batch[0] > prev && batch.every((id, i) => i === 0 || id > batch[i - 1]));
  throwsCode(() => new b.Snowflake({ node: 40, scope: 'copies', claim: false, layout: 'twitter' }), Error,
    'CHRONOID_ENODE_HELD', 'already in use in this process');
  x.close();
  y.close();
});

test('a number all of whose objects closed starts after its last tick under new settings', { skip }, () => {
  // Randomized: layouts of other ticks and epochs, the old generator
  // pushed up to 5 s ahead of the clock by borrowed ticks.
  const layouts = ['pgedge', 'twitter', 'sonyflake', 'time:41,node:10,seq:12;tick=100ms'];
  for (let round = 0; round < 40; round++) {
    const scope = `carry-${round}`;
    const first = layouts[round % layouts.length];
    const second = layouts[(round + 1 + (round >> 2)) % layouts.length];
    if (first === second)
      continue;
    const a = new cid.Snowflake({ node: 7, scope, claim: false, layout: first, onExhausted: 'borrow',
      maxBorrowTicks: 5000 });
    const ids = a.batch(1 + Math.floor(Math.random() * 200000));
    const last = a.inspect(ids[ids.length - 1]).unixMs;
    a.close();
    // Allowed to run ahead of the clock as far as the old one borrowed.
    const b = new cid.Snowflake({ node: 7, scope, claim: false, layout: second, maxDriftMs: 600000 });
    const next = b.inspect(b.next()).unixMs;
    assert.ok(next > last, `round ${round}: ${first} -> ${second}: ${next} after ${last}`);
    b.close();
  }
});

test('the ES module entry for the WebAssembly build has index.mjs\'s names', { skip }, () => {
  const names = (file) => [...fs.readFileSync(path.join(pkg, 'lib', file), 'utf8')
    .match(/export const \{([^}]*)\}/)[1].matchAll(/(\w+),/g)].map((m) => m[1]);
  assert.deepEqual(names('wasm.mjs'), names('index.mjs'));
  assert.deepEqual([...names('index.mjs')].sort(), Object.keys(cid).sort());
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    'import * as c from "chronoid/wasm"; console.log(JSON.stringify([c.build, c.inspect(c.uuidv7()).version]))'],
  { cwd: pkg, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['wasm', 7]);
});

test('lib/api.cjs and lib/wasm-native.cjs are what scripts/cjs.js makes of their sources', { skip }, () => {
  execFileSync(process.execPath, [path.join(pkg, 'scripts', 'cjs.js'), '--check'], { stdio: 'pipe' });
});

test('under Node without an addon, require("chronoid") is the WebAssembly build', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-noaddon-'));
  try {
    const copy = path.join(dir, 'node_modules', 'chronoid');
    fs.mkdirSync(copy, { recursive: true });
    for (const f of ['package.json', 'lib'])
      fs.cpSync(path.join(pkg, f), path.join(copy, f), { recursive: true });
    const env = { ...process.env };
    delete env.CHRONOID_BUILD;
    const out = execFileSync(process.execPath, ['-e',
      'const c = require("chronoid"); console.log(JSON.stringify([c.build, c.ulid().length]))'],
    { cwd: dir, env, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), ['wasm', 26]);
    // Asked for by name, the missing addon is an error, not a silent stand-in.
    assert.throws(() => execFileSync(process.execPath, ['-e', 'require("chronoid")'],
      { cwd: dir, env: { ...env, CHRONOID_BUILD: 'addon' }, stdio: 'pipe' }),
    (e) => /CHRONOID_ENOADDON/.test(String(e.stderr)) && /npm rebuild chronoid --build-from-source/.test(String(e.stderr)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
