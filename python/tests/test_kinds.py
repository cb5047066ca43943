"""MongoDB ObjectIds, KSUIDs and UUIDv6 made by the module, and UUID
version 1 <-> 6 conversion (RFC 9562's Appendix A vectors, tests/vectors.md).

Each made ID is read back by inspect() and by hand from its bytes: the
time it carries is the clock's at the call.
"""
import re
import time
import uuid

import pytest

import chronoid
from util import in_threads

GREGORIAN_OFFSET = 0x01B21DD213814000  # 100-ns ticks from 1582-10-15 to 1970
KSUID_EPOCH_S = 1_400_000_000

# RFC 9562 A.1 (v1) and A.5 (v6): the same instant, clock sequence and node.
V1 = "c232ab00-9414-11ec-b3c8-9f6bdeced846"
V6 = "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
V_TICKS = 138648505420000000  # 2022-02-22T19:22:22Z


def clock_ms():
    return time.time_ns() // 1_000_000


def v6_ticks(u):
    """The 60-bit timestamp of a v6, read from its fields: time_high (32),
    time_mid (16), version, time_low (12)."""
    return (u.int >> 80) << 12 | (u.int >> 64) & 0xFFF


# ---- ObjectId and KSUID text -------------------------------------------------

@pytest.mark.parametrize("kind,form", [("objectid", "[0-9a-f]{24}"), ("ksuid", "[0-9A-Za-z]{27}")])
def test_form_and_time(kind, form):
    before = clock_ms()
    text = getattr(chronoid, kind)()
    after = clock_ms()
    assert type(text) is str and re.fullmatch(form, text), text
    info = chronoid.inspect(text)
    assert (info.kind, info.value) == (kind, text)
    # whole seconds, the one the clock read
    assert before // 1000 * 1000 <= info.ms <= after and info.ms % 1000 == 0
    if kind == "objectid":  # its first 8 digits are the seconds
        assert info.ms == int(text[:8], 16) * 1000


# ---- ObjectId ---------------------------------------------------------------

def test_objectid_bytes():
    before = clock_ms()
    b = chronoid.objectid_bytes()
    after = clock_ms()
    assert type(b) is bytes and len(b) == 12
    info = chronoid.inspect(b.hex())
    assert info.kind == "objectid" and before // 1000 * 1000 <= info.ms <= after


def test_objectid_counter_steps_by_one():
    # One process-wide generator, text and bytes alike: the same process
    # bytes, the counter one up each time (modulo 2^24).
    got = [bytes.fromhex(chronoid.objectid()) if k % 2 else chronoid.objectid_bytes()
           for k in range(2000)]
    assert len({g[4:9] for g in got}) == 1
    counters = [int.from_bytes(g[9:], "big") for g in got]
    assert all((b - a) % (1 << 24) == 1 for a, b in zip(counters, counters[1:])), counters[:5]


def test_objectid_unique_in_a_batch():
    ids = [chronoid.objectid() for _ in range(20000)]
    assert len(set(ids)) == len(ids)


# ---- KSUID -----------------------------------------------------------------

def test_ksuid_bytes():
    before = clock_ms()
    b = chronoid.ksuid_bytes()
    after = clock_ms()
    assert type(b) is bytes and len(b) == 20
    seconds = int.from_bytes(b[:4], "big") + KSUID_EPOCH_S
    assert before // 1000 <= seconds <= after // 1000


def test_ksuid_unique_in_a_batch():
    ids = [chronoid.ksuid() for _ in range(20000)]
    assert len(set(ids)) == len(ids)
    payloads = {chronoid.ksuid_bytes()[4:] for _ in range(20000)}
    assert len(payloads) == 20000


# ---- UUIDv6 ----------------------------------------------------------------

def test_uuid6_is_a_standard_uuid_v6():
    before = time.time_ns() // 100
    u = chronoid.uuid6()
    after = time.time_ns() // 100
    assert type(u) is uuid.UUID and u.version == 6 and u.variant == uuid.RFC_4122
    assert u == uuid.UUID(str(u)) and hash(u) == hash(uuid.UUID(str(u)))
    ticks = v6_ticks(u)
    # the clock's 100-ns tick (or a step past the last, which is later)
    assert before + GREGORIAN_OFFSET <= ticks <= after + GREGORIAN_OFFSET + 1_000_000
    info = chronoid.inspect(u)
    assert (info.kind, info.version) == ("uuid", 6)
    assert info.ms == (ticks - GREGORIAN_OFFSET) // 10_000
    # a random node has its multicast bit set (RFC 9562 section 6.10)
    assert u.node & (1 << 40)


def test_uuid6_bytes():
    b = chronoid.uuid6_bytes()
    assert type(b) is bytes and len(b) == 16
    assert uuid.UUID(bytes=b).version == 6


def test_uuid6_unique_and_increasing():
    # One generator: each above the last, text and bytes alike.
    got = [chronoid.uuid6() if k % 2 else uuid.UUID(bytes=chronoid.uuid6_bytes())
           for k in range(20000)]
    assert all(a < b for a, b in zip(got, got[1:]))
    assert all(v6_ticks(a) < v6_ticks(b) for a, b in zip(got, got[1:]))


# ---- v1 <-> v6 ------------------------------------------------------------

