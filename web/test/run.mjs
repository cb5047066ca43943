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
import { spawnSync } from 'node:child_process';
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
  const server = await serve({ '/chronoid/': pkg, '/inspector/': path.join(repo, 'build', 'inspector'), '/': here });
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
    await inspectorCheck(browser, server).catch((e) => ok(false, 'inspector: the page ran', e.stack));
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

const INSPECT = ['0190b8b4-6b5e-7cc0-b7a1-5a7b1f2f3c4d', '{0190B8B4-6B5E-7CC0-B7A1-5A7B1F2F3C4D}',
  '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'c232ab00-9414-11ec-b3c8-9f6bdeced846', '1ec9414c-232a-6b00-b3c8-9f6bdeced846',
  '550e8400-e29b-41d4-a716-446655440000', 'user_01h455vb4pex5vsknk084sn02q', '507f1f77bcf86cd799439011',
  '0ujtsYcgvSTl8PAuAdqWYSMnLOv', '1541815603606036480', '9223372036854775807', '-5', 'hello',
  '01955f8c-0671-7000-8000-00000000000g', '81ARZ3NDEKTSV4RRFFQ69G5FAV', '99999999999999999999',
  'User_01h455vb4pex5vsknk084sn02q', '507f1f77bcf86cd79943901z'];

