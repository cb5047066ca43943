// run.mjs — `make bench-web`: bench.mjs bundled by esbuild with the package
// (its browser entry) and the peers from build/web/node_modules, served on
// the loopback, run in Debian's headless Chromium; prints the table of
// docs/benchmarks.md ("The WebAssembly build in Chromium").  Chromium runs
// with gc() exposed, which the page calls before every timed run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { serve } from '../test/serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const modules = path.join(repo, 'build', 'web', 'node_modules');
const req = createRequire(path.join(modules, 'x.js'));
const chromium = process.env.CHRONOID_CHROMIUM ?? '/usr/lib/chromium/chromium';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronoid-bench-web-'));
await req('esbuild').build({
  entryPoints: [path.join(here, 'bench.mjs')], bundle: true, format: 'esm', platform: 'browser',
  outfile: path.join(dir, 'bench.js'), alias: { chronoid: path.join(repo, 'node', 'lib', 'wasm.mjs') },
  nodePaths: [modules], logLevel: 'warning', minify: true,
});
fs.copyFileSync(path.join(repo, 'node', 'lib', 'chronoid.wasm'), path.join(dir, 'chronoid.wasm'));
fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>chronoid bench</title>' +
  '<link rel="icon" href="data:,"><script type="module" src="bench.js"></script>');
const server = await serve({ '/': dir });
const browser = await req('puppeteer-core').launch({ executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--js-flags=--expose-gc'] });
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e}`));
  const load0 = os.loadavg()[0];
  await page.goto(`${server.url}/index.html?${process.env.BENCH_QUERY ?? ''}`);
  await page.waitForFunction('window.result !== undefined', { timeout: 600000 });
  const r = await page.evaluate(() => window.result);
  // BENCH_RAW=1: every round's ns per ID too, to see the noise the medians hide.
  if (process.env.BENCH_RAW)
    for (const row of r.rows.filter((row) => row.rounds))
      console.log(`# ${row.kind} ${row.name}: ${row.rounds.map((x) => x.toFixed(0)).join(' ')}`);
  const fastest = {};
  for (const row of r.rows)
    if (row.peer === true)
      fastest[row.kind] = Math.min(fastest[row.kind] ?? Infinity, row.ns);
  console.log(`${new Date().toISOString()}, ${r.userAgent.match(/(HeadlessChrome|Chrome)\/[\d.]+/)?.[0]}, ` +
    `${r.rounds} rounds of ${r.ops} calls, load average ${load0.toFixed(1)} at the start, ` +
    `${os.loadavg()[0].toFixed(1)} at the end\n`);
  // A floor's last column: the goal's time per ID (the fastest peer's over
  // 2 for single calls, over 10 for batches), to hold against the floor.
  console.log('| kind | case | ns/ID | vs fastest peer | goal ns/ID |\n|---|---|--:|--:|--:|');
  const kinds = [...new Set(r.rows.map((row) => row.kind))];
  const rows = kinds.flatMap((kind) => r.rows.filter((row) => row.kind === kind));
  for (const row of rows)
    console.log(`| ${row.kind} | ${row.name} | ${row.ns.toFixed(1)} | ${(fastest[row.kind] / row.ns).toFixed(2)}x |` +
      (row.peer === 'floor' ? ` ${(fastest[row.kind] / (row.ids === 1 ? 2 : 10)).toFixed(1)} |` : ' |'));
} finally {
  await browser.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
