// api.mjs — the package's API over either build of libchronoid: the
// Node-API addon (src/*.c) or the WebAssembly module (../../wasm/).  Both
// builds hand makeApi the same native functions, which check the arguments
// and make every ID; this layer only shapes them.  lib/api.cjs is made
// from this file by scripts/wasm.js (CommonJS for require()); edit here.
// docs/javascript.md is the manual.

/**
 * The API over native (the addon's exports, or wasm-native's); alloc(n)
 * gives the n-byte Uint8Array (a Buffer under Node) that *Bytes() fills.
 */
function makeApi(native, alloc) {
  const BEHIND = { 'run-ahead': 0, wait: 1, fail: 2 };
  const EXHAUSTED = { wait: 0, borrow: 1 };
  const SNOWFLAKE_OPTIONS = new Set(['node', 'layout', 'scope', 'claim', 'claimDir', 'onClockBehind',
    'maxDriftMs', 'maxWaitMs', 'onExhausted', 'maxBorrowTicks']);

  function typeError(msg) {
    const e = new TypeError(msg);
    e.code = 'ERR_INVALID_ARG_TYPE';
    return e;
  }

  function policy(table, value, what) {
    if (value === undefined)
      return undefined;
    if (typeof value === 'string' && Object.hasOwn(table, value))
      return table[value];
    const e = new RangeError(`${what} ${JSON.stringify(String(value))} is not a policy: expected one of ` +
      Object.keys(table).map((k) => JSON.stringify(k)).join(', '));
    e.code = 'CHRONOID_EINVAL';
    throw e;
  }

  // Text batches come from C as one JSON array: one string and one parse
  // cost far less than n strings handed over one by one, and JSON.parse
  // copies each ID out, where the pieces of split() would each keep the
  // whole batch's text alive (bind/batch_json.c).
  // A string holds at most 2^29 - 24 characters (V8), fewer than maxBatch
  // UUIDs' text: a longer batch of texts is made this many at a time.
  const TEXTS_AT_ONCE = 1 << 20;

  function batchOf(jsonOf) {
    return (n) => {
      if (!(Number.isInteger(n) && n > TEXTS_AT_ONCE && n <= native.maxBatch))
        return JSON.parse(jsonOf(n));
      let out = [];
      for (let left = n; left > 0; left -= TEXTS_AT_ONCE)
        out = out.concat(JSON.parse(jsonOf(Math.min(left, TEXTS_AT_ONCE))));
      return out;
    };
  }

  // What Snowflake and LeasedSnowflake share: the native generator's
  // functions as own properties (a direct call, no wrapper on the hot path)
  // and the layout-bound helpers.  Subclasses freeze the object.
  class SnowflakeFace {
    #layoutArg;

    constructor(g) {
      const next = g.next;
      /** Next ID as a BigInt (signed, as PostgreSQL's bigint). */
      this.next = next;
      /** Next ID as decimal text (for JSON: a Number cannot hold 64 bits). */
      this.nextString = () => next().toString();
      /** n IDs, increasing, as a BigInt64Array. */
      this.batch = g.batch;
      this.node = Number(g.node);
      this.layout = g.layout;
      // Presets by name, so that decoded IDs name their layout.
      this.#layoutArg = g.layout.name === 'custom' ? g.layout.spec : g.layout.name;
    }

    /** n IDs as decimal strings. */
    batchStrings(n) {
      return Array.from(this.batch(n), (id) => id.toString());
    }

    /** Smallest and largest ID of any node in the tick of a time. */
    bounds(time) {
      return native.snowflakeBounds(time, this.#layoutArg);
    }

    /** Decode an ID of this generator's layout. */
    inspect(id) {
      return native.inspect(id, this.#layoutArg);
    }
  }

  /**
   * A Snowflake generator.  Every generator of one (scope, node) in a
   * process, in any worker_thread, shares one C generator, so IDs never
   * repeat and always increase; the first one claims the node number on
   * this host (unless claim is false), so a second process is refused.
   */
  class Snowflake extends SnowflakeFace {
    constructor(options) {
      if (options === null || typeof options !== 'object')
        throw typeError(`Snowflake options must be an object with a node, got ${options === null ? 'null' : typeof options}`);
      for (const key of Object.keys(options))
        if (!SNOWFLAKE_OPTIONS.has(key))
          throw typeError(`unknown Snowflake option ${JSON.stringify(key)}: expected ${[...SNOWFLAKE_OPTIONS].join(', ')}`);
      if (options.claim !== undefined && typeof options.claim !== 'boolean')
        throw typeError(`Snowflake option claim must be a boolean, got ${typeof options.claim}`);
      const g = native.snowflake(options.layout, options.node, options.scope, options.claim,
        options.claimDir, policy(BEHIND, options.onClockBehind, 'onClockBehind'), options.maxDriftMs,
        options.maxWaitMs, policy(EXHAUSTED, options.onExhausted, 'onExhausted'), options.maxBorrowTicks);
      super(g);
      /** Stop using the generator (and, with the last user, free the claim). */
      this.close = g.close;
      this.scope = g.scope;
      this.claimPath = g.claimPath;
      Object.freeze(this);
    }
  }

  const LEASE_OPTIONS = new Set(['conninfo', 'schema', 'owner', 'ttlMs', 'graceMs', 'clockWaitMs', 'lo', 'hi',
    'renew', 'layout', 'onClockBehind', 'maxDriftMs', 'maxWaitMs', 'onExhausted', 'maxBorrowTicks']);

  function leaseCall(op, options = {}) {
    if (options === null || typeof options !== 'object')
      return Promise.reject(typeError(`lease options must be an object, got ${options === null ? 'null' : typeof options}`));
    for (const key of Object.keys(options))
      if (!LEASE_OPTIONS.has(key))
        return Promise.reject(typeError(`unknown lease option ${JSON.stringify(key)}: expected ${[...LEASE_OPTIONS].join(', ')}`));
    if (options.renew !== undefined && typeof options.renew !== 'boolean')
      return Promise.reject(typeError(`lease option renew must be a boolean, got ${typeof options.renew}`));
    try {
      return native.lease(op, options.layout, options.conninfo, options.schema, options.owner,
        options.renew !== false, options.ttlMs, options.graceMs, options.clockWaitMs, options.lo, options.hi,
        policy(BEHIND, options.onClockBehind, 'onClockBehind'), options.maxDriftMs, options.maxWaitMs,
        policy(EXHAUSTED, options.onExhausted, 'onExhausted'), options.maxBorrowTicks);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * A Snowflake generator whose node number is leased from PostgreSQL
   * (libchronoid_lease: the lowest free number of [lo, hi], renewed in the
   * background, fenced on the monotonic clock so that a lease that cannot be
   * renewed stops minting before the number can go to someone else).
   */
  class LeasedSnowflake extends SnowflakeFace {
    #state;

    constructor(g) {
      super(g);
      this.#state = g.state;
      /** Give the number back now (a Promise): the next holder's IDs sort after ours. */
      this.release = g.release;
      this.holder = g.holder;
      this.notBeforeMs = g.notBeforeMs;
      Object.freeze(this);
    }

    /** null while the lease may mint, else the code minting fails with. */
    status() {
      return this.#state().code;
    }

    /** ms until the local deadline (0 once fenced). */
    remainingMs() {
      return this.#state().remainingMs;
    }
  }

  /** Lease a node number: resolves to a LeasedSnowflake. */
  async function leaseSnowflake(options) {
    return new LeasedSnowflake(await leaseCall(1, options));
  }

  /** Create the lease table if missing (CREATE ... IF NOT EXISTS). */
  async function leaseSetup(options) {
    await leaseCall(0, options);
  }

  const BLOCK_OPTIONS = new Set(['conninfo', 'targetMs', 'minSize', 'maxSize', 'initialSize', 'prefetchPct',
    'waitMs', 'timeoutMs']);
  const BLOCK_OPENING = Symbol('BlockAllocator.open');

  /**
   * Values of a PostgreSQL sequence reserved a block at a time
   * (libchronoid_lease's allocator, docs/block.md): the next block is
   * prefetched by a background thread and sized to last targetMs at the rate
   * values are taken.  No value is ever handed out twice, across allocators
   * and processes; one allocator's values increase.
   */
  class BlockAllocator {
    #stats;

    constructor(opening, b) {
      if (opening !== BLOCK_OPENING)
        throw typeError('a BlockAllocator is made by `await BlockAllocator.open(sequence, options)`');
      /** Next value as a BigInt; waits (holding up the event loop) only when no block is in hand. */
      this.next = b.next;
      /** Next value as a Promise: from the block in hand at once, else waited for on the thread pool. */
      this.nextAsync = b.nextAsync;
      /** Stop the prefetching thread and disconnect (a Promise); the values in hand are lost (gaps). */
      this.close = b.close;
      this.sequence = b.sequence;
      this.#stats = b.stats;
      Object.freeze(this);
    }

    /** Connect, check the sequence, reserve the first block: resolves to a BlockAllocator. */
    static async open(sequence, options = {}) {
      if (options === null || typeof options !== 'object')
        throw typeError(`BlockAllocator options must be an object, got ${options === null ? 'null' : typeof options}`);
      for (const key of Object.keys(options))
        if (!BLOCK_OPTIONS.has(key))
          throw typeError(`unknown BlockAllocator option ${JSON.stringify(key)}: expected ${[...BLOCK_OPTIONS].join(', ')}`);
      const b = await native.blockOpen(sequence, options.conninfo, options.targetMs, options.minSize, options.maxSize,
        options.initialSize, options.prefetchPct, options.waitMs, options.timeoutMs);
      return new BlockAllocator(BLOCK_OPENING, b);
    }

    /** Values issued, blocks reserved (round trips), failed reservations, waits, values in hand, next size. */
    stats() {
      return this.#stats();
    }
  }

  function inspect(id, options) {
    if (options !== undefined && (options === null || typeof options !== 'object'))
      throw typeError(`inspect options must be an object, got ${options === null ? 'null' : typeof options}`);
    return native.inspect(id, options?.layout);
  }

  const KINDS = ['uuid', 'ulid', 'snowflake', 'objectid', 'ksuid', 'typeid'];
  const KIND_NAMES = { ulid: 'ULID', snowflake: 'Snowflake', objectid: 'ObjectId', ksuid: 'KSUID', typeid: 'TypeID' };

  // Whether an error is the verdict on the ID (a failed parse, a value of
  // the wrong type) rather than a fault of the process.
  function verdict(e) {
    return typeof e?.code === 'string' && (e.code.startsWith('CHRONOID_') || e.code === 'ERR_INVALID_ARG_TYPE');
  }

  /**
   * Whether id is an ID inspect() reads (of kind, when given): false, never
   * a throw, for anything else, whatever its type.  A bad kind or layout is
   * the caller's mistake and throws.
   */
  function isValid(id, kind, options) {
    if (kind !== undefined && !KINDS.includes(kind)) {
      const e = new RangeError(`isValid kind ${JSON.stringify(String(kind))} is not a kind: expected one of ` +
        KINDS.map((k) => JSON.stringify(k)).join(', '));
      e.code = 'CHRONOID_EINVAL';
      throw e;
    }
    if (options !== undefined && (options === null || typeof options !== 'object'))
      throw typeError(`isValid options must be an object, got ${options === null ? 'null' : typeof options}`);
    const layoutArg = options?.layout;
    if (layoutArg !== undefined)
      native.layout(layoutArg);
    try {
      // A TypeID without a prefix has a ULID's form, and inspect() reads it
      // as one: the TypeID parser decides.
      if (kind === 'typeid')
        return typeof id === 'string' && native.parseTypeid(id) !== undefined;
      const got = native.inspect(id, layoutArg).kind;
      return kind === undefined || got === kind;
    } catch (e) {
      if (verdict(e))
        return false;
      throw e;
    }
  }

  /**
   * The version of a UUID (text or 16 bytes), as uuid's version(): 7 for a
   * UUIDv7; null when its variant is not RFC 9562's (the nil and max UUIDs
   * among them).  Anything but a UUID throws, naming it.
   */
  function uuidVersion(id) {
    const info = native.inspect(id, undefined);
    if (info.kind !== 'uuid') {
      const e = new RangeError(`${JSON.stringify(String(id))} is a ${KIND_NAMES[info.kind] ?? info.kind}, not a UUID ` +
        '(expected 36 characters with dashes, 32 hex digits or 16 bytes)');
      e.code = 'CHRONOID_EINVAL';
      throw e;
    }
    return info.version;
  }

  // The four shapes of a generated kind: text, its bytes, a Buffer of n,
  // n texts (uuidv7, uuidv7Bytes, uuidv7Buffer, uuidv7Batch, ...).
  function shapes(name, size) {
    const into = native[`${name}Into`];
    const jsonOf = native[`${name}Json`];
    return {
      [name]: native[name],
      [`${name}Bytes`]: () => into(alloc(size)),
      [`${name}Buffer`]: native[`${name}Buffer`],
      [`${name}Batch`]: batchOf(jsonOf),
    };
  }

  return {
    ...shapes('uuidv7', 16),
    ...shapes('uuidv4', 16),
    ...shapes('ulid', 16),
    ...shapes('monotonicUlid', 16),
    ...shapes('uuidv6', 16),
    ...shapes('objectid', 12),
    ...shapes('ksuid', 20),
    Snowflake,
    LeasedSnowflake,
    leaseSnowflake,
    leaseSetup,
    hasLease: native.hasLease,
    BlockAllocator,
    inspect,
    isValid,
    uuidVersion,
    uuidToUlid: native.uuidToUlid,
    ulidToUuid: native.ulidToUuid,
    uuidv1ToV6: native.uuidv1ToV6,
    uuidv6ToV1: native.uuidv6ToV1,
    typeid: native.typeid,
    typeidFromUuid: native.typeidFromUuid,
    typeidToUuid: native.typeidToUuid,
    parseTypeid: native.parseTypeid,
    uuidv7At: native.uuidv7At,
    ulidAt: native.ulidAt,
    uuidv7Bounds: native.uuidv7Bounds,
    ulidBounds: native.ulidBounds,
    uuidv6Bounds: native.uuidv6Bounds,
    objectidBounds: native.objectidBounds,
    ksuidBounds: native.ksuidBounds,
    snowflakeBounds: (time, layout) => native.snowflakeBounds(time, layout),
    layout: (spec) => native.layout(spec),
    claimDir: native.claimDir,
    presets: Object.freeze([...native.presets]),
    version: native.version,
    maxBatch: native.maxBatch,
    /** Which build of libchronoid this is: "addon" (Node-API) or "wasm" (WebAssembly). */
    build: native.build ?? 'addon',
  };
}

export { makeApi };
