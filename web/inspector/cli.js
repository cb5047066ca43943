// cli.js — the chronoid command compiled to WebAssembly (make inspector:
// ../../src, ../../cli and ../../wasm/cli.c for wasm32-wasi), run in the
// page as a shell would run it: arguments in, standard output, standard
// error and the exit status out.  The WASI calls it makes are answered
// here: arguments, the clocks (Date.now(), performance.now()), writes to
// fds 1 and 2, no files, no environment; random bytes come from
// crypto.getRandomValues.  One fresh instance per command, as a process.
'use strict';

/* A runner over the module's bytes: run(args) resolves to { code, stdout, stderr }. */
async function chronoidCommand(bytes) {
  const module = await WebAssembly.compile(bytes);
  const ERRNO = { ok: 0, badf: 8, inval: 28, noent: 44, nosys: 52, spipe: 70 };

  class Exit {
    constructor(code) {
      this.code = code;
    }
  }

  return async function run(args) {
    let memory = null;
    const out = [];
    const err = [];
    const enc = new TextEncoder();
    const argv = ['chronoid', ...args].map((a) => enc.encode(`${a}\0`));
    const view = () => new DataView(memory.buffer);
    const bytesAt = (p, n) => new Uint8Array(memory.buffer, p, n);
    const wasi = {
      args_sizes_get(pc, ps) {
        view().setUint32(pc, argv.length, true);
        view().setUint32(ps, argv.reduce((n, a) => n + a.length, 0), true);
        return ERRNO.ok;
      },
      args_get(pv, pb) {
        let b = pb;
        argv.forEach((a, i) => {
          view().setUint32(pv + 4 * i, b, true);
          bytesAt(b, a.length).set(a);
          b += a.length;
        });
        return ERRNO.ok;
      },
      environ_sizes_get(pc, ps) {
        view().setUint32(pc, 0, true);
        view().setUint32(ps, 0, true);
        return ERRNO.ok;
      },
      environ_get: () => ERRNO.ok,
      clock_time_get(id, precision, p) {
        // 0 is the wall clock; the others are elapsed time.
        const ns = id === 0 ? BigInt(Date.now()) * 1000000n : BigInt(Math.round(performance.now() * 1e6));
        view().setBigUint64(p, ns, true);
        return ERRNO.ok;
      },
      fd_write(fd, iovs, n, pwritten) {
        if (fd !== 1 && fd !== 2)
          return ERRNO.badf;
        let total = 0;
        for (let i = 0; i < n; i++) {
          const p = view().getUint32(iovs + 8 * i, true);
          const len = view().getUint32(iovs + 8 * i + 4, true);
          (fd === 1 ? out : err).push(bytesAt(p, len).slice());
          total += len;
        }
        view().setUint32(pwritten, total, true);
        return ERRNO.ok;
      },
      // Standard input is empty: every ID comes as an argument.
      fd_read(fd, iovs, n, pread) {
        view().setUint32(pread, 0, true);
        return fd === 0 ? ERRNO.ok : ERRNO.badf;
      },
      fd_fdstat_get(fd, p) {
        if (fd > 2)
          return ERRNO.badf;
        bytesAt(p, 24).fill(0);
        view().setUint8(p, 2); // a character device, as a terminal is
        return ERRNO.ok;
      },
      fd_close: () => ERRNO.ok,
      fd_seek: () => ERRNO.spipe,
      fd_prestat_get: () => ERRNO.badf,
      fd_prestat_dir_name: () => ERRNO.badf,
      path_filestat_get: () => ERRNO.noent,
      path_readlink: () => ERRNO.noent,
      sched_yield: () => ERRNO.ok,
      proc_exit(code) {
        throw new Exit(code);
      },
    };
    const host = {
      now_ms: () => Date.now(),
      mono_ms: () => performance.now(),
      random(p, len) {
        try {
          for (let i = 0; i < len; i += 65536)
            crypto.getRandomValues(bytesAt(p + i, Math.min(65536, len - i)));
          return 0;
        } catch {
          return -1;
        }
      },
    };
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi, chronoid: host });
    memory = instance.exports.memory;
    let code = 0;
    try {
      instance.exports._start();
    } catch (e) {
      if (!(e instanceof Exit))
        throw e;
      code = e.code;
    }
    const text = (chunks) => new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    return { code, stdout: text(out), stderr: text(err) };
  };
}
