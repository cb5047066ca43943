"""Batches of MongoDB ObjectIds, KSUIDs and UUIDv6: objectid_batch(n),
ksuid_batch(n), uuid6_batch(n) and their _bytes forms.

A batch is the core's fill (one clock reading, one atomic step): it keeps
the single calls' promises (checked here within and across batches): the
ObjectId counter steps by one, UUIDv6s strictly increase, KSUIDs are
random within their second; and a batch's IDs share its one reading.  Every ID is read back
by inspect(); the bad sizes get the UUIDv7 and ULID batches' exceptions
and messages.
"""
import re
import time
import uuid

import pytest

import chronoid
from util import in_child, in_threads

KSUID_EPOCH_S = 1_400_000_000
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
GIL_FREE = 10_000  # a batch this long runs without the GIL (from 4096)

# name, size of one ID in bytes
KINDS = [("objectid", 12), ("ksuid", 20), ("uuid6", 16)]
BATCHES = [f"{k}_batch" for k, _ in KINDS] + [f"{k}_batch_bytes" for k, _ in KINDS]


def ksuid_text(b):
    """A KSUID's 20 bytes as its 27 base62 characters (written here, not the module's)."""
    n = int.from_bytes(b, "big")
    out = []
    for _ in range(27):
        n, r = divmod(n, 62)
        out.append(BASE62[r])
    return "".join(reversed(out))


def ksuid_value(k):
    """A KSUID's text as its 160-bit value."""
    n = 0
    for c in k:
        n = n * 62 + BASE62.index(c)
    return n


def as_ids(kind, b):
    """A _bytes batch split into the list form's values."""
    size = dict(KINDS)[kind]
    assert len(b) % size == 0
    parts = [b[i:i + size] for i in range(0, len(b), size)]
    if kind == "objectid":
        return [p.hex() for p in parts]
    if kind == "ksuid":
        return [ksuid_text(p) for p in parts]
    return [uuid.UUID(bytes=p) for p in parts]


def batch(kind, n, as_bytes):
    if as_bytes:
        return as_ids(kind, getattr(chronoid, f"{kind}_batch_bytes")(n))
    return getattr(chronoid, f"{kind}_batch")(n)


def objectid_counter(oid):
    return int(oid[18:], 16)


def v6_ticks(u):
    return (u.int >> 80) << 12 | (u.int >> 64) & 0xFFF


# ---- shapes, and every ID valid -------------------------------------------

@pytest.mark.parametrize("kind,size", KINDS)
@pytest.mark.parametrize("n", [1, 7, GIL_FREE])
def test_lengths_types_and_every_id_inspects(kind, size, n):
    before = time.time_ns() // 1_000_000
    listed = getattr(chronoid, f"{kind}_batch")(n)
    raw = getattr(chronoid, f"{kind}_batch_bytes")(n)
    after = time.time_ns() // 1_000_000
    assert type(listed) is list and len(listed) == n
    assert type(raw) is bytes and len(raw) == size * n
    for got in (listed, as_ids(kind, raw)):
        for x in got:
            if kind == "uuid6":
                assert type(x) is uuid.UUID and x.version == 6 and x.variant == uuid.RFC_4122
                assert x.node & (1 << 40)  # a random node: multicast bit set
                info = chronoid.inspect(x)
                assert (info.kind, info.version) == ("uuid", 6)
                assert before <= info.ms <= after + 100  # a step past the clock is ahead of it
            else:
                form = "[0-9a-f]{24}" if kind == "objectid" else "[0-9A-Za-z]{27}"
                assert type(x) is str and re.fullmatch(form, x), x
                info = chronoid.inspect(x)
                assert (info.kind, info.value) == (kind, x)
                # whole seconds, read from the clock during the call
                assert before // 1000 * 1000 <= info.ms <= after and info.ms % 1000 == 0


@pytest.mark.parametrize("fn", BATCHES)
def test_zero(fn):
    assert getattr(chronoid, fn)(0) == (b"" if fn.endswith("_bytes") else [])


