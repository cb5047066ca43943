#!/usr/bin/env node
// build.js — compile the addon build/chronoid.node from the C glue in src/
// and the core's own sources (../src and ../bind in the repository, deps/chronoid/ in
// the npm tarball: the same files, copied by `npm pack`).  It runs as the
// package's install script and needs a C compiler and the Node-API headers:
// those of the running node (<prefix>/include/node) or, when the
// installation has none, the npm package node-api-headers.  Nothing is
// downloaded here.  Where libpq's header is (libpq-dev), node leases and
// block allocators are compiled in from libchronoid_lease's own sources
// (db/lease, db/pq) and the addon links libpq.  Environment: CC (default
// cc), CFLAGS (default -O2), LDFLAGS (for the link), CHRONOID_WERROR=1
// (warnings as errors), CHRONOID_SAN (e.g. address), CHRONOID_NO_LEASE=1
// (build without leases), CHRONOID_BUILD_DIR (default build/).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { spawn } = require('node:child_process');

const pkg = path.resolve(__dirname, '..');
// CHRONOID_BUILD_DIR: another output directory (prebuild.js's, one per target).
const out = process.env.CHRONOID_BUILD_DIR ? path.resolve(process.env.CHRONOID_BUILD_DIR) : path.join(pkg, 'build');

function fail(msg) {
  process.stderr.write(`chronoid: ${msg}\n`);
  process.exit(1);
}

// The core: the repository's when the package sits in it, else the copy.
function coreDir() {
  for (const dir of [path.resolve(pkg, '..'), path.join(pkg, 'deps', 'chronoid')]) {
    if (fs.existsSync(path.join(dir, 'include', 'chronoid.h')) &&
        fs.existsSync(path.join(dir, 'src', 'snowflake_gen.c')))
      return dir;
  }
  fail('the core sources (src/, include/chronoid.h) are missing: neither ../ nor deps/chronoid/ has them');
}

function napiHeaders() {
  const own = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  if (fs.existsSync(path.join(own, 'node_api.h')))
    return own;
  try {
    const dir = path.join(path.dirname(require.resolve('node-api-headers/package.json')), 'include');
    if (fs.existsSync(path.join(dir, 'node_api.h')))
      return dir;
  } catch { /* not installed: the message below */ }
  fail(`no Node-API headers: neither ${own}/node_api.h nor the npm package node-api-headers`);
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: 'inherit' });
    p.on('error', (e) => reject(new Error(`${cmd}: ${e.message}`)));
    p.on('exit', (code) => code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)));
  });
}

function newer(target, sources) {
  if (!fs.existsSync(target))
    return true;
  const t = fs.statSync(target).mtimeMs;
  return sources.some((s) => fs.statSync(s).mtimeMs > t);
}

// libpq's header, for node leases (db/lease): pg_config's include
// directory, else Debian's; null when there is none (no leases then).
function libpqInclude() {
  const dirs = ['/usr/include/postgresql', '/usr/local/include', '/usr/include'];
  try {
    const { execFileSync } = require('node:child_process');
    dirs.unshift(execFileSync('pg_config', ['--includedir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch { /* no pg_config: the usual places */ }
  return dirs.find((d) => d && fs.existsSync(path.join(d, 'libpq-fe.h'))) ?? null;
}

async function main() {
  const core = coreDir();
  const headers = napiHeaders();
  const cc = process.env.CC || 'cc';
  const cflags = (process.env.CFLAGS || '-O2').split(/\s+/).filter(Boolean);
  const san = process.env.CHRONOID_SAN ? [`-fsanitize=${process.env.CHRONOID_SAN}`] : [];
  // CID_API empty: the addon exports only its Node-API entry point, so two
  // addons that carry libchronoid cannot bind each other's copy.
  const flags = ['-std=c11', '-Wall', '-Wextra', '-Wmissing-prototypes', '-fPIC', '-pthread',
    '-fvisibility=hidden', '-DCID_API=', `-I${path.join(core, 'include')}`,
    `-I${path.join(core, 'src')}`, `-I${path.join(core, 'bind')}`, `-I${headers}`, ...cflags, ...san];
  if (process.env.CHRONOID_WERROR === '1')
    flags.push('-Werror');

  // The core, and bind/: what every language's package decides alike.
  const coreSrcs = ['src', 'bind'].flatMap((d) => fs.readdirSync(path.join(core, d))
    .filter((f) => f.endsWith('.c')).sort().map((f) => path.join(core, d, f)));
  // Leases: libchronoid_lease's own sources, where libpq is (CHRONOID_NO_LEASE=1: never).
  const pq = process.env.CHRONOID_NO_LEASE === '1' ? null : libpqInclude();
  const leaseDirs = [path.join(core, 'db', 'lease'), path.join(core, 'db', 'pq')];
  if (pq && leaseDirs.every((d) => fs.existsSync(d))) {
    flags.push('-DCHRONOID_NODE_LEASE', '-DCID_BIND_LEASE', `-I${pq}`, ...leaseDirs.map((d) => `-I${d}`));
    for (const d of leaseDirs)
      coreSrcs.push(...fs.readdirSync(d).filter((f) => f.endsWith('.c')).sort().map((f) => path.join(d, f)));
  }
  const libs = pq ? ['-lpq'] : [];
  const glueSrcs = ['addon.c', 'convert.c', 'ids.c', 'parse.c', 'snowflake.c', 'lease.c', 'block.c'].map((f) => path.join(pkg, 'src', f));
  const headersDeps = [path.join(core, 'include', 'chronoid.h'), path.join(pkg, 'src', 'addon.h'),
    path.join(core, 'bind', 'bind_internal.h'),
    ...(pq ? [path.join(core, 'include', 'chronoid_lease.h'), path.join(core, 'db', 'lease', 'block_internal.h')] : []),
    ...fs.readdirSync(path.join(core, 'src')).filter((f) => f.endsWith('.h'))
      .map((f) => path.join(core, 'src', f))];
  const stamp = path.join(out, 'flags');
  const flagText = JSON.stringify([cc, flags]);
  fs.mkdirSync(path.join(out, 'obj'), { recursive: true });
  const flagsChanged = !fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== flagText;

  const jobs = [];
  const objs = [];
  for (const src of [...coreSrcs, ...glueSrcs]) {
    const obj = path.join(out, 'obj', (glueSrcs.includes(src) ? 'glue-' : 'core-') + path.basename(src, '.c') + '.o');
    objs.push(obj);
    if (flagsChanged || newer(obj, [src, ...headersDeps]))
      jobs.push([src, obj]);
  }
  const width = Math.max(1, Math.min(4, (os.availableParallelism?.() ?? os.cpus().length)));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [src, obj] = jobs[next++];
      await run(cc, [...flags, '-c', src, '-o', obj]);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  fs.writeFileSync(stamp, flagText);

  const target = path.join(out, 'chronoid.node');
  if (jobs.length > 0 || newer(target, objs)) {
    const ldflags = (process.env.LDFLAGS || '').split(/\s+/).filter(Boolean);
    await run(cc, ['-shared', '-pthread', ...san, ...ldflags, '-o', target + '.tmp', ...objs, ...libs]);
    fs.renameSync(target + '.tmp', target);
  }
}

main().catch((e) => fail(e.message));
