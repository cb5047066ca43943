// bench.mjs — the benchmark page's code (bundled by run.mjs with esbuild,
// as an application would bundle it): chronoid's WebAssembly build against
// its npm peers and crypto.randomUUID() in the same page.  Every case runs
// ROUNDS times, interleaved (round 1 of every case, then round 2, ...), so
// that a slow moment of the machine hits all alike; the result is the
// median ns per ID of each case, left in window.result.  Every timed run
// starts from a collected heap (gc(), which run.mjs exposes): otherwise
// the garbage of the cases before, Blink's external strings above all
// (crypto.randomUUID()'s and TextDecoder's), made full collections of 20
// to 120 ms land in whichever case was allocating when one fell due.
import * as chronoid from 'chronoid';
import { wasmImports } from '../../node/lib/wasm-native.mjs';
import * as uuid from 'uuid';
import { uuidv7 as uuidv7Peer } from 'uuidv7';
import { monotonicFactory } from 'ulidx';
import { Snowflake as Sapphire } from '@sapphire/snowflake';

const params = new URLSearchParams(location.search);
const ROUNDS = Number(params.get('rounds') ?? 9);
const SINGLE_OPS = Number(params.get('ops') ?? 100000);
const BATCH = 1000;

const sf = new chronoid.Snowflake({ node: 1, claim: false, scope: 'bench' });
// The same generator on a layout with room for more than 4096 IDs per ms.
const sfWide = new chronoid.Snowflake({ node: 1, claim: false, scope: 'bench-wide',
  layout: 'time:41,node:2,seq:20;epoch=2023-01-01;tick=1ms' });
const sapphire = new Sapphire(Date.UTC(2023, 0, 1));
const ulidxMono = monotonicFactory();

// The floors: what any implementation pays per ID, whatever its code.  A
// single text ID reads the clock and makes one string (here from 36 bytes
// by the cheapest way a page has); a Snowflake reads the clock and makes
// one BigInt.  A text batch makes its IDs (what the byte batch costs) and
// then n strings from their text: TextDecoder and JSON.parse of n IDs'
// JSON bytes, the way that gives strings holding only themselves (the
// pieces of split() keep the whole text alive).
const floorBytes = new TextEncoder().encode(crypto.randomUUID());
const chr = String.fromCharCode;
const h = floorBytes;
const clockAndString = () => (Date.now(), chr(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9],
  h[10], h[11], h[12], h[13], h[14], h[15], h[16], h[17], h[18], h[19], h[20], h[21], h[22], h[23], h[24],
  h[25], h[26], h[27], h[28], h[29], h[30], h[31], h[32], h[33], h[34], h[35]));
// The floor's JSON bytes are fresh, as every batch's are: 512 different
// texts, more than a timed run decodes (500 calls).  Rotating through 64
// of them, as an earlier version did, decoded in half the time a fresh
// text takes (10 against 20 ns per ID in Chromium, TextDecoder alone):
// repeated bytes measured a floor no real batch could reach.
const decoder = new TextDecoder();
const TEXTS = 512;
const jsonBytes = (batch) => Array.from({ length: TEXTS }, () => new TextEncoder().encode(JSON.stringify(batch(BATCH))));
const uuidJson = jsonBytes(chronoid.uuidv7Batch);
const ulidJson = jsonBytes(chronoid.monotonicUlidBatch);
let turn = 0;
const TEXT_FLOOR = 'floor: 1000 strings from their JSON bytes';

// A text batch's work in the module alone: the same module, instantiated
// here beside the package's, makes 1000 IDs and writes their JSON text
// (wasm/glue.c's json export), with no string made.  Added to the strings
// from JSON bytes, that is the batch's own parts; what they cost above
// the floor is the formatting.  Kind numbers: KINDS in wasm-native.mjs.
let moduleInstance = null;
moduleInstance = (await WebAssembly.instantiateStreaming(fetch('chronoid.wasm'),
  wasmImports({ randomFill: (u8) => crypto.getRandomValues(u8) }, () => moduleInstance.exports.memory))).instance;
const X = moduleInstance.exports;
X._initialize?.();
const jsonAt = X.alloc(BATCH * 16 + BATCH * (36 + 3) + 3);
const moduleJson = (k) => () => {
  if (X.json(k, jsonAt, BATCH) < 0)
    throw new Error(`the module's json(${k}) failed`);
};
const MODULE_TEXT = 'part: the module alone makes 1000 IDs and their JSON text';

