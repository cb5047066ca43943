// run.mjs — the npm tarball's WebAssembly build where it runs, against the
// addon's answers (cases.mjs): under Node without an addon, in headless
// Chromium (Debian's, driven by puppeteer-core), in workerd (workerd.mjs).
// Prints TAP.  Environment: CHRONOID_TAP_N and CHRONOID_TAP_FAILED (the
// count so far), CHRONOID_PKG (the unpacked tarball),
// CHRONOID_WEB_MODULES (build/web/node_modules: puppeteer-core, esbuild,
// workerd), CHRONOID_CHROMIUM (default /usr/lib/chromium/chromium).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';
import { run } from './cases.mjs';
import { workerdRun } from './workerd.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const pkg = process.env.CHRONOID_PKG;
const modules = process.env.CHRONOID_WEB_MODULES;
const chromium = process.env.CHRONOID_CHROMIUM ?? '/usr/lib/chromium/chromium';

// Numbered on from run.sh's own cases.
let n = Number(process.env.CHRONOID_TAP_N ?? 0);
let failed = Number(process.env.CHRONOID_TAP_FAILED ?? 0);
function ok(pass, name, detail) {
  n++;
  if (!pass)
    failed++;
  console.log(`${pass ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!pass && detail)
    console.log(String(detail).split('\n').slice(0, 40).map((l) => `# ${l}`).join('\n'));
}

/* One TAP line for `same` against the addon's, one for the properties. */
function check(where, got, want) {
  if (got.crash) {
    ok(false, `${where}: the cases ran`, got.crash);
    return;
  }
  ok(got.build === 'wasm', `${where}: the build is the WebAssembly one`, `build ${got.build}`);
  const keys = Object.keys(want.same);
  const differ = keys.filter((k) => {
    try {
      assert.deepEqual(got.same[k], want.same[k]);
      return false;
    } catch {
      return true;
    }
  });
  ok(differ.length === 0 && Object.keys(got.same).length === keys.length,
    `${where}: ${keys.length} answers and errors as the addon's`,
    differ.slice(0, 8).map((k) => `${k}\n  wasm:  ${JSON.stringify(got.same[k])}\n  addon: ${JSON.stringify(want.same[k])}`)
      .join('\n'));
  const bad = Object.entries(got.props).filter(([, v]) => v !== true).map(([k]) => k);
  ok(bad.length === 0 && Object.keys(got.props).length > 0,
    `${where}: ${Object.keys(got.props).length} properties of generated IDs`, bad.join('\n'));
}

async function chromiumCheck(want) {
  const puppeteer = createRequire(path.join(modules, 'x.js'))('puppeteer-core');
  const server = await serve({ '/chronoid/': pkg, '/': here });
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}/page.html`);
    await page.waitForFunction('window.result !== undefined', { timeout: 120000 });
    const got = await page.evaluate(() => window.result);
    ok(errors.length === 0, 'chromium: the page loads with no error', errors.join('\n'));
    check('chromium', got, want);
  } finally {
    await browser.close();
    server.close();
  }
}

/*
 * The size budget: the module and its glue at most 40 KB gzipped, for an
 * app importing everything and one importing uuidv7 alone, bundled by
 * esbuild for browsers (sizes in the case names, for docs/javascript.md).
 */
async function sizeCheck() {
  const esbuild = createRequire(path.join(modules, 'x.js'))('esbuild');
  const { gzipSync } = await import('node:zlib');
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const wasm = gz(fs.readFileSync(path.join(pkg, 'lib', 'chronoid.wasm')));
  const app = fs.mkdtempSync(path.join(path.dirname(pkg), 'app-'));
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(pkg, path.join(app, 'node_modules', 'chronoid'));
  for (const [what, code] of [['everything', 'import * as c from "chronoid"; console.log(c);'],
    ['uuidv7 alone', 'import { uuidv7 } from "chronoid"; console.log(uuidv7());']]) {
    const out = await esbuild.build({ stdin: { contents: code, resolveDir: app, loader: 'js' },
      bundle: true, format: 'esm', platform: 'browser', minify: true, write: false, logLevel: 'silent' });
    const js = gz(out.outputFiles[0].contents);
    ok(wasm + js <= 40 * 1024, `size: an app importing ${what}, bundled by esbuild: ${js} bytes of JavaScript ` +
      `+ ${wasm} of WebAssembly gzipped = ${((wasm + js) / 1024).toFixed(1)} KB (budget 40 KB)`);
  }
}

async function main() {
  process.env.CHRONOID_BUILD = 'addon';
  const addon = createRequire(path.join(repo, 'node', 'x.js'))('./');
  const want = run(addon);
  ok(want.build === 'addon' && Object.values(want.props).every((v) => v === true),
    'the addon answers the cases (the reference)', JSON.stringify(want.props));
  delete process.env.CHRONOID_BUILD;
  // The tarball has no addon: Node takes the WebAssembly build.
  check('node without an addon', run(createRequire(path.join(pkg, 'x.js'))('./')), want);
  await sizeCheck().catch((e) => ok(false, 'size: bundled by esbuild', e.stack));
  if (!fs.existsSync(chromium))
    ok(false, `chromium: ${chromium} is there (scripts/setup.sh installs Debian's chromium)`);
  else
    await chromiumCheck(want).catch((e) => ok(false, 'chromium: the page ran', e.stack));
  if (process.env.CHRONOID_WORKERD !== '0')
    await workerdRun(pkg, modules, here).then((got) => check('workerd', got, want))
      .catch((e) => ok(false, 'workerd: the worker ran', e.stack));
  console.log(`1..${n}`);
  process.exitCode = failed ? 1 : 0;
}

main();
