"""chronoid.ULID, the object python-ulid users hold: every form in and out
(text, bytes, hex, int, uuid.UUID) round trips; order, equality and hash
are the bytes' (time order), checked on random ULIDs against sorting the
texts; time fields agree with inspect(); bad input is refused naming it;
immutable, picklable."""
import copy
import datetime as dt
import pickle
import random
import uuid

import pytest

import chronoid
from chronoid import ULID

UTC = dt.timezone.utc
# The ULID spec's example.
SPEC = "01ARZ3NDEKTSV4RRFFQ69G5FAV"


def test_new_is_now_and_round_trips_every_form():
    before = dt.datetime.now(UTC).replace(microsecond=0)
    u = ULID()
    after = dt.datetime.now(UTC) + dt.timedelta(milliseconds=1)
    assert before <= u.datetime <= after
    s = str(u)
    assert len(s) == 26 and chronoid.inspect(s).kind == "ulid"
    assert ULID.from_str(s) == u and ULID.from_str(s.lower()) == u
    assert ULID.from_bytes(u.bytes) == u and ULID(u.bytes) == u and bytes(u) == u.bytes
    assert ULID.from_hex(u.hex) == u and len(u.hex) == 32
    assert ULID.from_int(int(u)) == u
    assert ULID.from_uuid(u.to_uuid()) == u
    assert u.to_uuid() == chronoid.ulid_to_uuid(s)
    assert repr(u) == f"ULID({s})"


def test_spec_example_fields_agree_with_inspect():
    u = ULID.from_str(SPEC)
    info = chronoid.inspect(SPEC)
    assert u.milliseconds == info.ms == 1469922850259
    assert u.datetime == info.datetime == dt.datetime(2016, 7, 30, 23, 54, 10, 259000, tzinfo=UTC)
    assert u.timestamp == 1469922850.259
    assert str(u) == SPEC
    assert u.to_uuid() == uuid.UUID("01563e3a-b5d3-d676-4c61-efb99302bd5b")
    v4 = u.to_uuid4()
    assert v4.version == 4 and v4.variant == uuid.RFC_4122


def test_order_equality_hash_follow_the_bytes():
    rng = random.Random(35)
    ulids = [ULID.from_int(rng.getrandbits(128)) for _ in range(2000)]
    ulids += [ULID() for _ in range(500)] + [ULID.from_str(chronoid.ulid_monotonic()) for _ in range(500)]
    ulids.append(ulids[7])  # a duplicate
    assert [str(u) for u in sorted(ulids)] == sorted(str(u) for u in ulids)
    assert [u.bytes for u in sorted(ulids)] == sorted(u.bytes for u in ulids)
    assert len(set(ulids)) == len({u.bytes for u in ulids}) == len(ulids) - 1
    for a, b in zip(ulids, ulids[1:]):
        assert (a < b) == (a.bytes < b.bytes) and (a <= b) == (a.bytes <= b.bytes)
        assert (a > b) == (a.bytes > b.bytes) and (a >= b) == (a.bytes >= b.bytes)
        assert (a == b) == (a.bytes == b.bytes) and (a != b) == (a.bytes != b.bytes)
    c = ULID(ulids[0].bytes)
    assert c == ulids[0] and hash(c) == hash(ulids[0]) and c is not ulids[0]
    # Time order: later milliseconds sort later.
    early = ULID.from_datetime(dt.datetime(2001, 1, 1, tzinfo=UTC))
    late = ULID.from_datetime(dt.datetime(2001, 1, 1, 0, 0, 0, 1000, tzinfo=UTC))
    assert early < late


def test_equal_to_ulids_only():
    u = ULID.from_str(SPEC)
    assert u != SPEC and u != u.bytes and u != int(u) and u != u.to_uuid()
    with pytest.raises(TypeError):
        assert u < SPEC


