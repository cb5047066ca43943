// types.ts — every export of the chronoid package, used once with its
// declared types; `tsc --noEmit` on this file (node/test/types.sh, in make
// check) checks index.d.ts against real use.  It also runs as a plain
// example after compilation.
import * as chronoid from 'chronoid';
import {
  Snowflake, uuidv7, uuidv7Bytes, uuidv7Buffer, uuidv7Batch, uuidv4, uuidv4Bytes, uuidv4Buffer, uuidv4Batch,
  ulid, ulidBytes, ulidBuffer, ulidBatch, monotonicUlid, monotonicUlidBytes, monotonicUlidBuffer,
  monotonicUlidBatch, inspect, uuidToUlid, ulidToUuid, uuidv7At, ulidAt, uuidv7Bounds, ulidBounds, snowflakeBounds, layout,
  claimDir, presets, version, maxBatch, LeasedSnowflake, leaseSnowflake, leaseSetup, hasLease,
  typeid, typeidFromUuid, typeidToUuid, parseTypeid, uuidv6, uuidv6Bytes, uuidv6Buffer, uuidv6Batch,
  objectid, objectidBytes, objectidBuffer, objectidBatch, ksuid, ksuidBytes, ksuidBuffer, ksuidBatch,
  uuidv1ToV6, uuidv6ToV1, BlockAllocator, uuidv6Bounds, objectidBounds, ksuidBounds, isValid, uuidVersion, build,
} from 'chronoid';
import type { IdKind, BlockAllocatorOptions, BlockAllocatorStats, Bounds, ChronoidError, IdInfo, Layout, LeaseOptions, SnowflakeInfo, SnowflakeOptions, TimeInput, TypeIdParts } from 'chronoid';

const strings: string[] = [uuidv7(), uuidv4(), ulid(), monotonicUlid(), ...uuidv7Batch(2), ...uuidv4Batch(2),
  ...ulidBatch(2), ...monotonicUlidBatch(2), uuidv6(), objectid(), ksuid(), ...uuidv6Batch(2),
  ...objectidBatch(2), ...ksuidBatch(2), uuidv6ToV1(uuidv1ToV6('c232ab00-9414-11ec-b3c8-9f6bdeced846'))];
const buffers: Buffer[] = [uuidv7Bytes(), uuidv4Bytes(), ulidBytes(), monotonicUlidBytes(), uuidv7Buffer(2),
  uuidv4Buffer(2), ulidBuffer(2), monotonicUlidBuffer(2), uuidv6Bytes(), objectidBytes(), ksuidBytes(),
  uuidv6Buffer(2), objectidBuffer(2), ksuidBuffer(2)];

const options: SnowflakeOptions = {
  node: 7, layout: 'pgedge', scope: 'types-example', claim: true, claimDir: claimDir() ?? undefined,
  onClockBehind: 'run-ahead', maxDriftMs: 1000, maxWaitMs: 1000, onExhausted: 'wait', maxBorrowTicks: 1000,
};
const sf = new Snowflake(options);
const id: bigint = sf.next();
const text: string = sf.nextString();
const batch: BigInt64Array = sf.batch(10);
const batchText: string[] = sf.batchStrings(3);
const range: Bounds<bigint> = sf.bounds(new Date());
const decoded: IdInfo = sf.inspect(id);
if (decoded.kind === 'snowflake') {
  const info: SnowflakeInfo = decoded;
  const node: number | null = info.node;
  void node;
}
const l: Layout = sf.layout;
const claimed: string | null = sf.claimPath;
const nodeNumber: number = sf.node;
const scope: string = sf.scope;
sf.close();

const when: TimeInput = '2025-01-01T00:00:00Z';
const u: Bounds<string> = uuidv7Bounds(when);
const at7: string = uuidv7At(when) + ulidAt(0);
const v: Bounds<string> = ulidBounds(Date.now());
const kindBounds: Bounds<string>[] = [uuidv6Bounds(when), objectidBounds(new Date()), ksuidBounds(Date.now())];
const w: Bounds<bigint> = snowflakeBounds(new Date(), 'twitter');
const info: IdInfo = inspect(uuidv7(), { layout: 'pgedge' });
const fromBytes: IdInfo = inspect(uuidv7Bytes());
const converted: string = ulidToUuid(uuidToUlid(uuidv7()));
const kind: IdKind = 'ulid';
const checked: boolean = isValid(ulid(), kind) && isValid(12n, 'snowflake', { layout: 'twitter' }) && !isValid(null);
const uv: number | null = uuidVersion(uuidv7Bytes());
const typed: string = typeidFromUuid('user', typeidToUuid(typeid('user'), 'user'));
const parts: TypeIdParts = parseTypeid(typed);
const bare: string = typeid();
const layouts: Layout[] = presets.map((name) => layout(name));
const v2: string = chronoid.version;
const most: number = maxBatch;
const which: 'addon' | 'wasm' = build;

// Leases talk to PostgreSQL: typed here, called in node/test/pg/lease.test.js.
const leaseOptions: LeaseOptions = { conninfo: 'postgresql:///app', schema: 'chronoid', ttlMs: 30000, lo: 1, hi: 64,
  owner: 'types.ts', renew: true, layout: 'pgedge', onExhausted: 'wait' };
async function useLease(): Promise<bigint> {
  await leaseSetup(leaseOptions);
  const leased: LeasedSnowflake = await leaseSnowflake(leaseOptions);
  const first: bigint = leased.next();
  const state: string | null = leased.status();
  const left: number = leased.remainingMs();
  const many: BigInt64Array = leased.batch(10);
  console.log(leased.node, leased.holder, leased.notBeforeMs, leased.layout.name, state, left, many.length,
    leased.batchStrings(1), leased.bounds(Date.now()), leased.inspect(first), leased.nextString());
  await leased.release();
  return first;
}
const leaseUser: () => Promise<bigint> = useLease;

// Block allocators talk to PostgreSQL too: node/test/pg/block.test.js calls them.
const blockOptions: BlockAllocatorOptions = { conninfo: 'postgresql:///app', targetMs: 60000, minSize: 16,
  maxSize: 1000000, initialSize: 1000, prefetchPct: 10, waitMs: 10000, timeoutMs: 10000 };
async function useBlocks(): Promise<bigint> {
  const ids: BlockAllocator = await BlockAllocator.open('public.order_ids', blockOptions);
  const first: bigint = ids.next();
  const second: bigint = await ids.nextAsync();
  const st: BlockAllocatorStats = ids.stats();
  console.log(ids.sequence, st.issued, st.blocks, st.failures, st.waits, st.inHand, st.size);
  await ids.close();
  return first + second;
}
const blockUser: () => Promise<bigint> = useBlocks;
const leaseBuilt: boolean = hasLease;

try {
  new Snowflake({ node: 1024 });
} catch (e) {
  const err = e as ChronoidError;
  console.log(err.code, err.holderPid ?? '-', err.message);
}

console.log(strings.length, buffers.length, text, batch.length, batchText, range, l.name, claimed, nodeNumber,
  scope, u, at7, v, w, kindBounds.length, info.kind, fromBytes.kind, converted, checked, uv, typed, parts.prefix, bare, layouts.length, v2, most, which, version, typeof leaseUser,
  leaseBuilt, typeof blockUser);