@pytest.mark.parametrize("given", [V1, V1.upper(), "{" + V1 + "}", V1.replace("-", ""), uuid.UUID(V1)])
def test_uuid1_to_uuid6_rfc_vector(given):
    u = chronoid.uuid1_to_uuid6(given)
    assert type(u) is uuid.UUID and u == uuid.UUID(V6)
    assert v6_ticks(u) == V_TICKS and uuid.UUID(V1).time == V_TICKS


@pytest.mark.parametrize("given", [V6, V6.upper(), uuid.UUID(V6)])
def test_uuid6_to_uuid1_rfc_vector(given):
    u = chronoid.uuid6_to_uuid1(given)
    assert type(u) is uuid.UUID and u == uuid.UUID(V1)
    # the standard library reads a v1's time: the same instant
    assert u.time == V_TICKS and u.version == 1


def test_round_trips():
    for _ in range(200):
        v6 = chronoid.uuid6()
        v1 = chronoid.uuid6_to_uuid1(v6)
        assert v1.version == 1 and v1.time == v6_ticks(v6)
        assert (v1.clock_seq, v1.node) == (v6.clock_seq, v6.node)
        assert chronoid.uuid1_to_uuid6(v1) == v6
    v1 = uuid.uuid1()  # the standard library's, from this machine's clock
    v6 = chronoid.uuid1_to_uuid6(v1)
    assert v6_ticks(v6) == v1.time and chronoid.uuid6_to_uuid1(str(v6)) == v1


@pytest.mark.parametrize("fn,value,version", [
    ("uuid1_to_uuid6", V6, "its version is 6"),
    ("uuid6_to_uuid1", V1, "its version is 1"),
    ("uuid1_to_uuid6", uuid.UUID("919108f7-52d1-4320-9bac-f847db4148a8"), "its version is 4"),
    ("uuid6_to_uuid1", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "its version is 7"),
    ("uuid1_to_uuid6", "00000000-0000-0000-0000-000000000000", "not of the RFC 9562 variant"),
    ("uuid6_to_uuid1", uuid.UUID(int=(1 << 128) - 1), "not of the RFC 9562 variant"),
    # version 1's bits under the NCS variant
    ("uuid1_to_uuid6", "c232ab00-9414-11ec-33c8-9f6bdeced846", "not of the RFC 9562 variant"),
])
def test_wrong_version_names_the_value(fn, value, version):
    want = "version 1" if fn == "uuid1_to_uuid6" else "version 6"
    with pytest.raises(chronoid.ChronoidValueError) as e:
        getattr(chronoid, fn)(value)
    msg = str(e.value)
    assert isinstance(e.value, ValueError)
    assert repr(value) in msg and f"not a {want} UUID" in msg and version in msg, msg
    assert fn in msg


@pytest.mark.parametrize("fn", ["uuid1_to_uuid6", "uuid6_to_uuid1"])
@pytest.mark.parametrize("bad", [True, False, None, 5, 1.5, V1.encode(), uuid.UUID(V1).bytes, [V1]])
def test_wrong_type_names_the_value(fn, bad):
    with pytest.raises(chronoid.ChronoidTypeError) as e:
        getattr(chronoid, fn)(bad)
    msg = str(e.value)
    assert isinstance(e.value, TypeError)
    assert repr(bad) in msg and type(bad).__name__ in msg and "uuid.UUID" in msg, msg


@pytest.mark.parametrize("fn", ["uuid1_to_uuid6", "uuid6_to_uuid1"])
@pytest.mark.parametrize("bad,why", [
    ("", "0 characters"),
    ("c232ab00-9414-11ec-b3c8-9f6bdeced84", "35 characters"),
    ("c232ab00-9414-11ec-b3c8-9f6bdeced84g", "position 35"),
    ("c232ab00x9414-11ec-b3c8-9f6bdeced846", "position 8"),
    ("c232ab00-9414-11ec-b3c8-9f6bdeced846\u00e9", "not ASCII"),
])
def test_malformed_text_names_the_value(fn, bad, why):
    with pytest.raises(chronoid.ChronoidValueError) as e:
        getattr(chronoid, fn)(bad)
    msg = str(e.value)
    assert repr(bad) in msg and "not a UUID" in msg and why in msg, msg


@pytest.mark.parametrize("fn", ["objectid", "objectid_bytes", "ksuid", "ksuid_bytes",
                                "uuid6", "uuid6_bytes"])
def test_makers_take_no_arguments(fn):
    with pytest.raises(chronoid.ChronoidTypeError, match=re.escape(f"{fn}() takes no arguments")):
        getattr(chronoid, fn)(1)


@pytest.mark.parametrize("fn", ["uuid1_to_uuid6", "uuid6_to_uuid1"])
def test_converters_take_one_argument(fn):
    with pytest.raises(TypeError):
        getattr(chronoid, fn)()
    with pytest.raises(TypeError):
        getattr(chronoid, fn)(V1, V6)


# ---- threads ---------------------------------------------------------------

def test_threads_objectid_ksuid_uuid6_unique():
    # The generators are process-wide: four threads at once share them.
    def work():
        return ([chronoid.objectid() for _ in range(2000)], [chronoid.ksuid() for _ in range(2000)],
                [chronoid.uuid6() for _ in range(2000)])

    runs = in_threads(work)
    for k in range(3):
        flat = [x for r in runs for x in r[k]]
        assert len(set(flat)) == len(flat)
    for r in runs:  # each thread's UUIDv6s increase
        assert all(a < b for a, b in zip(r[2], r[2][1:]))
