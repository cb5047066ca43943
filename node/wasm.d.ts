// Made from index.d.ts by scripts/cjs.js: edit that file, not this one.
// Type declarations of the chronoid package (docs/javascript.md).

/** An instant: a Date, Unix ms (an integer) or RFC 3339 UTC text / "YYYY-MM-DD". */
export type TimeInput = Date | number | string;

/** A UUID or ULID as text, or its 16 bytes. */
export type Id128Input = string | Uint8Array;

/** Preset name ("pgedge", "twitter", ...) or a layout spec, e.g. "time:41,node:10,seq:12;epoch=2023-01-01;tick=1ms". */
export type LayoutInput = string;

/** Errors carry a stable code: CHRONOID_* for the core's statuses, ERR_INVALID_ARG_TYPE for wrong types. */
export interface ChronoidError extends Error {
  code: string;
  /** CHRONOID_ENODE_HELD from another process: its pid, when the kernel says. */
  holderPid?: number;
}

export interface Layout {
  name: string;
  spec: string;
  /** 63 (IDs fit a signed bigint) or 64. */
  bits: number;
  timeBits: number;
  nodeBits: number;
  sequenceBits: number;
  reservedBits: number;
  tickMs: number;
  epoch: Date;
  epochMs: number;
  maxNode: number;
  maxMs: number;
}

export interface Bounds<T> {
  min: T;
  max: T;
}

export interface UuidInfo {
  kind: 'uuid';
  id: string;
  version: number | null;
  time: Date | null;
  unixMs: number | null;
  bytes: Uint8Array;
}

export interface UlidInfo {
  kind: 'ulid';
  id: string;
  time: Date;
  unixMs: number;
  bytes: Uint8Array;
}

export interface SnowflakeInfo {
  kind: 'snowflake';
  id: string;
  value: bigint;
  time: Date;
  unixMs: number;
  node: number | null;
  sequence: number;
  layout: string;
}

/** A MongoDB ObjectId (24 hex digits): its second, 12 bytes. */
export interface ObjectIdInfo {
  kind: 'objectid';
  id: string;
  time: Date;
  unixMs: number;
  bytes: Uint8Array;
}

/** A KSUID (27 base62 characters): its second, 20 bytes. */
export interface KsuidInfo {
  kind: 'ksuid';
  id: string;
  time: Date;
  unixMs: number;
  bytes: Uint8Array;
}

export type IdInfo = UuidInfo | UlidInfo | SnowflakeInfo | ObjectIdInfo | KsuidInfo;

export interface SnowflakeOptions {
  /** The node number: 0 .. layout.maxNode. */
  node: number | bigint;
  /** Default "pgedge". */
  layout?: LayoutInput;
  /** Claim scope (default "default"): claims of different scopes never collide. */
  scope?: string;
  /** Claim the node number on this host (default true). */
  claim?: boolean;
  /** Claim directory (default $CHRONOID_CLAIM_DIR, else /run/lock/chronoid). */
  claimDir?: string;
  /** Clock behind the last tick: run ahead (default), wait, or fail. */
  onClockBehind?: 'run-ahead' | 'wait' | 'fail';
  maxDriftMs?: number;
  maxWaitMs?: number;
  /** Sequence used up within a tick: wait for the next (default) or borrow one. */
  onExhausted?: 'wait' | 'borrow';
  maxBorrowTicks?: number;
}

export class Snowflake {
  constructor(options: SnowflakeOptions);
  /** Next ID, signed as PostgreSQL's bigint. */
  readonly next: () => bigint;
  /** Next ID as decimal text. */
  readonly nextString: () => string;
  /** n increasing IDs. */
  readonly batch: (n: number) => BigInt64Array;
  /** Give the generator up (the last user of the node frees its claim). */
  readonly close: () => void;
  readonly node: number;
  readonly scope: string;
  readonly layout: Layout;
  /** The lock file of the node claim, null without a claim. */
  readonly claimPath: string | null;
  batchStrings(n: number): string[];
  bounds(time: TimeInput): Bounds<bigint>;
  inspect(id: string | bigint): IdInfo;
}

