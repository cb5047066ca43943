"""Prefork safety: a child made by fork() never mints its parent's IDs.

A Snowflake generator inherited through fork() refuses to mint until it
has a node of its own; UUIDv7, ULID, KSUID and UUIDv6 randomness (and the
monotonic ULID's state) and the ObjectId's process bytes and counter are
the child's own.  Children report through pipes; the
invariant checked is "no ID twice across all processes".
"""
import ctypes
import multiprocessing
import os
import pickle
import random

import pytest

import chronoid
from util import in_child


def test_snowflake_refuses_in_child_until_renode():
    gen = chronoid.Snowflake("pgedge", node=11)
    parent_ids = [gen.next() for _ in range(100)]

    def child():
        out = {}
        for name, call in [("next", gen.next), ("batch", lambda: gen.batch(3)),
                           ("batch_array", lambda: gen.batch_array(3)),
                           ("next_at", lambda: gen.next_at(1_800_000_000_000_000_000))]:
            try:
                call()
                out[name] = "minted"
            except chronoid.ForkError as e:
                out[name] = str(e)
        gen.renode(12)
        out["after"] = [gen.next() for _ in range(100)]
        return out

    got = in_child(child)
    for name in ("next", "batch", "batch_array", "next_at"):
        assert "renode" in got[name] and "node 11" in got[name], got[name]
    assert all(chronoid.inspect(i).node == 12 for i in got["after"])
    parent_ids += [gen.next() for _ in range(100)]
    assert gen.node == 11  # the parent's generator is untouched
    assert not set(parent_ids) & set(got["after"])


def test_snowflake_made_in_child_works():
    def child():
        return chronoid.Snowflake("pgedge", node=13).batch(10)

    assert len(set(in_child(child))) == 10


def random_parts(kind, ids):
    """The random bits of each ID: a repeat across processes means a child
    reused its parent's random bytes, whatever the time bits say."""
    if kind == "uuid7":  # rand_b: the 62 bits after the variant
        return [u.int & ((1 << 62) - 1) for u in ids]
    if kind == "uuid7 bytes":
        return [int.from_bytes(b[8:], "big") & ((1 << 62) - 1) for b in ids]
    return [chronoid.ulid_to_uuid(u).int & ((1 << 80) - 1) for u in ids]  # ULID: 80 bits


def test_uuid7_and_ulid_random_bytes_are_the_childs_own():
    # Fork while the monotonic ULID is in the middle of a millisecond: the
    # child must not continue the parent's counter; and with the random
    # buffer half used, no child may draw the bytes the parent draws next.
    chronoid.ulid_monotonic()
    chronoid.uuid7_batch(10)

    def child():
        b = chronoid.uuid7_batch_bytes(100)
        return (chronoid.uuid7_batch(2000), [chronoid.ulid_monotonic() for _ in range(2000)],
                chronoid.ulid_batch(2000), [b[i:i + 16] for i in range(0, len(b), 16)])

    kids = [in_child(child) for _ in range(2)]
    mine = child()
    for k, kind in enumerate(["uuid7", "ulid_monotonic", "ulid", "uuid7 bytes"]):
        flat = [x for got in [mine] + kids for x in got[k]]
        assert len(set(flat)) == len(flat), f"duplicate {kind}"
        if kind != "ulid_monotonic":  # its random part counts up by design
            parts = [p for got in [mine] + kids for p in random_parts(kind, got[k])]
            assert len(set(parts)) == len(parts), f"random bits of {kind} repeated across processes"


BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ksuid_payload(k):
    """The 128 random bits of a KSUID given as text or as hex of its bytes."""
    if len(k) == 40:
        return int(k, 16) & ((1 << 128) - 1)
    n = 0
    for c in k:
        n = n * 62 + BASE62.index(c)
    return n & ((1 << 128) - 1)


def test_objectid_ksuid_uuid6_are_the_childs_own():
    # The parent has minted (the ObjectId generator's process bytes and
    # counter are drawn, the random buffer half used) before each fork.
    parent_oids = [chronoid.objectid() for _ in range(10)]
    chronoid.ksuid()
    chronoid.uuid6()

    def child():
        return ([chronoid.objectid() for _ in range(1000)] + [chronoid.objectid_bytes().hex()],
                [chronoid.ksuid() for _ in range(1000)] + [chronoid.ksuid_bytes().hex()],
                [chronoid.uuid6() for _ in range(1000)])

    kids = [in_child(child) for _ in range(2)]
    mine = child()
    everyone = [mine] + kids
    for k, kind in enumerate(["objectid", "ksuid", "uuid6"]):
        flat = [x for got in everyone for x in got[k]]
        assert len(set(flat)) == len(flat), f"duplicate {kind} across processes"
    # Each process has ObjectId process bytes of its own, the parent its old ones.
    process_bytes = [{o[8:18] for o in got[0]} for got in everyone]
    assert all(len(p) == 1 for p in process_bytes)
    assert len(set.union(*process_bytes)) == 3
    assert process_bytes[0] == {parent_oids[0][8:18]}
    # KSUID payloads and UUIDv6 clock sequence + node: random bits never repeated
    payloads = [ksuid_payload(x) for got in everyone for x in got[1]]
    assert len(set(payloads)) == len(payloads)
    v6_random = [u.int & ((1 << 62) - 1) for got in everyone for u in got[2]]
    assert len(set(v6_random)) == len(v6_random)


def _worker_init(counter, barrier):
    # Each worker gets a node of its own, as a post-fork hook would give it.
    global BARRIER
    BARRIER = barrier
    with counter.get_lock():
        counter.value += 1
        node = 100 + counter.value
    GEN.renode(node)


