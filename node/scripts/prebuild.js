#!/usr/bin/env node
// prebuild.js — the compiled addons the npm tarball carries, so that
// installing needs no compiler: prebuilds/linux-x64/ and
// prebuilds/linux-arm64/ (glibc), each with chronoid.node (node leases and
// block allocators: links libpq.so.5) and chronoid-nolease.node (loads
// where libpq5 is not installed).  lib/addon.js picks one at load time.
// Built by build.js with Debian's compilers: the machine's cc for its own
// architecture, gcc-x86-64-linux-gnu / gcc-aarch64-linux-gnu for the
// other, linking the other architecture's libpq.so.5 from the Debian
// sysroot of scripts/node-runtimes.sh (CHRONOID_ARM64_SYSROOT,
// CHRONOID_X64_SYSROOT).  Node-API keeps one binary per platform across
// Node.js versions.  npm pack runs it (prepack); `--clean` (postpack)
// removes prebuilds/ again.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const pkg = path.resolve(__dirname, '..');
const dest = path.join(pkg, 'prebuilds');

const TARGETS = {
  x64: { triplet: 'x86_64-linux-gnu', sysroot: process.env.CHRONOID_X64_SYSROOT ?? '' },
  arm64: { triplet: 'aarch64-linux-gnu',
    sysroot: process.env.CHRONOID_ARM64_SYSROOT ?? '/var/cache/chronoid/node/debian-arm64' },
};

function fail(msg) {
  process.stderr.write(`chronoid prebuild: ${msg}\n`);
  process.exit(1);
}

function build(arch, lease) {
  const t = TARGETS[arch];
  const native = process.arch === arch;
  const cc = native ? (process.env.CC || 'cc') : `${t.triplet}-gcc`;
  const dir = path.join(pkg, 'build', 'prebuild', `linux-${arch}-${lease ? 'lease' : 'nolease'}`);
  // -s: no symbols beyond the dynamic ones (a fifth of the size).
  const ldflags = ['-s'];
  if (lease && !native) {
    // The other architecture's libpq.so.5, named as the link expects it.
    const lib = path.join(t.sysroot, 'usr', 'lib', t.triplet);
    if (!fs.existsSync(path.join(lib, 'libpq.so.5')))
      fail(`no ${arch} libpq.so.5 in ${lib}: run scripts/node-runtimes.sh (scripts/setup.sh does)`);
    const link = path.join(dir, 'lib');
    fs.mkdirSync(link, { recursive: true });
    fs.rmSync(path.join(link, 'libpq.so'), { force: true });
    fs.symlinkSync(path.join(lib, 'libpq.so.5'), path.join(link, 'libpq.so'));
    ldflags.push(`-L${link}`, `-Wl,-rpath-link,${lib}`);
  }
  const env = { ...process.env, CC: cc, CHRONOID_BUILD_DIR: dir, LDFLAGS: ldflags.join(' '),
    CHRONOID_NO_LEASE: lease ? '' : '1' };
  delete env.CHRONOID_SAN;
  try {
    execFileSync(process.execPath, [path.join(__dirname, 'build.js')], { env, stdio: 'inherit' });
  } catch {
    fail(`building the linux-${arch} addon${lease ? '' : ' without leases'} with ${cc} failed` +
      (native ? '' : ` (apt-get install gcc-${t.triplet.replace(/_/g, '-')})`));
  }
  const out = path.join(dest, `linux-${arch}`);
  fs.mkdirSync(out, { recursive: true });
  fs.copyFileSync(path.join(dir, 'chronoid.node'), path.join(out, lease ? 'chronoid.node' : 'chronoid-nolease.node'));
}

fs.rmSync(dest, { recursive: true, force: true });
if (process.argv[2] === '--clean')
  process.exit(0);
if (os.platform() !== 'linux' || !(process.arch in TARGETS))
  fail(`prebuilt addons are made on Linux x64 or arm64, not ${os.platform()}-${process.arch}`);
for (const arch of Object.keys(TARGETS))
  for (const lease of [true, false])
    build(arch, lease);