export interface LeaseOptions {
  /** libpq conninfo or URI; default: the PG* environment variables. */
  conninfo?: string;
  /** Schema of the node_lease table (default "chronoid"). */
  schema?: string;
  /** Free text for people (default host:pid). */
  owner?: string;
  /** Lease length (default 30000; 1000 .. 86400000). */
  ttlMs?: number;
  graceMs?: number;
  clockWaitMs?: number;
  /** Range of numbers, inclusive (default 1 .. the layout's largest node). */
  lo?: number;
  hi?: number;
  /** Renew in the background (default true). */
  renew?: boolean;
  layout?: LayoutInput;
  onClockBehind?: 'run-ahead' | 'wait' | 'fail';
  maxDriftMs?: number;
  maxWaitMs?: number;
  onExhausted?: 'wait' | 'borrow';
  maxBorrowTicks?: number;
}

/** A Snowflake generator under a node number leased from PostgreSQL (libchronoid_lease). */
export class LeasedSnowflake {
  private constructor();
  readonly next: () => bigint;
  readonly nextString: () => string;
  readonly batch: (n: number) => BigInt64Array;
  /** null while the lease may mint, else the code minting fails with (e.g. "CHRONOID_ELEASE_EXPIRED"). */
  status(): string | null;
  remainingMs(): number;
  readonly release: () => Promise<void>;
  readonly node: number;
  readonly holder: string;
  readonly notBeforeMs: number;
  readonly layout: Layout;
  batchStrings(n: number): string[];
  bounds(time: TimeInput): Bounds<bigint>;
  inspect(id: string | bigint): IdInfo;
}

export interface BlockAllocatorOptions {
  /** libpq conninfo or URI; default: the PG* environment variables. */
  conninfo?: string;
  /** How long a block should last at the rate values are taken (default 60000; 10 .. 86400000). */
  targetMs?: number;
  /** Bounds of the adaptive block size (default 16 .. 1000000; 1 <= minSize <= maxSize <= 1000000000). */
  minSize?: number;
  maxSize?: number;
  /** The first block (default 0 = 1000, within the bounds). */
  initialSize?: number;
  /** Fetch the next block once this share of the current one is used (default 10; 0 .. 99). */
  prefetchPct?: number;
  /** How long next() waits when no value is in hand (default 10000; 0: fail at once). */
  waitMs?: number;
  /** Bound on connecting and on each statement (default 10000; >= 100). */
  timeoutMs?: number;
}

export interface BlockAllocatorStats {
  /** Values handed out. */
  issued: number;
  /** Blocks reserved: one round trip each. */
  blocks: number;
  /** Reservations that failed (and were retried). */
  failures: number;
  /** next() calls that found no value in hand. */
  waits: number;
  /** Values held: the rest of the current block and the next one. */
  inHand: number;
  /** The size the next reservation asks for. */
  size: number;
}

/** Values of a PostgreSQL sequence reserved a block at a time (libchronoid_lease's cid_block_*; docs/block.md). */
export class BlockAllocator {
  private constructor();
  /**
   * Connect, check the sequence (schema-qualified, e.g. "public.order_ids") and reserve the first block.
   * Rejects with TypeError / RangeError for bad options, CHRONOID_EBLOCK_DB when the server refuses.
   */
  static open(sequence: string, options?: BlockAllocatorOptions): Promise<BlockAllocator>;
  /** The next value; waits, holding up the event loop, only when no value is in hand (at most waitMs). */
  readonly next: () => bigint;
  /** The next value: from the block in hand at once, else waited for on libuv's thread pool. */
  readonly nextAsync: () => Promise<bigint>;
  /** Stop the prefetching thread and disconnect; the values in hand are lost (gaps). */
  readonly close: () => Promise<void>;
  readonly sequence: string;
  stats(): BlockAllocatorStats;
}

/** Lease the lowest free node number of [lo, hi] (rejects with CHRONOID_ELEASE_* codes). */
export function leaseSnowflake(options?: LeaseOptions): Promise<LeasedSnowflake>;
/** Create the lease table if missing. */
export function leaseSetup(options?: LeaseOptions): Promise<void>;
/** Whether this build has leases (libpq's header was there when it was built). */
export const hasLease: boolean;

