// wasm.mjs — the package's entry where the WebAssembly build is the only
// one: browsers, workers and edge runtimes (package.json's exports map
// sends them here).  #chronoid-wasm is the loader for the runtime: a fetch
// of lib/chronoid.wasm beside this file, or the module an edge runtime
// hands over.  The names are index.mjs's (test/wasm.test.js checks).
import { makeApi } from './api.mjs';
import { wasmNative } from './wasm-native.mjs';
import instance from '#chronoid-wasm';

// Bytes as Buffers where there are Buffers (Node), as the addon's are.
const alloc = globalThis.Buffer ? (n) => globalThis.Buffer.allocUnsafe(n) : (n) => new Uint8Array(n);
const chronoid = makeApi(wasmNative(instance, alloc), alloc);

export const {
  uuidv7,
  uuidv7Bytes,
  uuidv7Buffer,
  uuidv7Batch,
  uuidv4,
  uuidv4Bytes,
  uuidv4Buffer,
  uuidv4Batch,
  ulid,
  ulidBytes,
  ulidBuffer,
  ulidBatch,
  monotonicUlid,
  monotonicUlidBytes,
  monotonicUlidBuffer,
  monotonicUlidBatch,
  uuidv6,
  uuidv6Bytes,
  uuidv6Buffer,
  uuidv6Batch,
  objectid,
  objectidBytes,
  objectidBuffer,
  objectidBatch,
  ksuid,
  ksuidBytes,
  ksuidBuffer,
  ksuidBatch,
  Snowflake,
  LeasedSnowflake,
  leaseSnowflake,
  leaseSetup,
  hasLease,
  BlockAllocator,
  inspect,
  isValid,
  uuidVersion,
  uuidToUlid,
  ulidToUuid,
  uuidv1ToV6,
  uuidv6ToV1,
  typeid,
  typeidFromUuid,
  typeidToUuid,
  parseTypeid,
  uuidv7At,
  ulidAt,
  uuidv7Bounds,
  ulidBounds,
  uuidv6Bounds,
  objectidBounds,
  ksuidBounds,
  snowflakeBounds,
  layout,
  claimDir,
  presets,
  version,
  maxBatch,
  build,
} = chronoid;

export default chronoid;
