// cases.mjs — what the WebAssembly build must answer as the addon does,
// wherever it runs: the same calls on fixed inputs (decoding, conversion,
// bounds, layouts, errors) give the same JSON under Node's addon, in
// Chromium, in workerd; generated IDs are checked by their properties in
// place (form, version, time, order, no repeat).  run(chronoid) returns
// { same, props }: `same` is compared with the addon's, `props` must be
// all true.

const UUIDS = ['0190b8b4-6b5e-7cc0-b7a1-5a7b1f2f3c4d', '{0190B8B4-6B5E-7CC0-B7A1-5A7B1F2F3C4D}',
  'c232ab00-9414-11ec-b3c8-9f6bdeced846', '1ec9414c-232a-6b00-b3c8-9f6bdeced846',
  '550e8400-e29b-41d4-a716-446655440000', '00000000-0000-0000-0000-000000000000'];
const IDS = [...UUIDS, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '507f1f77bcf86cd799439011',
  '0ujtsYcgvSTl8PAuAdqWYSMnLOv', 'user_01h455vb4pex5vsknk084sn02q', '1541815603606036480', '0',
  '9223372036854775807'];
const BAD = ['', 'hello', 'abc', '01955f8c-0671-7000-8000-00000000000g', '81ARZ3NDEKTSV4RRFFQ69G5FAV',
  '99999999999999999999', '507f1f77bcf86cd79943901z', 'aWgEPTl1tmebfsQzFP4bxwgy80W', 'x'.repeat(300),
  '01ARZ3NDEKTSV4RRFFQ69G5FA\ud800'];

/* A value as JSON can hold it, the same for both builds. */
function plain(v) {
  if (typeof v === 'bigint')
    return `${v}n`;
  if (v instanceof Date)
    return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (v instanceof Uint8Array)
    return Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('');
  if (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))
    return Array.from(v, plain);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/* What a call returns, or the error it throws: class, code, message. */
function outcome(fn) {
  try {
    return { ok: plain(fn()) };
  } catch (e) {
    return { error: [e.constructor.name, e.code, e.message] };
  }
}

function sameCases(c) {
  const same = {};
  for (const id of [...IDS, ...BAD]) {
    same[`inspect ${id}`] = outcome(() => c.inspect(id));
    same[`inspect ${id} twitter`] = outcome(() => c.inspect(id, { layout: 'twitter' }));
  }
  for (const v of [1541815603606036480n, -1n, 2n ** 64n, 2n ** 63n, 0n])
    same[`inspect ${v}n`] = outcome(() => c.inspect(v));
  same['inspect bytes'] = outcome(() => c.inspect(new Uint8Array(16).fill(0x71)));
  same['inspect 15 bytes'] = outcome(() => c.inspect(new Uint8Array(15)));
  same['inspect number'] = outcome(() => c.inspect(42));
  for (const u of [...UUIDS, ...BAD]) {
    same[`uuidToUlid ${u}`] = outcome(() => c.uuidToUlid(u));
    same[`uuidv1ToV6 ${u}`] = outcome(() => c.uuidv1ToV6(u));
    same[`uuidv6ToV1 ${u}`] = outcome(() => c.uuidv6ToV1(u));
    same[`ulidToUuid ${u}`] = outcome(() => c.ulidToUuid(u));
    same[`typeidFromUuid ${u}`] = outcome(() => c.typeidFromUuid('user', u));
  }
  for (const t of ['user_01h455vb4pex5vsknk084sn02q', '01h455vb4pex5vsknk084sn02q', 'User_01h455vb4pex5vsknk084sn02q',
    'user_81h455vb4pex5vsknk084sn02q', 'a_b_01h455vb4pex5vsknk084sn02q']) {
    same[`parseTypeid ${t}`] = outcome(() => c.parseTypeid(t));
    same[`typeidToUuid ${t} user`] = outcome(() => c.typeidToUuid(t, 'user'));
  }
  for (const p of ['Bad', '_x', 'a'.repeat(64), 7])
    same[`typeid prefix ${p}`] = outcome(() => c.typeid(p));
  for (const t of [0, 1700000000000, -1, 1.5, NaN, '2024-02-29T12:00:00Z', '2024-02-30', 'soon',
    new Date(0), new Date(NaN), 8.64e15, 253402300800000, null]) {
    for (const b of ['uuidv7Bounds', 'ulidBounds', 'uuidv6Bounds', 'objectidBounds', 'ksuidBounds'])
      same[`${b} ${String(t)}`] = outcome(() => c[b](t));
    same[`snowflakeBounds ${String(t)}`] = outcome(() => c.snowflakeBounds(t));
    same[`snowflakeBounds ${String(t)} sonyflake`] = outcome(() => c.snowflakeBounds(t, 'sonyflake'));
  }
  for (const l of [undefined, ...c.presets, 'time:41,node:10,seq:12;epoch=2025-01-01;tick=10ms', 'twiter',
    'time:41,node:10,seq:10', 'pgedge\0x', 42, 'x'.repeat(300)])
    same[`layout ${String(l)}`] = outcome(() => c.layout(l));
  for (const n of ['10', 10n, undefined, NaN, -1, 1.5, Infinity, 2 ** 24 + 1])
    for (const f of ['uuidv7Batch', 'ulidBuffer', 'ksuidBatch'])
      same[`${f} ${String(n)}`] = outcome(() => c[f](n));
  for (const node of [NaN, -1, 0.5, 2 ** 53, -1n, 2n ** 64n, 2n ** 63n, '7', 1024, 65536])
    same[`Snowflake node ${String(node)}`] = outcome(() => new c.Snowflake({ node, claim: false }));
  for (const o of [{ layout: 'twiter' }, { onClockBehind: 'later' }, { maxDriftMs: -5 }, { maxWaitMs: NaN },
    { maxBorrowTicks: '3' }, { scope: '../etc' }, { scope: 'a\0b' }, { nod: 2 }, { claim: 'yes' }])
    same[`Snowflake ${JSON.stringify(o)}`] = outcome(() => new c.Snowflake({ node: 1, claim: false, ...o }));
  same.presets = plain(c.presets);
  same.version = c.version;
  same.maxBatch = c.maxBatch;
  return same;
}