def test_docstrings_name_the_call():
    for fn in BATCHES:
        assert getattr(chronoid, fn).__doc__.startswith(f"{fn}(n) -> ")
        assert fn in chronoid.__all__


# ---- order within a batch, as the single calls promise -----------------------

@pytest.mark.parametrize("as_bytes", [False, True])
def test_objectid_counter_steps_by_one_through_batches(as_bytes):
    # No other thread mints here, so the counter steps by one (mod 2^24)
    # from ID to ID, across single calls and batches, GIL-free ones too.
    got = [chronoid.objectid()]
    for n in (1, 50, GIL_FREE, 3):
        got.extend(batch("objectid", n, as_bytes))
        got.append(chronoid.objectid_bytes().hex())
    assert len({g[8:18] for g in got}) == 1  # one process's bytes
    counters = [objectid_counter(g) for g in got]
    assert all((b - a) % (1 << 24) == 1 for a, b in zip(counters, counters[1:])), counters[:5]
    seconds = [int(g[:8], 16) for g in got]
    assert seconds[-1] - seconds[0] <= 60


@pytest.mark.parametrize("as_bytes", [False, True])
def test_uuid6_strictly_increasing_through_batches(as_bytes):
    got = [chronoid.uuid6()]
    for n in (1, 50, GIL_FREE, 3):
        got.extend(batch("uuid6", n, as_bytes))
        got.append(uuid.UUID(bytes=chronoid.uuid6_bytes()))
    assert all(a < b for a, b in zip(got, got[1:]))
    assert all(v6_ticks(a) < v6_ticks(b) for a, b in zip(got, got[1:]))


@pytest.mark.parametrize("as_bytes", [False, True])
def test_one_clock_reading_per_batch(as_bytes):
    # A UUIDv6 batch takes consecutive 100-ns ticks from its one reading
    # (the single step per ID would take the clock's, which moves on by
    # more than 100 ns over 10,000 calls); an ObjectId or KSUID batch has
    # one second throughout.
    got = batch("uuid6", GIL_FREE, as_bytes)
    ticks = [v6_ticks(u) for u in got]
    assert ticks == list(range(ticks[0], ticks[0] + GIL_FREE))
    seconds = {int(o[:8], 16) for o in batch("objectid", GIL_FREE, as_bytes)}
    assert len(seconds) == 1
    ksuids = batch("ksuid", GIL_FREE, as_bytes)
    assert len({ksuid_value(k) >> 128 for k in ksuids}) == 1


def test_ksuid_random_within_a_second():
    # No order is promised within a second: the payload is random, so a
    # batch of 1000 is not sorted (the chance that it is, within one or two
    # seconds, is about 2/1000!).  The seconds are the clock's.
    before = time.time_ns() // 1_000_000_000
    got = chronoid.ksuid_batch(1000)
    after = time.time_ns() // 1_000_000_000
    assert sorted(got) != got
    assert all(before <= (ksuid_value(k) >> 128) + KSUID_EPOCH_S <= after for k in got)


# ---- distinct ---------------------------------------------------------------

@pytest.mark.parametrize("kind,size", KINDS)
def test_distinct_over_100k(kind, size):
    listed = getattr(chronoid, f"{kind}_batch")(100_000)
    assert len(set(listed)) == 100_000
    raw = getattr(chronoid, f"{kind}_batch_bytes")(100_000)
    parts = {raw[i:i + size] for i in range(0, len(raw), size)}
    assert len(parts) == 100_000
    if kind == "ksuid":  # and the 128 random bits, not only the whole
        assert len({p[4:] for p in parts}) == 100_000


# ---- bad sizes: the existing batches' exceptions and messages ---------------

BAD = [
    (-1, chronoid.ChronoidValueError, "n -1 is out of range: expected 0..16777216 IDs per batch"),
    (2 ** 24 + 1, chronoid.ChronoidValueError,
     "n 16777217 is out of range: expected 0..16777216 IDs per batch"),
    (2 ** 70, chronoid.ChronoidValueError,
     "n 1180591620717411303424 is out of range: expected 0..16777216 IDs per batch"),
    (True, chronoid.ChronoidTypeError, "n must be an int, not bool (True)"),
    (False, chronoid.ChronoidTypeError, "n must be an int, not bool (False)"),
    (2.0, chronoid.ChronoidTypeError, "n must be an int, not float"),
    ("3", chronoid.ChronoidTypeError, "n must be an int, not str"),
    (None, chronoid.ChronoidTypeError, "n must be an int, not NoneType"),
]


