"""ULIDs: text, bytes, monotonic order, conversion (vectors: tests/vectors.md)."""
import re
import time
import uuid

import pytest

import chronoid

CROCKFORD = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")


def test_ulid_form_and_time():
    u = chronoid.ulid()
    assert type(u) is str and CROCKFORD.match(u)
    info = chronoid.inspect(u)
    assert info.kind == "ulid" and info.value == u


def test_ulid_bytes():
    b = chronoid.ulid_bytes()
    assert type(b) is bytes and len(b) == 16
    assert chronoid.uuid_to_ulid(uuid.UUID(bytes=b)) is not None


def test_ulid_batch_unique():
    got = chronoid.ulid_batch(20000)
    assert len(got) == 20000 and len(set(got)) == 20000
    assert all(CROCKFORD.match(u) for u in got[:100])
    assert chronoid.ulid_batch(0) == []


def as_ulids(b):
    """The ULIDs in a bytes batch, 16 bytes each, as text."""
    assert type(b) is bytes and len(b) % 16 == 0
    return [chronoid.uuid_to_ulid(uuid.UUID(bytes=b[i:i + 16])) for i in range(0, len(b), 16)]


def test_ulid_batch_bytes():
    before = time.time_ns() // 1_000_000
    b = chronoid.ulid_batch_bytes(5000)
    after = time.time_ns() // 1_000_000
    assert len(b) == 5000 * 16
    got = as_ulids(b)
    assert len(set(got)) == 5000
    assert all(before <= chronoid.inspect(u).ms <= after + 1 for u in got[:50] + got[-50:])
    assert chronoid.ulid_batch_bytes(0) == b""
    assert chronoid.ulid_monotonic_batch_bytes(0) == b""


def test_monotonic_strictly_increasing():
    got = []
    for _ in range(300):
        got.append(chronoid.ulid_monotonic())
        got.extend(chronoid.ulid_monotonic_batch(30))
        got.append(chronoid.uuid_to_ulid(uuid.UUID(bytes=chronoid.ulid_monotonic_bytes())))
        got.extend(as_ulids(chronoid.ulid_monotonic_batch_bytes(30)))
    assert all(a < b for a, b in zip(got, got[1:]))
    # Large enough to run without the GIL.
    big = as_ulids(chronoid.ulid_monotonic_batch_bytes(10000))
    assert got[-1] < big[0] and all(a < b for a, b in zip(big, big[1:]))


@pytest.mark.parametrize("ulid,as_uuid,ms", [
    ("01ARZ3NDEKTSV4RRFFQ69G5FAV", "01563e3a-b5d3-d676-4c61-efb99302bd5b", 1469922850259),
    ("01AN4Z07BY79KA1307SR9X4MV3", "015549f0-1d7e-3a66-a08c-07ce13d25363", 1465824320894),
    ("01GV5PA9EQG7D82Q3Y4PKBZSYV", "0186cb65-25d7-81da-815c-7e25a6bfe7db", 1678449649111),
    ("00000000000000000000000000", "00000000-0000-0000-0000-000000000000", 0),
    ("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ffffffff-ffff-ffff-ffff-ffffffffffff", 281474976710655),
])
def test_known_vectors(ulid, as_uuid, ms):
    assert chronoid.ulid_to_uuid(ulid) == uuid.UUID(as_uuid)
    assert chronoid.ulid_to_uuid(ulid.lower()) == uuid.UUID(as_uuid)
    assert chronoid.uuid_to_ulid(uuid.UUID(as_uuid)) == ulid
    assert chronoid.uuid_to_ulid(as_uuid) == ulid
    assert chronoid.inspect(ulid).ms == ms
    assert chronoid.parse_ulid(ulid.lower()) == ulid


def test_round_trip_random():
    for u in chronoid.ulid_batch(500):
        assert chronoid.uuid_to_ulid(chronoid.ulid_to_uuid(u)) == u


@pytest.mark.parametrize("bad,words", [
    ("01ARZ3NDEKTSV4RRFFQ69G5FA", "25 characters"),
    ("01ARZ3NDEKTSV4RRFFQ69G5FAVX", "27 characters"),
    ("01ARZ3NDEKTSV4RRFFQ69G5FAU", "character 'U' at position 25"),
    ("01ARZ3NDEKTSV4RRFFQ69G5FA!", "character '!' at position 25"),
    ("8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "above the largest"),
    ("01ARZ3NDEKTSV4RRFFQ69G5FA\udc80", "U+DC80 at position 25 is not ASCII"),
    ("01ARZ3NDEKTSV4RRFFQ69G5FA\u00e9", "U+00E9"),
    ("", "0 characters"),
])
def test_bad_text_names_value_and_form(bad, words):
    with pytest.raises(chronoid.ChronoidValueError) as e:
        chronoid.ulid_to_uuid(bad)
    msg = str(e.value)
    assert words in msg or words in e.value.reason, msg
    assert "not a ULID" in msg
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("bad", [None, 5, b"01ARZ3NDEKTSV4RRFFQ69G5FAV", True, 1.5])
def test_wrong_types(bad):
    with pytest.raises(chronoid.ChronoidTypeError) as e:
        chronoid.ulid_to_uuid(bad)
    assert "str" in str(e.value) and isinstance(e.value, TypeError)
    with pytest.raises(TypeError):
        chronoid.uuid_to_ulid(bad)
