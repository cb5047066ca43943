// inspector.js — the inspector page's behaviour over cli.js's runner:
// each pasted ID goes through `chronoid inspect --json` (its errors are
// the command's own lines), generation through `chronoid gen`, conversion
// through `chronoid convert`.  Nothing here decodes an ID.
'use strict';

const PRESETS = ['pgedge', 'twitter', 'sonyflake', 'instagram', 'discord'];
const EXAMPLES = ['0190b8b4-6b5e-7cc0-b7a1-5a7b1f2f3c4d', '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'c232ab00-9414-11ec-b3c8-9f6bdeced846', '1ec9414c-232a-6b00-b3c8-9f6bdeced846',
  'user_01h455vb4pex5vsknk084sn02q', '507f1f77bcf86cd799439011', '0ujtsYcgvSTl8PAuAdqWYSMnLOv',
  '517335334179057664', '550e8400-e29b-41d4-a716-446655440000', 'not-an-id'];

const $ = (id) => document.getElementById(id);
let command = null;

function cell(tr, label, text, cls) {
  const td = document.createElement('td');
  td.dataset.label = label;
  td.textContent = text ?? '';
  if (cls)
    td.className = cls;
  tr.appendChild(td);
  return td;
}

/* The local time of Unix ms, with the zone's name. */
function local(ms) {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime()))
    return '';
  const pad = (x, n = 2) => String(x).padStart(n, '0');
  const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(d)
    .find((p) => p.type === 'timeZoneName')?.value ?? '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:` +
    `${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)} ${zone}`;
}

/* What the command said of one ID, as a row of the table. */
function row(i, r) {
  const tr = document.createElement('tr');
  tr.dataset.input = r.input;
  cell(tr, '#', String(i + 1));
  if (r.error !== undefined) {
    tr.className = 'bad';
    cell(tr, 'ID', r.input, 'id');
    const td = cell(tr, 'error', r.error, 'error');
    td.colSpan = 7;
    return tr;
  }
  const j = r.info;
  tr.dataset.json = r.line;
  const kindNode = j.type === 'snowflake' ? j.node : j.type === 'objectid' ? j.process : j.node;
  const seq = j.type === 'objectid' ? j.counter : j.type === 'uuid' ? j.clock_seq : j.sequence;
  const more = [j.layout && `layout ${j.layout}`, j.prefix !== undefined && `prefix ${j.prefix}`,
    j.uuid && `uuid ${j.uuid}`, j.variant && `variant ${j.variant}`].filter(Boolean).join(', ');
  cell(tr, 'ID', j.id, 'id');
  cell(tr, 'kind', j.type);
  cell(tr, 'version', j.version !== undefined ? String(j.version) : '');
  cell(tr, 'time (UTC)', j.timestamp ?? '');
  cell(tr, 'local time', j.unix_ms !== undefined ? local(j.unix_ms) : '');
  cell(tr, 'node', kindNode !== undefined ? String(kindNode) : '');
  cell(tr, 'sequence', seq !== undefined ? String(seq) : '');
  cell(tr, 'more', more);
  return tr;
}

/* The pasted IDs on one time axis, numbered as in the table. */
function timeline(results) {
  const box = $('timeline');
  box.textContent = '';
  const timed = results.map((r, i) => ({ i, r })).filter(({ r }) => r.info?.unix_ms !== undefined);
  if (timed.length === 0)
    return;
  const lo = Math.min(...timed.map(({ r }) => r.info.unix_ms));
  const hi = Math.max(...timed.map(({ r }) => r.info.unix_ms));
  const W = 1000;
  const H = 70 + 14 * Math.min(timed.length, 12);
  const x = (ms) => (hi === lo ? W / 2 : 40 + ((ms - lo) / (hi - lo)) * (W - 80));
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'timeline of the pasted IDs');
  const add = (name, attrs, text) => {
    const el = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs))
      el.setAttribute(k, v);
    if (text !== undefined)
      el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  add('line', { x1: 40, x2: W - 40, y1: H - 30, y2: H - 30, stroke: '#8a96a3' });
  add('text', { x: 40, y: H - 10 }, new Date(lo).toISOString());
  add('text', { x: W - 40, y: H - 10, 'text-anchor': 'end' }, new Date(hi).toISOString());
  timed.forEach(({ i, r }, k) => {
    const cx = x(r.info.unix_ms);
    const cy = H - 40 - 14 * (k % 12);
    add('line', { x1: cx, x2: cx, y1: cy, y2: H - 30, stroke: '#c4ccd4' });
    const dot = add('circle', { cx, cy, r: 5, fill: '#0b63c5' });
    add('title', {}, `${r.info.id}\n${r.info.timestamp ?? r.info.unix_ms}`);
    dot.appendChild(svg.lastChild);
    // Labels right of their dot, but left of it near the right edge.
    const right = cx > W * 0.8;
    add('text', { x: right ? cx - 8 : cx + 8, y: cy + 4, 'text-anchor': right ? 'end' : 'start' },
      `#${i + 1} ${r.info.type}`);
  });
  box.appendChild(svg);
}