@pytest.mark.parametrize("fn", BATCHES)
@pytest.mark.parametrize("bad,exc,msg", BAD)
def test_bad_sizes(fn, bad, exc, msg):
    with pytest.raises(exc) as e:
        getattr(chronoid, fn)(bad)
    assert type(e.value) is exc and str(e.value) == msg
    assert isinstance(e.value, ValueError if exc is chronoid.ChronoidValueError else TypeError)
    # the same as the UUIDv7 batch says
    with pytest.raises(exc) as same:
        chronoid.uuid7_batch(bad)
    assert str(same.value) == msg


@pytest.mark.parametrize("fn", BATCHES)
def test_one_argument(fn):
    with pytest.raises(TypeError, match=re.escape(f"{fn}() takes exactly one argument (0 given)")):
        getattr(chronoid, fn)()
    with pytest.raises(TypeError, match=re.escape(f"{fn}() takes exactly one argument (2 given)")):
        getattr(chronoid, fn)(1, 2)


# ---- fork and threads -------------------------------------------------------

def test_childs_batches_are_its_own():
    # The parent has minted (ObjectId process bytes and counter drawn, the
    # random buffer half used) before each fork.
    parent_oids = chronoid.objectid_batch(10)
    chronoid.ksuid_batch(3)
    chronoid.uuid6_batch(3)

    def child():
        return [batch(kind, n, as_bytes) for kind, _ in KINDS
                for n, as_bytes in ((500, False), (GIL_FREE, True))]

    kids = [in_child(child) for _ in range(2)]
    mine = child()
    everyone = [mine] + kids
    for k, kind in enumerate(k for k, _ in KINDS for _ in range(2)):
        flat = [x for got in everyone for x in got[k]]
        assert len(set(flat)) == len(flat), f"duplicate {kind} across processes"
    # ObjectIds: process bytes of each process's own, the parent's unchanged.
    process_bytes = [{o[8:18] for o in got[0] + got[1]} for got in everyone]
    assert all(len(p) == 1 for p in process_bytes)
    assert len(set.union(*process_bytes)) == 3
    assert process_bytes[0] == {parent_oids[0][8:18]}
    # The random bits: KSUID payloads, UUIDv6 clock sequence and node.
    payloads = [ksuid_value(x) & ((1 << 128) - 1) for got in everyone for x in got[2] + got[3]]
    assert len(set(payloads)) == len(payloads)
    v6_random = [u.int & ((1 << 62) - 1) for got in everyone for u in got[4] + got[5]]
    assert len(set(v6_random)) == len(v6_random)


def test_threads_kinds_batches_with_and_without_gil():
    # Four threads mix single calls with small (GIL held) and large (GIL
    # free) batches of the process-wide generators: no ID twice, and each
    # thread's UUIDv6s increase.
    def work():
        oids, ksuids, v6 = [], [], []
        for _ in range(3):
            oids.append(chronoid.objectid())
            oids.extend(chronoid.objectid_batch(100))
            oids.extend(as_ids("objectid", chronoid.objectid_batch_bytes(5000)))
            ksuids.extend(chronoid.ksuid_batch(5000))
            ksuids.append(chronoid.ksuid())
            v6.append(chronoid.uuid6())
            v6.extend(chronoid.uuid6_batch(100))
            v6.extend(as_ids("uuid6", chronoid.uuid6_batch_bytes(5000)))
        return oids, ksuids, v6

    runs = in_threads(work)
    for k in range(3):
        flat = [x for r in runs for x in r[k]]
        assert len(set(flat)) == len(flat)
    for r in runs:
        assert all(a < b for a, b in zip(r[2], r[2][1:]))
