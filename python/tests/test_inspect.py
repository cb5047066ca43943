"""inspect() of any ID, time->ID range bounds, and time arguments."""
import datetime
import uuid

import pytest

import chronoid

UTC = datetime.timezone.utc


@pytest.mark.parametrize("text,version,ms", [
    ("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", 7, 1645557742000),
    ("C232AB00-9414-11EC-B3C8-9F6BDECED846", 1, 1645557742000),
    ("1EC9414C-232A-6B00-B3C8-9F6BDECED846", 6, 1645557742000),
    ("919108f7-52d1-4320-9bac-f847db4148a8", 4, None),
    ("00000000-0000-0000-0000-000000000000", -1, None),
    ("{019535d9-3df7-79fb-b466-fa907fa17f9e}", 7, 1740365184503),
    ("019535d93df779fbb466fa907fa17f9e", 7, 1740365184503),
])
def test_uuids(text, version, ms):
    info = chronoid.inspect(text)
    assert info.kind == "uuid" and info.version == version and info.ms == ms
    assert isinstance(info.value, uuid.UUID) and info.value == uuid.UUID(text.strip("{}"))
    assert chronoid.inspect(info.value) == info
    if ms is None:
        assert info.datetime is None
    else:
        assert info.datetime == datetime.datetime.fromtimestamp(ms / 1000, UTC)
        assert info.datetime.tzinfo is UTC or info.datetime.utcoffset() == datetime.timedelta(0)


@pytest.mark.parametrize("text,kind,value,ms", [
    # tests/vectors.md: MongoDB's manual, the ObjectId spec's test plan, the KSUID README
    ("507F1F77BCF86CD799439011", "objectid", "507f1f77bcf86cd799439011", 1350508407000),
    ("ffffffffffffffffffffffff", "objectid", "ffffffffffffffffffffffff", 4294967295000),
    ("0ujtsYcgvSTl8PAuAdqWYSMnLOv", "ksuid", "0ujtsYcgvSTl8PAuAdqWYSMnLOv", 1507608047000),
    ("aWgEPTl1tmebfsQzFP4bxwgy80V", "ksuid", "aWgEPTl1tmebfsQzFP4bxwgy80V", 5694967295000),
])
def test_objectid_and_ksuid(text, kind, value, ms):
    info = chronoid.inspect(text)
    assert (info.kind, info.value, info.ms, info.node, info.sequence, info.version) == (
        kind, value, ms, None, None, None)
    assert info.datetime == datetime.datetime.fromtimestamp(ms / 1000, UTC)


@pytest.mark.parametrize("text,status", [
    ("507f1f77bcf86cd79943901z", "position 23"),
    ("aWgEPTl1tmebfsQzFP4bxwgy80!", "position 26"),
])
def test_objectid_and_ksuid_bad_character(text, status):
    with pytest.raises(ValueError, match=status):
        chronoid.inspect(text)


def test_ksuid_above_the_largest():
    with pytest.raises(ValueError):
        chronoid.inspect("aWgEPTl1tmebfsQzFP4bxwgy80W")