const FORMS = {
  uuidv7: /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  uuidv4: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  uuidv6: /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  ulid: /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/,
  monotonicUlid: /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/,
  objectid: /^[0-9a-f]{24}$/,
  ksuid: /^[0-9A-Za-z]{27}$/,
};
const SORTED = ['uuidv7', 'monotonicUlid', 'uuidv6'];

function propCases(c) {
  const props = {};
  const before = Date.now();
  for (const [kind, form] of Object.entries(FORMS)) {
    const one = c[kind]();
    const batch = c[`${kind}Batch`](2000);
    const bytes = c[`${kind}Bytes`]();
    const buf = c[`${kind}Buffer`](3);
    props[`${kind}: one and a batch of 2000 have the form`] = form.test(one) && batch.every((x) => form.test(x));
    props[`${kind}: no repeat in 2001`] = new Set([one, ...batch]).size === 2001;
    props[`${kind}: bytes and buffers of the size`] = bytes instanceof Uint8Array &&
      buf.length === 3 * bytes.length;
    if (SORTED.includes(kind))
      props[`${kind}: strictly increasing`] = [one, ...batch].every((x, i, a) => i === 0 || x > a[i - 1]);
    const info = c.inspect(one);
    if (info.time !== null)
      props[`${kind}: its time is now`] = info.unixMs >= before - 1000 && info.unixMs <= Date.now() + 1000;
  }
  const sf = new c.Snowflake({ node: 77, claim: false, scope: 'cases' });
  // Fewer than a tick's 4096: workerd's clock stands still while a request runs.
  const ids = [sf.next(), ...sf.batch(3000), sf.next()];
  props['Snowflake: 3002 strictly increasing, of node 77'] = ids.every((x, i) => i === 0 || x > ids[i - 1]) &&
    sf.inspect(ids[2000]).node === 77;
  let refused = null;
  try {
    new c.Snowflake({ node: 77 }).close();
  } catch (e) {
    refused = e.code;
  }
  props['Snowflake: the build says whether it claims'] = c.build === 'wasm' ? refused === 'CHRONOID_ECLAIM'
    : refused === null;
  sf.close();
  props['typeid: a fresh one parses back'] = c.parseTypeid(c.typeid('page')).prefix === 'page';
  props['build is wasm or addon'] = c.build === 'wasm' || c.build === 'addon';
  return props;
}

export function run(chronoid) {
  return { build: chronoid.build, same: sameCases(chronoid), props: propCases(chronoid) };
}
