"""make bench-python: chronoid's Python package against what Python code
uses without it, in one process, one table.

Baselines: the standard library's uuid.uuid4() and uuid.uuid1(), and two
generators written here the way they are usually written by hand (a
threading.Lock around the clock for Snowflakes, os.urandom per ULID).
Every case runs once per round, the rounds interleave the cases, and the
table shows each case's median over the rounds, per ID, in wall time and
in the thread's CPU time.  Speed is compared only within this run
(docs/benchmarks.md).  Two floors close the table: a builtin call that
reads the clock (time.time_ns()), and the kernel's random bytes alone
(os.urandom): what single calls and batches of UUIDv7s and ULIDs pay
for their bytes in a module whose random source is getrandom, and what
OpenSSL's DRBG saves them where it is (chronoid.random_source, printed
with the table; docs/design-random.md).

BENCH_PY_ROUNDS (default 9) and BENCH_PY_N (IDs per case and round,
default 200000) change the size.
"""
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from itertools import repeat

import chronoid

ROUNDS = int(os.environ.get("BENCH_PY_ROUNDS", "9"))
N = int(os.environ.get("BENCH_PY_N", "200000"))
BATCH = 1000

PGEDGE_EPOCH_MS = 1672531200000  # 2023-01-01
# 20 sequence bits: a million IDs per ms, so that no generator in the table
# waits for the clock and the figures are the generators' own cost.
WIDE = "time:41,node:2,seq:20;epoch=2023-01-01"