def test_fields_by_name_and_position():
    info = chronoid.inspect("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    kind, value, dt, ms, node, seq, version = info
    assert (kind, value, ms, node, seq, version) == (
        "ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAV", 1469922850259, None, None, None)
    assert dt == datetime.datetime(2016, 7, 30, 23, 54, 10, 259000, tzinfo=UTC)
    assert isinstance(info, chronoid.IdInfo)


def test_ulid_past_year_9999_keeps_ms():
    info = chronoid.inspect("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
    assert info.ms == 2 ** 48 - 1 and info.datetime is None


def test_snowflake_layouts_differ():
    i = chronoid.Snowflake("twitter", node=7).next()
    assert chronoid.inspect(i, layout="twitter").node == 7
    assert chronoid.inspect(i, layout="twitter").ms != chronoid.inspect(i).ms


@pytest.mark.parametrize("bad,exc,words", [
    ("hello", chronoid.ChronoidValueError, "no known ID"),
    ("", chronoid.ChronoidValueError, "no known ID"),
    ("017F22E2-79B0-7CC3-98C4-DC0C0C07398G", chronoid.ChronoidValueError, "position 35"),
    ("\udc80" * 26, chronoid.ChronoidValueError, "U+DC80 at position 0"),
    ("9" * 20, chronoid.ChronoidValueError, "not an ID"),
    (2 ** 64, chronoid.ChronoidValueError, "not an ID"),
    (-5, chronoid.ChronoidValueError, "not an ID"),
    (True, chronoid.ChronoidTypeError, "not bool"),
    (None, chronoid.ChronoidTypeError, "NoneType"),
    (b"\x00" * 16, chronoid.ChronoidTypeError, "bytes"),
    (1.5, chronoid.ChronoidTypeError, "float"),
])
def test_bad_input(bad, exc, words):
    with pytest.raises(exc) as e:
        chronoid.inspect(bad)
    assert words in str(e.value)


def test_ranges_bound_what_was_minted():
    gen = chronoid.Snowflake("pgedge", node=4)
    now = datetime.datetime.now(UTC)
    u, l, s = chronoid.uuid7(), chronoid.ulid(), gen.next()
    start, end = now - datetime.timedelta(seconds=2), now + datetime.timedelta(seconds=2)
    lo, hi = chronoid.uuid7_range(start, end)
    assert lo < u < hi and lo.version == 7 and hi.version == 7
    lo, hi = chronoid.ulid_range(start, end)
    assert lo < l < hi
    lo, hi = chronoid.snowflake_range(start, end)
    assert lo < s < hi
    lo, hi = chronoid.snowflake_range(start, end, layout="twitter")
    assert not lo < s < hi


def test_range_edges_exact():
    lo, hi = chronoid.uuid7_range(1645557742000, 1645557742000)
    assert lo == uuid.UUID("017f22e2-79b0-7000-8000-000000000000")
    assert hi == uuid.UUID("017f22e2-79b0-7fff-bfff-ffffffffffff")
    lo, hi = chronoid.ulid_range("2023-03-10T12:00:49.111Z", "2023-03-10 12:00:49.111")
    assert lo == "01GV5PA9EQ0000000000000000" and hi == "01GV5PA9EQZZZZZZZZZZZZZZZZ"
    lo, hi = chronoid.snowflake_range(1697482032257, 1697482032257)
    assert lo == 104651375538864128 and hi == lo + (1 << 22) - 1
    # an aware datetime in another zone means the same instant
    tz = datetime.timezone(datetime.timedelta(hours=2))
    assert chronoid.uuid7_range(datetime.datetime(2022, 2, 22, 21, 22, 22, tzinfo=tz), 1645557742000)[0] == lo_of(1645557742000)


def lo_of(ms):
    return chronoid.uuid7_range(ms, ms)[0]


@pytest.mark.parametrize("start,end,exc,words", [
    (datetime.datetime(2020, 1, 1), 0, chronoid.ChronoidValueError, "naive datetime"),
    (5, 4, chronoid.ChronoidValueError, "after end"),
    ("2023-02-30", "2024-01-01", chronoid.ChronoidValueError, "not a time for start"),
    ("2023-01-01x", "2024-01-01", chronoid.ChronoidValueError, "position 10"),
    (-1, 5, chronoid.ChronoidValueError, "0..2**48-1"),
    (0, 2 ** 48, chronoid.ChronoidValueError, "0..2**48-1"),
    (0, 2 ** 70, chronoid.ChronoidValueError, "out of range for end"),
    (True, 5, chronoid.ChronoidTypeError, "bool"),
    (1.5, 5, chronoid.ChronoidTypeError, "float"),
])
def test_bad_ranges(start, end, exc, words):
    with pytest.raises(exc) as e:
        chronoid.uuid7_range(start, end)
    assert words in str(e.value)


def test_snowflake_range_before_epoch():
    with pytest.raises(chronoid.ChronoidValueError, match="layout pgedge holds"):
        chronoid.snowflake_range("2000-01-01", "2024-01-01")
