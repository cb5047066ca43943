// Made from wasm-native.mjs by scripts/cjs.js: edit that file, not this one.
'use strict';

// wasm-native.mjs — libchronoid's WebAssembly build (wasm/glue.c, made by
// `make wasm` into lib/chronoid.wasm) behind the same native functions the
// Node-API addon exports, so that api.mjs shapes both alike.  Here only
// JavaScript types are told apart and bytes moved: the C glue checks the
// values, words the errors as the addon does, and the core makes the IDs.
// lib/wasm-native.cjs is made from this file by scripts/wasm.js.

const KINDS = ['uuidv7', 'uuidv4', 'ulid', 'monotonicUlid', 'uuidv6', 'objectid', 'ksuid'];
const SIZES = [16, 16, 16, 16, 16, 12, 20];
const TEXT = [36, 36, 26, 26, 36, 24, 27];
// The kinds with bounds, by their index in KINDS.
const BOUNDS = { uuidv7Bounds: 0, ulidBounds: 2, uuidv6Bounds: 4, objectidBounds: 5, ksuidBounds: 6 };
const LIMITS = ['maxDriftMs', 'maxWaitMs', 'maxBorrowTicks'];
const U64 = 2n ** 64n;
// The realm's Snowflake generators, shared by every copy of the package.
const REGISTRY = Symbol.for('chronoid.wasm.snowflakes.v1');

const NO_CLAIMS = 'the WebAssembly build of chronoid has no node claims (no host-wide claim directory ' +
  'exists in a page, a worker or an edge runtime), and it does not guess a node number: pass claim: false ' +
  'and a node number that no other page, worker or process mints with';

/**
 * The functions the WebAssembly host supplies: the wall clock, a monotonic
 * clock and random bytes (host.randomFill(u8) fills a Uint8Array), and
 * the few WASI calls wasi-libc's code refers to, none of which the glue's
 * paths make (each answers "not supported").
 */
function wasmImports(host, memory) {
  const nosys = () => 52;
  return {
    chronoid: {
      now_ms: () => Date.now(),
      mono_ms: () => performance.now(),
      random: (p, len) => {
        try {
          const view = new Uint8Array(memory().buffer, p, len);
          // getRandomValues takes at most 65536 bytes a call.
          for (let i = 0; i < len; i += 65536)
            host.randomFill(view.subarray(i, Math.min(len, i + 65536)));
          return 0;
        } catch {
          return -1;
        }
      },
    },
    wasi_snapshot_preview1: {
      clock_time_get: nosys,
      fd_close: nosys,
      fd_seek: nosys,
      fd_write: nosys,
      sched_yield: () => 0,
    },
  };
}

function typeName(v) {
  if (v === null)
    return 'null';
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'boolean': return 'a boolean';
    case 'number': return 'a number';
    case 'string': return 'a string';
    case 'symbol': return 'a symbol';
    case 'function': return 'a function';
    case 'bigint': return 'a bigint';
  }
  if (Array.isArray(v))
    return 'an array';
  if (v instanceof Date)
    return 'a Date';
  if (ArrayBuffer.isView(v) && !(v instanceof DataView))
    return 'a typed array';
  return 'an object';
}

