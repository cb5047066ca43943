// workerd.mjs — worker.mjs bundled by esbuild as a Workers project is (the
// "workerd" condition; chronoid.wasm left as a module of its own), served
// by workerd from npm on a loopback port, asked once, stopped.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/* The cases' results from workerd: pkg is the unpacked tarball. */
export async function workerdRun(pkg, modules, here) {
  const esbuild = createRequire(path.join(modules, 'x.js'))('esbuild');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-workerd-'));
  let child = null;
  try {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(pkg, path.join(dir, 'node_modules', 'chronoid'));
    fs.copyFileSync(path.join(here, 'worker.mjs'), path.join(dir, 'entry.mjs'));
    fs.copyFileSync(path.join(here, 'cases.mjs'), path.join(dir, 'cases.mjs'));
    await esbuild.build({
      entryPoints: [path.join(dir, 'entry.mjs')], bundle: true, format: 'esm', platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'], external: ['*.wasm'], outfile: path.join(dir, 'worker.mjs'),
      preserveSymlinks: false, logLevel: 'silent',
    });
    fs.copyFileSync(path.join(pkg, 'lib', 'chronoid.wasm'), path.join(dir, 'chronoid.wasm'));
    const port = await freePort();
    fs.writeFileSync(path.join(dir, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "chronoid.wasm", wasm = embed "chronoid.wasm"),
  ],
  compatibilityDate = "2025-01-01",
);
`);
    let log = '';
    child = spawn(path.join(modules, '.bin', 'workerd'), ['serve', path.join(dir, 'config.capnp')],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    // Up to 60 s for workerd to listen, then one request.
    for (let i = 0; i < 600; i++) {
      const res = await Promise.race([
        fetch(`http://127.0.0.1:${port}/`).then((r) => r.json(), () => null),
        exited.then((code) => ({ exited: code })),
      ]);
      if (res !== null && res.exited !== undefined)
        throw new Error(`workerd exited ${res.exited}: ${log}`);
      if (res !== null)
        return res;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`workerd did not answer on port ${port}: ${log}`);
  } finally {
    if (child !== null && child.exitCode === null)
      child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