export function uuidv7(): string;
export function uuidv7Bytes(): Uint8Array;
export function uuidv7Buffer(n: number): Uint8Array;
export function uuidv7Batch(n: number): string[];
export function uuidv4(): string;
export function uuidv4Bytes(): Uint8Array;
export function uuidv4Buffer(n: number): Uint8Array;
export function uuidv4Batch(n: number): string[];
export function ulid(): string;
export function ulidBytes(): Uint8Array;
export function ulidBuffer(n: number): Uint8Array;
export function ulidBatch(n: number): string[];
export function monotonicUlid(): string;
export function monotonicUlidBytes(): Uint8Array;
export function monotonicUlidBuffer(n: number): Uint8Array;
export function monotonicUlidBatch(n: number): string[];
/** A version 6 UUID (RFC 9562 §5.6): time in 100-ns steps, strictly increasing in this process; random clock sequence and node. */
export function uuidv6(): string;
export function uuidv6Bytes(): Uint8Array;
export function uuidv6Buffer(n: number): Uint8Array;
export function uuidv6Batch(n: number): string[];
/** A MongoDB ObjectId, 24 lower-case hex digits: the second, 5 bytes per process, a counter that steps by one (and wraps). */
export function objectid(): string;
/** 12 bytes. */
export function objectidBytes(): Uint8Array;
/** n ObjectIds, 12 bytes each. */
export function objectidBuffer(n: number): Uint8Array;
export function objectidBatch(n: number): string[];
/** A KSUID, 27 base62 characters: the second and 16 random bytes (no order within a second). */
export function ksuid(): string;
/** 20 bytes. */
export function ksuidBytes(): Uint8Array;
/** n KSUIDs, 20 bytes each. */
export function ksuidBuffer(n: number): Uint8Array;
export function ksuidBatch(n: number): string[];

export function inspect(id: string | bigint | Uint8Array, options?: { layout?: LayoutInput }): IdInfo;
/** The kinds isValid() tells apart. */
export type IdKind = 'uuid' | 'ulid' | 'snowflake' | 'objectid' | 'ksuid' | 'typeid';
/** Whether id is an ID inspect() reads (of kind, when given); false for anything else, never a throw. */
export function isValid(id: unknown, kind?: IdKind, options?: { layout?: LayoutInput }): boolean;
/** A UUID's version (7 for a UUIDv7), null for a variant other than RFC 9562's; throws for anything but a UUID. */
export function uuidVersion(uuid: Id128Input): number | null;
export function uuidToUlid(uuid: Id128Input): string;
export function ulidToUuid(ulid: Id128Input): string;
/** A version 1 UUID rewritten as version 6 (same time, clock sequence, node); another version throws CHRONOID_EINVAL. */
export function uuidv1ToV6(uuid: Id128Input): string;
/** A version 6 UUID rewritten as version 1; another version throws CHRONOID_EINVAL. */
export function uuidv6ToV1(uuid: Id128Input): string;

/** A TypeID's parts: its prefix ('' for none) and its UUID in canonical text. */
export interface TypeIdParts {
  prefix: string;
  uuid: string;
}
/** A new TypeID: the next UUIDv7 of uuidv7()'s generator under prefix (default none). */
export function typeid(prefix?: string): string;
/** The UUID (text or 16 bytes) written as a TypeID under prefix ('' for none). */
export function typeidFromUuid(prefix: string, uuid: Id128Input): string;
/** The UUID of a TypeID; with expectedPrefix, a TypeID of another prefix throws. */
export function typeidToUuid(typeid: string, expectedPrefix?: string): string;
export function parseTypeid(typeid: string): TypeIdParts;
/**
 * A UUIDv7 / ULID of time's millisecond (backfills, tests), its other bits
 * random: no order among those of one millisecond, and no generator state.
 * A time outside 1970 .. 10889 throws (CHRONOID_ETIME_RANGE).
 */
export function uuidv7At(time: TimeInput): string;
export function ulidAt(time: TimeInput): string;
export function uuidv7Bounds(time: TimeInput): Bounds<string>;
export function ulidBounds(time: TimeInput): Bounds<string>;
/** The smallest and largest UUIDv6 of the millisecond of time (1582-10-15 .. 5236). */
export function uuidv6Bounds(time: TimeInput): Bounds<string>;
/** The smallest and largest ObjectId of the second of time (1970 .. 2106-02-07). */
export function objectidBounds(time: TimeInput): Bounds<string>;
/** The smallest and largest KSUID of the second of time (2014-05-13 .. 2150-06-19). */
export function ksuidBounds(time: TimeInput): Bounds<string>;
export function snowflakeBounds(time: TimeInput, layout?: LayoutInput): Bounds<bigint>;
export function layout(spec?: LayoutInput): Layout;
/** The claim directory; null in the WebAssembly build, which has no host claims. */
export function claimDir(): string | null;
export const presets: readonly string[];
export const version: string;
export const maxBatch: number;
/** Which build of libchronoid runs: the Node-API addon, or the WebAssembly module (browsers, workers, edge runtimes, and Node where no addon loads). */
export const build: 'addon' | 'wasm';