def _worker_mint(_):
    # Every task waits for two others: three workers mint side by side,
    # never one fast worker taking all the tasks.
    BARRIER.wait(timeout=60)
    return (os.getpid(), GEN.batch(200) + [GEN.next() for _ in range(50)],
            [str(u) for u in chronoid.uuid7_batch(100)], chronoid.ulid_monotonic_batch(100))


GEN = None
BARRIER = None


def test_multiprocessing_workers_no_duplicates():
    global GEN
    GEN = chronoid.Snowflake("pgedge", node=100)  # made before the pool, as with preload_app
    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("i", 0)
    barrier = ctx.Barrier(3)
    with ctx.Pool(3, initializer=_worker_init, initargs=(counter, barrier)) as pool:
        results = pool.map(_worker_mint, range(12), chunksize=1)
    pids = {r[0] for r in results}
    assert len(pids) == 3 and os.getpid() not in pids
    for k in (1, 2, 3):
        flat = [x for r in results for x in r[k]]
        flat += {1: [GEN.next() for _ in range(50)], 2: [str(chronoid.uuid7())],
                 3: [chronoid.ulid_monotonic()]}[k]
        assert len(set(flat)) == len(flat)
    nodes = {chronoid.inspect(i).node for r in results for i in r[1]}
    assert 100 not in nodes and len(nodes) == len(pids)


def test_multiprocessing_without_renode_refuses():
    global GEN
    GEN = chronoid.Snowflake("pgedge", node=100)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        with pytest.raises(chronoid.ForkError):
            pool.apply(_mint_one)


def _mint_one():
    return GEN.next()


def test_generators_do_not_pickle():
    # A copy of a generator's state in another process would mint its IDs.
    with pytest.raises(TypeError):
        pickle.dumps(chronoid.Snowflake("pgedge", node=1))


# The random bits of each kind in its bytes form: 16 bytes a UUIDv7
# (rand_b, 62 bits), ULID (80 bits) or UUIDv4 (122 bits); 20 a KSUID (128).
RANDOM_OF = {
    "uuid7": (16, lambda b: int.from_bytes(b[8:], "big") & ((1 << 62) - 1)),
    "ulid": (16, lambda b: int.from_bytes(b[6:], "big")),
    "uuid4": (16, lambda b: b),
    "ksuid": (20, lambda b: b[4:]),
}
# Batch sizes on both sides of the core's 1 KiB line: up to it a request is
# served from the thread's buffer, above it straight from the raw source.
SIZES = [1, 2, 7, 64, 127, 128, 129, 500, 1000, 3000]


def draw(rng):
    """Random bytes of a mix of kinds, single calls and batches in an order
    rng picks: {kind: [random part, ...]}."""
    got = {kind: [] for kind in RANDOM_OF}
    for _ in range(rng.randint(2, 6)):
        kind = rng.choice(list(RANDOM_OF))
        n = rng.choice(SIZES)
        width, part = RANDOM_OF[kind]
        if kind == "uuid4":
            raw = b"".join(chronoid.uuid4().bytes for _ in range(min(n, 300)))
        else:
            raw = getattr(chronoid, kind + "_batch_bytes")(n)
        got[kind] += [part(raw[i:i + width]) for i in range(0, len(raw), width)]
    return got


def libc_fork_without_handlers():
    """glibc's _Fork(): a child in which no atfork handler ran (the core's,
    bind's, Python's), as after a raw clone(2); None where libc has none."""
    try:
        fn = ctypes.CDLL(None, use_errno=True)._Fork
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = []
    return fn


def test_random_bytes_never_shared_across_forks():
    # Many children, forked in a loop at points a seeded generator picks:
    # after single calls (the thread's buffer partly used) or batches (the
    # raw source's own state moved on), some of them forking again, some
    # made by _Fork(), which runs no atfork handler (then the kernel's
    # MADV_WIPEONFORK empties the buffer and the raw source must notice
    # the new process itself: OpenSSL's DRBG by its process id).  Parent,
    # children and grandchildren then draw; no random part may occur twice.
    seed = int.from_bytes(os.urandom(8), "big")
    rng = random.Random(seed)
    raw_fork = libc_fork_without_handlers()
    children = int(os.environ.get("CHRONOID_PY_FORKS", "40"))
    everyone = [draw(rng)]
    made_by = {"fork": 0, "_Fork": 0, "grandchild": 0}
    for c in range(children):
        everyone.append(draw(rng))  # the parent's state just before this fork
        child_seed = rng.getrandbits(64)
        use_raw = raw_fork is not None and c % 4 == 3
        nested = not use_raw and c % 5 == 1
        r, w = os.pipe()
        pid = raw_fork() if use_raw else os.fork()
        assert pid >= 0, f"_Fork() failed: errno {ctypes.get_errno()}"
        if pid == 0:
            code = 1
            try:
                os.close(r)
                crng = random.Random(child_seed)
                mine = [draw(crng)]
                if nested:
                    mine.append(in_child(lambda: draw(random.Random(child_seed + 1))))
                mine.append(draw(crng))
                with os.fdopen(w, "wb") as f:
                    pickle.dump(mine, f)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        everyone.append(draw(rng))  # the parent, while the child draws
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, \
            f"child {c} status {status} (seed {seed})"
        everyone += pickle.loads(data)
        made_by["_Fork" if use_raw else "fork"] += 1
        made_by["grandchild"] += nested
    assert made_by["fork"] >= children // 2 and made_by["grandchild"] >= children // 10
    assert raw_fork is None or made_by["_Fork"] >= children // 5
    for kind in RANDOM_OF:
        parts = [p for got in everyone for p in got[kind]]
        assert len(parts) > children, f"too few {kind} drawn to tell (seed {seed})"
        assert len(set(parts)) == len(parts), \
            f"random bits of {kind} repeated across processes (seed {seed}, {made_by})"