class PySnowflake:
    """A Snowflake generator as commonly hand-written: a threading.Lock
    around time.time() in ms, a sequence that waits for the next ms when it
    runs out."""

    def __init__(self, node, node_bits=10, seq_bits=12, epoch_ms=PGEDGE_EPOCH_MS):
        self.lock = threading.Lock()
        self.node = node
        self.seq_bits = seq_bits
        self.time_shift = node_bits + seq_bits
        self.seq_mask = (1 << seq_bits) - 1
        self.epoch_ms = epoch_ms
        self.last_ms = -1
        self.seq = 0

    def next(self):
        with self.lock:
            now = int(time.time() * 1000) - self.epoch_ms
            if now < self.last_ms:
                now = self.last_ms
            if now == self.last_ms:
                self.seq = (self.seq + 1) & self.seq_mask
                if self.seq == 0:
                    while now <= self.last_ms:
                        now = int(time.time() * 1000) - self.epoch_ms
            else:
                self.seq = 0
            self.last_ms = now
            return (now << self.time_shift) | (self.node << self.seq_bits) | self.seq


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def py_ulid():
    """A ULID as commonly hand-written: ms time, os.urandom, base32 by hand."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def timed(body, ids):
    """body() once: (wall ns, this thread's CPU ns) per ID.  The CPU time
    leaves out what the thread spent waiting for a CPU, which on a shared
    machine is most of the noise; the wall time is what a caller waits."""
    w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
    body()
    return (time.perf_counter_ns() - w0) / ids, (time.thread_time_ns() - c0) / ids


def per_call(fn, n):
    def body():
        for _ in repeat(None, n):
            fn()
    return lambda: timed(body, n)


def per_batch(fn, n, size=BATCH):
    calls = max(1, n // BATCH)

    def body():
        for _ in repeat(None, calls):
            fn(size)
    return lambda: timed(body, calls * BATCH)


def main(claims):
    py_sf = PySnowflake(node=1)
    py_sf_wide = PySnowflake(node=1, node_bits=2, seq_bits=20)
    # Node claims in the run's own directory (another run, or a service on
    # the host, may hold node 1), one scope per layout: one process holds a
    # number under one layout only (docs/node-claims.md).
    sf = chronoid.Snowflake("pgedge", node=1, scope="bench", claim_dir=claims)
    sf_wide = chronoid.Snowflake(WIDE, node=1, scope="bench-wide", claim_dir=claims)
    # ULIDs and UUIDv7s of the same ms: the per-ID cost dominates; the
    # Python ULID is slower, so fewer calls keep each round short.
    n_slow = max(1000, N // 4)
    cases = [
        ("uuid.uuid4()", per_call(uuid.uuid4, n_slow)),
        ("uuid.uuid1()", per_call(uuid.uuid1, n_slow)),
        ("pure Python ULID (os.urandom)", per_call(py_ulid, n_slow)),
        ("pure Python Snowflake (lock), 12-bit seq", per_call(py_sf.next, n_slow)),
        ("pure Python Snowflake (lock), 20-bit seq", per_call(py_sf_wide.next, n_slow)),
        ("chronoid.uuid7()", per_call(chronoid.uuid7, N)),
        ("chronoid.uuid7_bytes()", per_call(chronoid.uuid7_bytes, N)),
        ("chronoid.uuid7_batch(1000)", per_batch(chronoid.uuid7_batch, N)),
        ("chronoid.uuid7_batch_bytes(1000)", per_batch(chronoid.uuid7_batch_bytes, N)),
        ("chronoid.uuid4()", per_call(chronoid.uuid4, N)),
        ("chronoid.ulid()", per_call(chronoid.ulid, N)),
        ("chronoid.ulid_monotonic()", per_call(chronoid.ulid_monotonic, N)),
        ("chronoid.ulid_bytes()", per_call(chronoid.ulid_bytes, N)),
        ("chronoid.ulid_monotonic_bytes()", per_call(chronoid.ulid_monotonic_bytes, N)),
        ("chronoid.ulid_batch(1000)", per_batch(chronoid.ulid_batch, N)),
        ("chronoid.ulid_batch_bytes(1000)", per_batch(chronoid.ulid_batch_bytes, N)),
        ("chronoid.ulid_monotonic_batch(1000)", per_batch(chronoid.ulid_monotonic_batch, N)),
        ("chronoid.ulid_monotonic_batch_bytes(1000)",
         per_batch(chronoid.ulid_monotonic_batch_bytes, N)),
        ("chronoid.objectid()", per_call(chronoid.objectid, N)),
        ("chronoid.objectid_bytes()", per_call(chronoid.objectid_bytes, N)),
        ("chronoid.objectid_batch(1000)", per_batch(chronoid.objectid_batch, N)),
        ("chronoid.objectid_batch_bytes(1000)", per_batch(chronoid.objectid_batch_bytes, N)),
        ("chronoid.ksuid()", per_call(chronoid.ksuid, N)),
        ("chronoid.ksuid_bytes()", per_call(chronoid.ksuid_bytes, N)),
        ("chronoid.ksuid_batch(1000)", per_batch(chronoid.ksuid_batch, N)),
        ("chronoid.ksuid_batch_bytes(1000)", per_batch(chronoid.ksuid_batch_bytes, N)),
        ("chronoid.uuid6()", per_call(chronoid.uuid6, N)),
        ("chronoid.uuid6_bytes()", per_call(chronoid.uuid6_bytes, N)),
        ("chronoid.uuid6_batch(1000)", per_batch(chronoid.uuid6_batch, N)),
        ("chronoid.uuid6_batch_bytes(1000)", per_batch(chronoid.uuid6_batch_bytes, N)),
        ("Snowflake.next(), pgedge", per_call(sf.next, N)),
        ("Snowflake.next(), 20-bit seq", per_call(sf_wide.next, N)),
        ("Snowflake.batch(1000), 20-bit seq", per_batch(sf_wide.batch, N)),
        ("Snowflake.batch_array(1000), 20-bit seq", per_batch(sf_wide.batch_array, N)),
        ("Snowflake.batch_array(1000), pgedge", per_batch(sf.batch_array, N)),
        # Two floors: a call that reads the clock, which no generator
        # here goes below; and the kernel's random bytes, which a module
        # drawing from getrandom cannot go below (OpenSSL's DRBG can).
        ("floor: time.time_ns()", per_call(time.time_ns, N)),
        # (per_batch passes 8 * 1000: the bytes a UUIDv7 batch of 1000 draws)
        ("floor: os.urandom(8000), per 8 bytes", per_batch(os.urandom, N, 8 * BATCH)),
    ]
    load_start = os.getloadavg()[0]
    results = {name: [] for name, _ in cases}
    for _ in range(ROUNDS):
        for name, run in cases:
            results[name].append(run())
    med = {name: statistics.median(w for w, _ in v) for name, v in results.items()}
    cpu = {name: statistics.median(c for _, c in v) for name, v in results.items()}

    print(f"# chronoid {chronoid.core_version}, Python {platform.python_version()} "
          f"({sys.executable}), {platform.machine()}, {os.cpu_count()} CPUs, random source "
          f"{getattr(chronoid, 'random_source', 'getrandom')}; "
          f"median of {ROUNDS} interleaved rounds, ns per ID (wall; cpu: this thread's "
          f"CPU time); load average {load_start:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")
    base = med["uuid.uuid4()"]
    width = max(len(n) for n in med)
    print(f"{'case':<{width}}  {'ns/ID':>8}  {'min':>8}  {'max':>8}  {'cpu':>8}  {'vs uuid4':>9}")
    for name, _ in cases:
        walls = [w for w, _ in results[name]]
        print(f"{name:<{width}}  {med[name]:8.1f}  {min(walls):8.1f}  {max(walls):8.1f}  "
              f"{cpu[name]:8.1f}  {base / med[name]:8.1f}x")

    print()
    print("goals (issue 26), wall time (CPU time):")
    # (what, the baseline case, the case that should be faster, goal)
    goals = [
        ("uuid7() vs uuid.uuid4()", "uuid.uuid4()", "chronoid.uuid7()", 3),
        ("Snowflake.next() vs pure Python, 20-bit seq",
         "pure Python Snowflake (lock), 20-bit seq", "Snowflake.next(), 20-bit seq", 10),
        ("Snowflake.next() vs pure Python, pgedge (capped at 4096 IDs/ms)",
         "pure Python Snowflake (lock), 12-bit seq", "Snowflake.next(), pgedge", 10),
        ("uuid7_batch(1000) per ID vs uuid7()", "chronoid.uuid7()", "chronoid.uuid7_batch(1000)", 10),
        ("uuid7_batch_bytes(1000) per ID vs uuid7_bytes()",
         "chronoid.uuid7_bytes()", "chronoid.uuid7_batch_bytes(1000)", 10),
        ("ulid_batch(1000) per ID vs ulid()", "chronoid.ulid()", "chronoid.ulid_batch(1000)", 10),
        ("ulid_batch_bytes(1000) per ID vs ulid_bytes()",
         "chronoid.ulid_bytes()", "chronoid.ulid_batch_bytes(1000)", 10),
        ("ulid_monotonic_batch(1000) per ID vs ulid_monotonic()",
         "chronoid.ulid_monotonic()", "chronoid.ulid_monotonic_batch(1000)", 10),
        ("ulid_monotonic_batch_bytes(1000) per ID vs ulid_monotonic_bytes()",
         "chronoid.ulid_monotonic_bytes()", "chronoid.ulid_monotonic_batch_bytes(1000)", 10),
        ("Snowflake.batch(1000) per ID vs next(), 20-bit seq",
         "Snowflake.next(), 20-bit seq", "Snowflake.batch(1000), 20-bit seq", 10),
        ("Snowflake.batch_array(1000) per ID vs next(), 20-bit seq",
         "Snowflake.next(), 20-bit seq", "Snowflake.batch_array(1000), 20-bit seq", 10),
    ]
    for what, slow, fast, goal in goals:
        ratio = med[slow] / med[fast]
        print(f"  {what}: {ratio:.1f}x ({cpu[slow] / cpu[fast]:.1f}x) "
              f"(goal {goal}x: {'met' if ratio >= goal else 'NOT met'})")

    # No goal: the core's fill (one clock reading, one random request, one
    # atomic step per batch) against the single call, object or bytes form.
    print("the other kinds' batches, per ID vs the single call, wall time (CPU time):")
    for kind in ("objectid", "ksuid", "uuid6"):
        for form in ("", "_bytes"):
            slow, fast = f"chronoid.{kind}{form}()", f"chronoid.{kind}_batch{form}(1000)"
            print(f"  {kind}_batch{form}(1000) vs {kind}{form}(): {med[slow] / med[fast]:.1f}x "
                  f"({cpu[slow] / cpu[fast]:.1f}x)")

if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="chronoid-bench-claims.") as claim_dir:
        main(claim_dir)