def test_from_datetime_and_timestamp():
    when = dt.datetime(2020, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    a, b = ULID.from_datetime(when), ULID.from_datetime(when)
    assert a != b and a.milliseconds == b.milliseconds == 1577934245678
    assert a.datetime == when.replace(microsecond=678000)
    # Another zone: the same instant.
    east = when.astimezone(dt.timezone(dt.timedelta(hours=5, minutes=30)))
    assert ULID.from_datetime(east).milliseconds == a.milliseconds
    assert ULID.from_timestamp(1577934245.678901).milliseconds == 1577934245678
    assert ULID.from_timestamp(1577934245).milliseconds == 1577934245000
    assert ULID.from_timestamp(1.001).milliseconds == 1001
    assert ULID.from_timestamp(0).milliseconds == 0
    big = ULID.from_timestamp(((1 << 48) - 1) / 1000)
    assert big.milliseconds == (1 << 48) - 1
    with pytest.raises(chronoid.ChronoidValueError, match="past datetime's year 9999"):
        big.datetime
    with pytest.raises(chronoid.ChronoidValueError, match="0..2\\*\\*48-1"):
        ULID.from_timestamp(1 << 48)
    with pytest.raises(chronoid.ChronoidValueError, match="0..2\\*\\*48-1"):
        ULID.from_timestamp(-1)
    with pytest.raises(chronoid.ChronoidValueError, match="naive datetime"):
        ULID.from_datetime(dt.datetime(2020, 1, 1))
    with pytest.raises(chronoid.ChronoidValueError, match="finite"):
        ULID.from_timestamp(float("nan"))
    with pytest.raises(chronoid.ChronoidTypeError, match="bool"):
        ULID.from_timestamp(True)


def test_parse_takes_every_form():
    u = ULID.from_str(SPEC)
    for form in (u, SPEC, SPEC.lower(), u.to_uuid(), str(u.to_uuid()), u.hex, u.bytes,
                 bytearray(u.bytes), int(u)):
        assert ULID.parse(form) == u, repr(form)
    when = dt.datetime(2021, 5, 6, tzinfo=UTC)
    assert ULID.parse(when).datetime == when
    assert ULID.parse(when.timestamp()).datetime == when
    with pytest.raises(chronoid.ChronoidTypeError, match="NoneType"):
        ULID.parse(None)
    with pytest.raises(chronoid.ChronoidValueError, match="'abc'"):
        ULID.parse("abc")


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ULID.from_str("01ARZ3NDEKTSV4RRFFQ69G5FAU!"), chronoid.ChronoidValueError, "27 characters"),
    (lambda: ULID.from_str("01ARZ3NDEKTSV4RRFFQ69G5FAI"), chronoid.ChronoidValueError, "01ARZ3NDEKTSV4RRFFQ69G5FAI"),
    (lambda: ULID.from_str("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"), chronoid.ChronoidValueError, "above the largest"),
    (lambda: ULID.from_str(b"01ARZ3NDEKTSV4RRFFQ69G5FAV"), chronoid.ChronoidTypeError, "bytes"),
    (lambda: ULID.from_str("01ARZ3NDEKTSV4RRFFQ69G5FÄV"), chronoid.ChronoidValueError, "ULID"),
    (lambda: ULID(b"x" * 15), chronoid.ChronoidValueError, "got 15"),
    (lambda: ULID("01ARZ3NDEKTSV4RRFFQ69G5FAV"), chronoid.ChronoidTypeError, "from_str()"),
    (lambda: ULID.from_hex("zz" * 16), chronoid.ChronoidValueError, "32 hex digits"),
    (lambda: ULID.from_hex("0" * 30), chronoid.ChronoidValueError, "32 hex digits"),
    (lambda: ULID.from_int(1 << 128), chronoid.ChronoidValueError, "2**128-1"),
    (lambda: ULID.from_int(-1), chronoid.ChronoidValueError, "-1"),
    (lambda: ULID.from_int(1.5), chronoid.ChronoidTypeError, "float"),
    (lambda: ULID.from_uuid(SPEC), chronoid.ChronoidTypeError, "str"),
    (lambda: ULID.from_bytes(SPEC), chronoid.ChronoidTypeError, "str"),
    (lambda: ULID.from_datetime("2020-01-01"), chronoid.ChronoidTypeError, "str"),
])
def test_bad_input_names_the_value(call, exc, words):
    with pytest.raises(exc, match=words.replace("*", "\\*").replace("(", "\\(").replace(")", "\\)")):
        call()


def test_immutable_picklable_copyable():
    u = ULID()
    with pytest.raises(AttributeError, match="immutable"):
        u._b = b"\0" * 16
    with pytest.raises(AttributeError):
        u.extra = 1
    assert pickle.loads(pickle.dumps(u)) == u
    assert copy.copy(u) is u and copy.deepcopy(u) is u
    assert {u: 1}[ULID(u.bytes)] == 1


def test_random_text_round_trips_through_the_core():
    rng = random.Random(7)
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    for _ in range(3000):
        text = rng.choice("01234567") + "".join(rng.choice(alphabet) for _ in range(25))
        u = ULID.from_str(text)
        assert str(u) == text
        assert u.to_uuid() == chronoid.ulid_to_uuid(text)
        assert u.milliseconds == chronoid.inspect(text).ms
