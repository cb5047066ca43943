"""IDs for a given time: uuid7_at(), ulid_at(), ulid_bytes_at().  Each
carries exactly the millisecond asked for (random times over the whole
range, both ends, every time form), never repeats (random part fresh per
call, and a forked child's bits are its own), is refused outside what
the kind holds, and a naive datetime is refused as everywhere in the
package."""
import datetime as dt
import random

import pytest

import chronoid

UTC = dt.timezone.utc
MAX_MS = (1 << 48) - 1


def test_random_times_are_carried_exactly():
    rng = random.Random(35)
    times = [0, 1, MAX_MS, 253402300799999] + [rng.randrange(MAX_MS + 1) for _ in range(3000)]
    for ms in times:
        u = chronoid.uuid7_at(ms)
        assert u.version == 7 and chronoid.inspect(u).ms == ms
        s = chronoid.ulid_at(ms)
        assert chronoid.inspect(s).ms == ms
        b = chronoid.ulid_bytes_at(ms)
        assert len(b) == 16 and int.from_bytes(b[:6], "big") == ms


def test_every_time_form():
    when = dt.datetime(2024, 2, 29, 12, 34, 56, 789999, tzinfo=UTC)
    ms = 1709210096789
    east = when.astimezone(dt.timezone(dt.timedelta(hours=-7)))
    for t in (when, east, ms, "2024-02-29T12:34:56.789Z"):
        assert chronoid.inspect(chronoid.uuid7_at(t)).ms == ms, t
        assert chronoid.inspect(chronoid.ulid_at(t)).ms == ms, t
    assert chronoid.inspect(chronoid.uuid7_at("2024-02-29")).ms == 1709164800000


def test_no_repeat_within_one_millisecond():
    n = 20000
    uuids = {chronoid.uuid7_at(1700000000000) for _ in range(n)}
    ulids = {chronoid.ulid_at(1700000000000) for _ in range(n)}
    assert len(uuids) == n and len(ulids) == n


def test_sorts_by_the_time_given():
    rng = random.Random(9)
    times = sorted({rng.randrange(MAX_MS + 1) for _ in range(500)})
    rng.shuffle(times)
    uuids = [(chronoid.uuid7_at(t), t) for t in times]
    ulids = [(chronoid.ulid_at(t), t) for t in times]
    assert [t for _, t in sorted(uuids)] == sorted(times)
    assert [t for _, t in sorted(ulids)] == sorted(times)


@pytest.mark.parametrize("fn", [chronoid.uuid7_at, chronoid.ulid_at, chronoid.ulid_bytes_at])
def test_refused_outside_the_range_or_naive(fn):
    with pytest.raises(chronoid.ChronoidValueError, match=r"281474976710656.*0\.\.2\*\*48-1") as e:
        fn(MAX_MS + 1)
    assert e.value.reason
    with pytest.raises(chronoid.ChronoidValueError, match=r"-1.*0\.\.2\*\*48-1"):
        fn(-1)
    with pytest.raises(chronoid.ChronoidValueError, match="naive datetime"):
        fn(dt.datetime(2020, 1, 1))
    with pytest.raises(chronoid.ChronoidValueError, match="'yesterday'"):
        fn("yesterday")
    with pytest.raises(chronoid.ChronoidTypeError):
        fn(None)
    with pytest.raises(chronoid.ChronoidTypeError):
        fn(1.5)


def test_forked_child_draws_its_own_random_bits():
    # The random buffer a child inherits must not replay the parent's
    # bits: both mint for one millisecond right after fork().
    import os
    chronoid.ulid_at(1)  # fill the parent's random buffer before the fork
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            out = [chronoid.ulid_at(1700000000000) for _ in range(2000)]
            out += [str(chronoid.uuid7_at(1700000000000)) for _ in range(2000)]
            os.write(w, "\n".join(out).encode())
        finally:
            os._exit(0)
    os.close(w)
    mine = {chronoid.ulid_at(1700000000000) for _ in range(2000)}
    mine |= {str(chronoid.uuid7_at(1700000000000)) for _ in range(2000)}
    with os.fdopen(r, "rb") as f:
        theirs = set(f.read().decode().split("\n"))
    os.waitpid(pid, 0)
    assert len(theirs) == 4000 and len(mine) == 4000
    assert not mine & theirs