/* What the chronoid command (the native one) says of one argument list. */
function cli(args) {
  const r = spawnSync(path.join(repo, 'build', 'chronoid'), args, { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

/*
 * The inspector page (build/inspector/index.html) opened from the disk
 * and from a server, in a time zone of its own: each row against
 * `chronoid inspect --json` for the same ID and layout, generation and
 * conversion against the command; screenshots at two widths.
 */
async function inspectorCheck(browser, server) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // Nothing is sent anywhere: every request the page makes is counted.
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.emulateTimezone('Asia/Kolkata');
  for (const [how, url] of [['from the disk', `file://${path.join(repo, 'build', 'inspector', 'index.html')}`],
    ['from a server', `${server.url}/inspector/index.html`]]) {
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url);
    await page.waitForFunction('document.body.dataset.ready', { timeout: 60000 });
    ok(await page.evaluate(() => document.body.dataset.ready) === 'yes' && errors.length === 0,
      `inspector ${how}: it starts`, errors.join('\n'));
  }
  for (const layout of ['pgedge', 'twitter']) {
    const before = await page.evaluate(() => Number(document.body.dataset.inspected));
    await page.evaluate((ids, l) => {
      document.getElementById('ids').value = ids.join('\n');
      document.getElementById('layout').value = l;
      document.getElementById('go').click();
    }, INSPECT, layout);
    await page.waitForFunction((b) => Number(document.body.dataset.inspected) > b, {}, before);
    const rows = await page.evaluate(() => [...document.querySelectorAll('#results tbody tr')].map((tr) => ({
      input: tr.dataset.input, json: tr.dataset.json ?? null,
      cells: Object.fromEntries([...tr.cells].map((td) => [td.dataset.label, td.textContent])),
    })));
    const wrong = [];
    INSPECT.forEach((id, i) => {
      const want = cli(['inspect', '--json', '--layout', layout, '--', id]);
      const got = rows[i];
      if (got === undefined || got.input !== id) {
        wrong.push(`${id}: no row`);
        return;
      }
      if (want.code !== 0) {
        if (got.cells.error !== want.stderr)
          wrong.push(`${id}: error ${JSON.stringify(got.cells.error)}, the command's ${JSON.stringify(want.stderr)}`);
        return;
      }
      const j = JSON.parse(want.stdout);
      const shown = {
        line: got.json, kind: got.cells.kind, utc: got.cells['time (UTC)'], version: got.cells.version,
        node: got.cells.node, sequence: got.cells.sequence, id: got.cells.ID,
        local: got.cells['local time'],
      };
      // The local time in Asia/Kolkata: UTC + 5:30, no daylight saving.
      const ist = j.unix_ms === undefined ? '' : `${new Date(j.unix_ms + 19800000).toISOString()
        .replace('T', ' ').replace('Z', '')} GMT+5:30`;
      const expect = {
        line: want.stdout, kind: j.type, utc: j.timestamp ?? '', version: j.version === undefined ? '' : String(j.version),
        node: String(j.node ?? j.process ?? ''), sequence: String(j.sequence ?? j.clock_seq ?? j.counter ?? ''),
        id: j.id, local: ist,
      };
      for (const k of Object.keys(expect))
        if (shown[k] !== expect[k])
          wrong.push(`${id} ${k}: page ${JSON.stringify(shown[k])}, command ${JSON.stringify(expect[k])}`);
    });
    ok(wrong.length === 0 && rows.length === INSPECT.length,
      `inspector, layout ${layout}: ${INSPECT.length} IDs shown as \`chronoid inspect --json\` reads them ` +
      '(kind, version, UTC and local time, node, sequence; the same error lines)', wrong.join('\n'));
    const dots = await page.evaluate(() => document.querySelectorAll('#timeline circle').length);
    ok(dots === rows.filter((r) => r.json !== null && JSON.parse(r.json).unix_ms !== undefined).length, `inspector, layout ${layout}: a timeline dot per timed ID`,
      `${dots} dots`);
  }
  const generated = await page.evaluate(async () => {
    const out = [];
    for (const [scheme, node] of [['uuidv7', ''], ['ksuid', ''], ['snowflake', '12'], ['snowflake', '']]) {
      document.getElementById('scheme').value = scheme;
      document.getElementById('n').value = '3';
      document.getElementById('node').value = node;
      document.getElementById('gen-out').textContent = '';
      document.getElementById('gen').click();
      while (document.getElementById('gen-out').textContent === '')
        await new Promise((r) => setTimeout(r, 20));
      out.push(document.getElementById('gen-out').textContent);
    }
    return out;
  });
  const [v7, ks, sf, noNode] = generated;
  const lines = (t) => t.split('\n');
  ok(lines(v7).length === 3 && lines(v7).every((id) => JSON.parse(cli(['inspect', '--json', id]).stdout).version === 7) &&
    lines(ks).every((id) => JSON.parse(cli(['inspect', '--json', id]).stdout).type === 'ksuid') &&
    lines(sf).every((id) => JSON.parse(cli(['inspect', '--json', id]).stdout).node === 12) &&
    noNode === cli(['gen', 'snowflake', '-n', '3', '--node', '(none)', '--no-claim']).stderr,
  'inspector: generates UUIDv7s, KSUIDs and node 12\'s Snowflakes the command reads back; no node, the command\'s error',
  generated.join('\n---\n'));
  const conversions = [['uuidv6', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'], ['uuidv1', '1ec9414c-232a-6b00-b3c8-9f6bdeced846'],
    ['ulid', '0190b8b4-6b5e-7cc0-b7a1-5a7b1f2f3c4d'], ['uuid', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['uuidv6', '0190b8b4-6b5e-7cc0-b7a1-5a7b1f2f3c4d'], ['ulid', 'nope']];
  const wrongConv = [];
  for (const [to, id] of conversions) {
    const got = await page.evaluate(async (t, i) => {
      document.getElementById('to').value = t;
      document.getElementById('conv-in').value = i;
      document.getElementById('conv-out').textContent = '';
      document.getElementById('conv').click();
      while (document.getElementById('conv-out').textContent === '')
        await new Promise((r) => setTimeout(r, 20));
      return document.getElementById('conv-out').textContent;
    }, to, id);
    const want = cli(['convert', '--to', to, '--', id]);
    if (got !== (want.code === 0 ? want.stdout : want.stderr))
      wrongConv.push(`${to} ${id}: page ${got}, command ${want.stdout || want.stderr}`);
  }
  ok(wrongConv.length === 0, `inspector: ${conversions.length} conversions (UUID and ULID, v1 and v6) as \`chronoid convert\``,
    wrongConv.join('\n'));
  const pages = new Set([`file://${path.join(repo, 'build', 'inspector', 'index.html')}`,
    `${server.url}/inspector/index.html`]);
  const sent = requests.filter((u) => !pages.has(u) && !u.startsWith('data:'));
  ok(sent.length === 0, `inspector: no request but the page itself (${requests.length} in all), after inspecting, ` +
    'generating and converting', sent.join('\n'));
  // Screenshots at two widths, the example IDs shown (for a person to look at).
  const shots = process.env.CHRONOID_SHOTS;
  if (shots) {
    fs.mkdirSync(shots, { recursive: true });
    for (const width of [1280, 420]) {
      await page.setViewport({ width, height: 900 });
      await page.goto(`${server.url}/inspector/index.html`);
      await page.waitForFunction('document.body.dataset.ready');
      await page.screenshot({ path: path.join(shots, `inspector-${width}.png`), fullPage: true });
    }
  }
  await page.close();
}

async function main() {
  process.env.CHRONOID_BUILD = 'addon';
  // The addon's cases claim a node: never in the host's claim directory,
  // also when this file is run without run.sh (which gives one).
  if (!process.env.CHRONOID_CLAIM_DIR) {
    process.env.CHRONOID_CLAIM_DIR = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'chronoid-web-'));
    process.on('exit', () => fs.rmSync(process.env.CHRONOID_CLAIM_DIR, { recursive: true, force: true }));
  }
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