function typeError(v, what, expected) {
  const e = new TypeError(`${what} must be ${expected}, got ${typeName(v)}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  return e;
}

/**
 * The native functions over an instance of the module; alloc(n) makes the
 * n-byte arrays returned (Buffers under Node).
 */
function wasmNative(instance, alloc) {
  const X = instance.exports;
  // A reactor module: its constructors run once, before any other call.
  if (X._initialize)
    X._initialize();
  const memory = X.memory;
  let heap = new Uint8Array(memory.buffer);
  // A view of the memory, made again after it grew.  Growing detaches the
  // old buffer, and a view of a detached buffer has length 0: testing that
  // is cheaper than asking memory.buffer on every call.
  const u8 = () => (heap.length !== 0 ? heap : (heap = new Uint8Array(memory.buffer)));
  const encoder = new TextEncoder();
  // The IDs' text is ASCII: UTF-8 decodes it, in every runtime.
  const decoder = new TextDecoder();
  const io = X.io();
  const ioBytes = X.io_bytes();

  const chr = String.fromCharCode;

  // The 36 bytes at p as a string, each byte a character.  Written out
  // rather than chr.apply(null, h.subarray(...)): with no view and no
  // spread to make, V8 builds the string four times as fast, which is
  // half the cost of a single ID in Chromium (docs/benchmarks.md).
  function chars36(h, p) {
    return chr(h[p], h[p + 1], h[p + 2], h[p + 3], h[p + 4], h[p + 5], h[p + 6], h[p + 7], h[p + 8],
      h[p + 9], h[p + 10], h[p + 11], h[p + 12], h[p + 13], h[p + 14], h[p + 15], h[p + 16], h[p + 17],
      h[p + 18], h[p + 19], h[p + 20], h[p + 21], h[p + 22], h[p + 23], h[p + 24], h[p + 25], h[p + 26],
      h[p + 27], h[p + 28], h[p + 29], h[p + 30], h[p + 31], h[p + 32], h[p + 33], h[p + 34], h[p + 35]);
  }

  // The 26 bytes of a ULID's text, likewise.
  function chars26(h, p) {
    return chr(h[p], h[p + 1], h[p + 2], h[p + 3], h[p + 4], h[p + 5], h[p + 6], h[p + 7], h[p + 8],
      h[p + 9], h[p + 10], h[p + 11], h[p + 12], h[p + 13], h[p + 14], h[p + 15], h[p + 16], h[p + 17],
      h[p + 18], h[p + 19], h[p + 20], h[p + 21], h[p + 22], h[p + 23], h[p + 24], h[p + 25]);
  }

  // len bytes of ASCII text at p in the module's memory as a string.
  function ascii(p, len) {
    const h = u8();
    if (len === 36)
      return chars36(h, p);
    if (len === 26)
      return chars26(h, p);
    // Other short texts by fromCharCode: TextDecoder's fixed cost per
    // call, in Chromium, is several times an ID's.
    return len <= 64 ? chr.apply(null, h.subarray(p, p + len)) : decoder.decode(h.subarray(p, p + len));
  }

  function cstring(at) {
    const h = u8();
    let end = at;
    while (h[end] !== 0)
      end++;
    return decoder.decode(h.subarray(at, end));
  }

  function thrown() {
    const E = X.err_range() ? RangeError : Error;
    const e = new E(cstring(X.err_msg()));
    e.code = cstring(X.code(X.err_status()));
    throw e;
  }

  function ok(rc) {
    if (rc < 0)
      thrown();
    return rc;
  }

  /* s into io as UTF-8: its full length in bytes (io holds the start of a longer one). */
  function put(s) {
    const { read, written } = encoder.encodeInto(s, u8().subarray(io, io + ioBytes));
    return read === s.length ? written : encoder.encode(s).length;
  }

  function text(v, what) {
    if (typeof v !== 'string')
      throw typeError(v, what, 'a string');
    return put(v);
  }

  function count(v) {
    if (typeof v !== 'number')
      throw typeError(v, 'the batch size', 'a number');
    return ok(X.count(v));
  }

  function time(v) {
    if (typeof v === 'number')
      return ok(X.time_num(v, 0));
    if (v instanceof Date)
      return ok(X.time_num(v.getTime(), 1));
    if (typeof v === 'string')
      return ok(X.time_text(text(v, 'time')));
    throw typeError(v, 'time', 'a Date, a number of Unix ms or a string');
  }

  function layoutArg(v) {
    ok(X.layout_set(v === undefined || v === null ? -1 : text(v, 'layout')));
  }

  function layoutObject() {
    const j = JSON.parse(ascii(io, X.layout_json()));
    return {
      name: j.name, spec: j.spec, bits: j.bits, timeBits: j.timeBits, nodeBits: j.nodeBits,
      sequenceBits: j.sequenceBits, reservedBits: j.reservedBits, tickMs: j.tickMs,
      epoch: new Date(j.epochMs), epochMs: j.epochMs, maxNode: j.maxNode, maxMs: j.maxMs,
    };
  }

  /* 16 bytes of v into io: false when v is not a typed array. */
  function bytes16(v, what) {
    if (!ArrayBuffer.isView(v) || v instanceof DataView)
      return false;
    if (!(v instanceof Uint8Array))
      throw typeError(v, what, 'a string or 16 bytes (Buffer or Uint8Array)');
    if (v.length !== 16) {
      const e = new Error(`${what} must be 16 bytes, got ${v.length}`);
      e.code = 'CHRONOID_ELENGTH';
      throw e;
    }
    u8().set(v, io);
    return true;
  }

  function id16(v, asUlid) {
    const what = asUlid ? 'ulid' : 'uuid';
    ok(X.id16(asUlid ? 1 : 0, bytes16(v, what) ? -1 : text(v, what)));
  }

  function prefix(v) {
    ok(X.prefix(v === undefined ? -1 : text(v, 'TypeID prefix')));
  }

  function convert(op) {
    return ascii(io, ok(X.convert(op)));
  }

  function copyOut(p, n) {
    const out = alloc(n);
    out.set(u8().subarray(p, p + n));
    return out;
  }

  // bytes of memory in the module for use(p), freed after.
  function withMemory(bytes, n, use) {
    const p = X.alloc(bytes);
    if (p === 0) {
      const e = new RangeError(`batch of ${n}: out of memory`);
      e.code = 'CHRONOID_EINVAL';
      throw e;
    }
    try {
      return use(p);
    } finally {
      X.free(p);
    }
  }

  const native = { build: 'wasm', hasLease: false, maxBatch: X.max_batch() };

  KINDS.forEach((name, k) => {
    const size = SIZES[k];
    const w = TEXT[k] + 1;
    native[name] = () => ascii(io, ok(X.next(k)));
    native[`${name}Into`] = (target) => {
      if (!(target instanceof Uint8Array) || target.length !== size)
        throw typeError(target, 'target', `a Uint8Array of ${size} bytes`);
      ok(X.fill(k, io, 1));
      // Byte by byte: a subarray for set() would cost more than the copy.
      const h = u8();
      for (let i = 0; i < size; i++)
        target[i] = h[io + i];
      return target;
    };
    native[`${name}Buffer`] = (n) => {
      const c = count(n);
      return withMemory(c * size, c, (p) => {
        ok(X.fill(k, p, c));
        return copyOut(p, c * size);
      });
    };
    native[`${name}Json`] = (n) => {
      const c = count(n);
      const at = c * size;
      // CID_BIND_JSON_BYTES (bind/bind_internal.h): "[]" and its NUL when c is 0.
      return withMemory(at + c * (w + 2) + 3, c, (p) => {
        const len = ok(X.json(k, p, c));
        return decoder.decode(u8().subarray(p + at, p + at + len));
      });
    };
  });

  for (const [name, k] of Object.entries(BOUNDS)) {
    native[name] = (t) => {
      time(t);
      const [min, max] = ascii(io, ok(X.bounds(k))).split('\n');
      return { min, max };
    };
  }

  native.uuidv7At = (t) => {
    time(t);
    return ascii(io, ok(X.id_at(0)));
  };
  native.ulidAt = (t) => {
    time(t);
    return ascii(io, ok(X.id_at(2)));
  };

  native.snowflakeBounds = (t, layout) => {
    time(t);
    layoutArg(layout);
    const [min, max] = ascii(io, ok(X.snowflake_bounds())).split('\n');
    return { min: BigInt(min), max: BigInt(max) };
  };

  native.layout = (spec) => {
    layoutArg(spec);
    return layoutObject();
  };

  native.uuidToUlid = (v) => (id16(v, false), convert(0));
  native.ulidToUuid = (v) => (id16(v, true), convert(1));
  native.uuidv1ToV6 = (v) => (id16(v, false), convert(2));
  native.uuidv6ToV1 = (v) => (id16(v, false), convert(3));

  native.typeid = (p) => {
    prefix(p);
    return ascii(io, ok(X.typeid_new()));
  };
  native.typeidFromUuid = (p, uuid) => {
    prefix(p);
    id16(uuid, false);
    return ascii(io, ok(X.typeid_from_uuid()));
  };
  native.typeidToUuid = (t, want) => {
    ok(X.typeid_get(text(t, 'TypeID')));
    if (want !== undefined) {
      prefix(want);
      ok(X.typeid_check());
    }
    return convert(4);
  };
  native.parseTypeid = (t) => {
    const plen = ok(X.typeid_get(text(t, 'TypeID')));
    return { prefix: t.slice(0, plen), uuid: convert(4) };
  };

  native.inspect = (id, layout) => {
    let n;
    layoutArg(layout);
    if (typeof id === 'bigint') {
      const inRange = id >= -(2n ** 63n) && id < U64;
      n = X.inspect_snowflake(inRange ? BigInt.asIntN(64, id) : 0n, inRange ? 1 : 0);
    } else if (bytes16(id, 'id')) {
      n = X.inspect_bytes();
    } else if (typeof id === 'string') {
      n = X.inspect_text(put(id));
    } else {
      throw typeError(id, 'id', 'a string, a BigInt or 16 bytes (Buffer or Uint8Array)');
    }
    const j = JSON.parse(ascii(io, ok(n)));
    const info = { kind: j.kind, time: j.hasTime ? new Date(j.unixMs) : null, unixMs: j.hasTime ? j.unixMs : null };
    info.id = j.id;
    if (j.bytes !== undefined) {
      if (j.kind === 'uuid')
        info.version = j.version >= 0 ? j.version : null;
      const b = alloc(j.bytes.length / 2);
      for (let i = 0; i < b.length; i++)
        b[i] = parseInt(j.bytes.slice(2 * i, 2 * i + 2), 16);
      info.bytes = b;
    } else {
      info.value = BigInt(j.id);
      info.node = j.node;
      info.sequence = j.sequence;
      info.layout = j.layout;
    }
    return info;
  };

  // One generator per (scope, node) in this JavaScript realm (a page, a
  // worker, a Node process's main thread), as the addon keeps one per
  // process: every Snowflake object of the pair draws from it, one made
  // after another was closed carries on from its last tick, and a second
  // copy of the package in the realm (npm nests one) finds it on
  // globalThis rather than starting a generator of its own.
  const generators = (globalThis[REGISTRY] ??= new Map());

  // A Snowflake object's use of its generator ends once: at close(), or
  // when the object is collected unclosed.
  const release = (use) => {
    if (!use.closed)
      use.g.refs--;
    use.closed = true;
  };
  // workerd has no FinalizationRegistry: there an unclosed object holds
  // its number for the isolate's life.
  const released = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(release) : null;

  native.snowflake = (layout, node, scope, claim, claimDir, behind, drift, wait, exhausted, borrow) => {
    layoutArg(layout);
    if (typeof node === 'number')
      ok(X.sf_node(0, node, 0n));
    else if (typeof node === 'bigint')
      ok(node >= 0n && node < U64 ? X.sf_node(1, 0, BigInt.asIntN(64, node)) : X.sf_node(2, 0, 0n));
    else
      throw typeError(node, 'node', 'a number or a BigInt');
    if (scope !== undefined && scope !== null)
      ok(X.opt_text(0, text(scope, 'scope')));
    if (claimDir !== undefined && claimDir !== null)
      ok(X.opt_text(1, text(claimDir, 'claimDir')));
    X.sf_begin();
    X.sf_policies(behind ?? 0, exhausted ?? 0);
    [drift, wait, borrow].forEach((v, i) => {
      if (v === undefined || v === null)
        return;
      if (typeof v !== 'number')
        throw typeError(v, LIMITS[i], 'a number');
      ok(X.sf_limit(i, v));
    });
    const h = X.sf_new();
    if (h === 0)
      thrown();
    if (claim !== false || (claimDir !== undefined && claimDir !== null)) {
      X.free(h);
      const dir = claimDir === undefined || claimDir === null ? '' : `claimDir ${JSON.stringify(claimDir)}: `;
      const e = new Error(dir + NO_CLAIMS);
      e.code = 'CHRONOID_ECLAIM';
      throw e;
    }
    const nodeValue = BigInt.asUintN(64, BigInt(node));
    const theScope = scope ?? 'default';
    const key = `${theScope}\0${nodeValue}`;
    const desc = layoutObject();
    const settings = JSON.stringify([desc.spec, behind ?? 0, exhausted ?? 0, drift, wait, borrow]);
    let g = generators.get(key);
    if (g !== undefined && g.settings !== settings && g.refs > 0) {
      X.free(h);
      const e = new Error(`node ${nodeValue} of scope ${JSON.stringify(theScope)} is already in use in ` +
        `this process (this page or worker) with layout "${JSON.parse(g.settings)[0]}" and other ` +
        'settings: one process mints under one number with one layout and one set of policies');
      e.code = 'CHRONOID_ENODE_HELD';
      throw e;
    }
    if (g === undefined || g.settings !== settings) {
      // A number all of whose objects closed may change settings: the new
      // generator starts after the last tick of the old one.
      if (g !== undefined) {
        ok(X.sf_start_after(h, g.lastMs()));
        g.dispose();
      }
      g = {
        settings,
        refs: 0,
        next() {
          const id = X.sf_next(h, Date.now());
          if (id === 0n && X.err_status() !== 0)
            thrown();
          return id;
        },
        batch(c) {
          const ids = new BigInt64Array(c);
          if (c > 0)
            withMemory(c * 8, c, (p) => {
              ok(X.sf_fill(h, p, c));
              ids.set(new BigInt64Array(memory.buffer, p, c));
            });
          return ids;
        },
        lastMs: () => X.sf_last_ms(h),
        dispose: () => X.free(h),
      };
      generators.set(key, g);
    } else {
      X.free(h);
    }
    return userOf(g, nodeValue, theScope, desc);
  };

  /*
   * One Snowflake object's functions over g.  Made here rather than in
   * native.snowflake: closures made in one call share its scope, and g's
   * own functions, which live on in `generators`, would keep this
   * object's `user` alive with it.
   */
  function userOf(g, nodeValue, theScope, desc) {
    g.refs++;
    // What next, batch and close share.  `user` is reachable while any of
    // the three functions is (each holds it), so a Snowflake dropped
    // without close() gives its number up when the last of them is
    // collected, as the addon's finalizers do; until then its settings
    // hold the number.
    const use = { g, closed: false };
    const user = { use };
    released?.register(user, use, user);
    const open = () => {
      if (user.use.closed) {
        const e = new Error(`this snowflake generator (node ${nodeValue}) was closed`);
        e.code = 'CHRONOID_ECLOSED';
        throw e;
      }
    };
    return {
      next() {
        open();
        return g.next();
      },
      batch(n) {
        const c = count(n);
        open();
        return g.batch(c);
      },
      close() {
        released?.unregister(user);
        release(user.use);
      },
      node: nodeValue,
      scope: theScope,
      layout: desc,
      claimPath: null,
    };
  }

  // As the addon built without libpq answers: a rejected Promise.
  const noLease = (what) => {
    const e = new Error(`chronoid's WebAssembly build has no libpq: ${what} need libpq, ` +
      'which only the Node addon can link (Debian: libpq-dev when it is built)');
    e.code = 'CHRONOID_ENOLEASE';
    return Promise.reject(e);
  };
  native.lease = () => noLease('node leases');
  native.blockOpen = () => noLease('block allocators');
  native.claimDir = () => null;
  native.presets = ascii(io, X.presets()).split('\n');
  native.version = ascii(io, X.version());
  return native;
}

module.exports = { wasmImports, wasmNative };