// [kind, name, who: a peer (true), chronoid (false), a floor ('floor') or
// a part of a floor or of a text batch ('part'), ids per call, fn]
const cases = [
  ['uuidv7', 'floor: `Date.now()` and one 36-character string', 'floor', 1, clockAndString],
  ['uuidv7', TEXT_FLOOR, 'part', BATCH, () => JSON.parse(decoder.decode(uuidJson[turn++ % TEXTS]))],
  ['ulid', TEXT_FLOOR, 'part', BATCH, () => JSON.parse(decoder.decode(ulidJson[turn++ % TEXTS]))],
  ['uuidv7', MODULE_TEXT, 'part', BATCH, moduleJson(0)],
  ['ulid', MODULE_TEXT, 'part', BATCH, moduleJson(3)],
  ['snowflake', 'floor: `BigInt(Date.now())`', 'floor', 1, () => BigInt(Date.now())],
  ['uuidv4', 'crypto.randomUUID()', true, 1, () => crypto.randomUUID()],
  ['uuidv4', '`uuid` v4()', true, 1, () => uuid.v4()],
  ['uuidv4', 'chronoid `uuidv4()`', false, 1, () => chronoid.uuidv4()],
  ['uuidv7', '`uuid` v7()', true, 1, () => uuid.v7()],
  ['uuidv7', '`uuidv7` uuidv7()', true, 1, () => uuidv7Peer()],
  ['uuidv7', 'chronoid `uuidv7()`', false, 1, () => chronoid.uuidv7()],
  ['uuidv7', 'chronoid `uuidv7Bytes()`', false, 1, () => chronoid.uuidv7Bytes()],
  ['uuidv7', 'chronoid `uuidv7Batch(1000)` strings', false, BATCH, () => chronoid.uuidv7Batch(BATCH)],
  ['uuidv7', 'chronoid `uuidv7Buffer(1000)` bytes', false, BATCH, () => chronoid.uuidv7Buffer(BATCH)],
  ['ulid', '`ulidx` monotonicFactory()', true, 1, () => ulidxMono()],
  ['ulid', 'chronoid `monotonicUlid()`', false, 1, () => chronoid.monotonicUlid()],
  ['ulid', 'chronoid `monotonicUlidBatch(1000)` strings', false, BATCH, () => chronoid.monotonicUlidBatch(BATCH)],
  ['ulid', 'chronoid `monotonicUlidBuffer(1000)` bytes', false, BATCH, () => chronoid.monotonicUlidBuffer(BATCH)],
  ['snowflake', '`@sapphire/snowflake` generate()', true, 1, () => sapphire.generate()],
  ['snowflake', 'chronoid `next()` (pgedge)', false, 1, () => sf.next()],
  ['snowflake', 'chronoid `next()` (20-bit sequence)', false, 1, () => sfWide.next()],
  ['snowflake', 'chronoid `batch(1000)` (20-bit sequence)', false, BATCH, () => sfWide.batch(BATCH)],
];

// ?only=TEXT keeps the cases whose kind or name holds TEXT (and the rows
// the derived floors add up), for a closer look at a few; ?skip=TEXT
// leaves them out.
const skip = params.get('skip');
if (skip !== null)
  for (let i = cases.length - 1; i >= 0; i--)
    if (`${cases[i][0]} ${cases[i][1]}`.includes(skip))
      cases.splice(i, 1);
const only = params.get('only');
if (only !== null)
  for (let i = cases.length - 1; i >= 0; i--)
    if (!`${cases[i][0]} ${cases[i][1]}`.includes(only))
      cases.splice(i, 1);

let sink = 0;
function runOnce(ids, fn) {
  globalThis.gc?.();
  const calls = ids === 1 ? SINGLE_OPS : Math.max(1, Math.round(5 * SINGLE_OPS / ids));
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const v = fn();
    sink += typeof v === 'string' ? v.length : 1;
  }
  return ((performance.now() - t0) * 1e6) / (calls * ids);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// Warm-up: every case once, so that no round pays for compilation.
for (const [, , , ids, fn] of cases)
  runOnce(ids, fn);
const times = cases.map(() => []);
for (let r = 0; r < ROUNDS; r++)
  cases.forEach(([, , , ids, fn], i) => times[i].push(runOnce(ids, fn)));
const rows = cases.map(([kind, name, peer, ids], i) => ({ kind, name, peer, ids, ns: median(times[i]), rounds: times[i] }));
const ns = (kind, name) => rows.find((row) => row.kind === kind && row.name === name)?.ns ?? NaN;
// A text batch's floor: its IDs as bytes, then their strings.
for (const [kind, bytes] of [['uuidv7', 'chronoid `uuidv7Buffer(1000)` bytes'],
  ['ulid', 'chronoid `monotonicUlidBuffer(1000)` bytes']])
  if (Number.isFinite(ns(kind, bytes) + ns(kind, TEXT_FLOOR)))
    rows.push({ kind, name: 'floor: a text batch (the byte batch and its strings, the two rows above)',
      peer: 'floor', ids: BATCH, ns: ns(kind, bytes) + ns(kind, TEXT_FLOOR) });
// A text batch's own parts: the module's IDs and text, then the strings.
for (const kind of ['uuidv7', 'ulid'])
  if (Number.isFinite(ns(kind, MODULE_TEXT) + ns(kind, TEXT_FLOOR)))
    rows.push({ kind, name: 'a text batch\'s parts added up (the module\'s IDs and text, and the strings)',
      peer: 'parts', ids: BATCH, ns: ns(kind, MODULE_TEXT) + ns(kind, TEXT_FLOOR) });
// The default layout's floor is its own: 4,096 IDs per ms and node.
rows.push({ kind: 'snowflake', name: 'floor: `pgedge` mints at most 4,096 IDs per ms', peer: 'floor', ids: 1,
  ns: 1e6 / 4096 });
window.result = { userAgent: navigator.userAgent, rounds: ROUNDS, ops: SINGLE_OPS, sink, rows };