function layoutArg() {
  return $('spec').value.trim() || $('layout').value;
}

/* Inspect every pasted ID, one command each (its error then names it alone). */
async function inspectAll() {
  const ids = $('ids').value.split(/[\s,]+/).filter(Boolean).slice(0, 500);
  const results = [];
  for (const input of ids) {
    const r = await command(['inspect', '--json', '--layout', layoutArg(), '--', input]);
    const line = r.stdout.trim();
    results.push(r.code === 0 ? { input, line, info: JSON.parse(line) } : { input, error: r.stderr.trim() });
  }
  const body = $('results').querySelector('tbody');
  body.textContent = '';
  results.forEach((r, i) => body.appendChild(row(i, r)));
  $('count').textContent = `${results.length} ID${results.length === 1 ? '' : 's'}, ` +
    `${results.filter((r) => r.error !== undefined).length} not understood`;
  timeline(results);
  document.body.dataset.inspected = String(Number(document.body.dataset.inspected ?? 0) + 1);
}

async function generate() {
  const args = ['gen', $('scheme').value, '-n', String($('n').value || 1)];
  if ($('scheme').value === 'snowflake')
    args.push('--node', $('node').value.trim() || '(none)', '--no-claim', '--layout', layoutArg());
  if ($('prefix').value.trim() !== '')
    args.push('--prefix', $('prefix').value.trim());
  const r = await command(args);
  const out = $('gen-out');
  out.className = r.code === 0 ? 'out' : 'out error';
  out.textContent = r.code === 0 ? r.stdout.trim() : r.stderr.trim();
}

async function convert() {
  const r = await command(['convert', '--to', $('to').value, '--', $('conv-in').value.trim()]);
  const out = $('conv-out');
  out.className = r.code === 0 ? 'out' : 'out error';
  out.textContent = r.code === 0 ? r.stdout.trim() : r.stderr.trim();
}

async function start() {
  command = await chronoidCommand(Uint8Array.from(atob(CHRONOID_WASM), (c) => c.charCodeAt(0)));
  $('version').textContent = (await command(['--version'])).stdout.trim();
  for (const p of PRESETS)
    $('layout').appendChild(new Option(p, p));
  $('go').onclick = inspectAll;
  $('gen').onclick = generate;
  $('conv').onclick = convert;
  $('gen-inspect').onclick = () => {
    if (!$('gen-out').classList.contains('error'))
      $('ids').value = $('gen-out').textContent;
    inspectAll();
  };
  let timer = null;
  $('ids').oninput = () => {
    clearTimeout(timer);
    timer = setTimeout(inspectAll, 250);
  };
  $('layout').onchange = inspectAll;
  $('spec').onchange = inspectAll;
  if ($('ids').value.trim() === '')
    $('ids').value = EXAMPLES.join('\n');
  await inspectAll();
  document.body.dataset.ready = 'yes';
}

start().catch((e) => {
  document.body.dataset.ready = 'failed';
  document.querySelector('main').prepend(Object.assign(document.createElement('p'),
    { className: 'error', textContent: `the inspector cannot start: ${e}` }));
});
