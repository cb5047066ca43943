"""Node numbers leased from PostgreSQL (libchronoid_lease, compiled into
the module): distinct numbers for concurrent holders, the number back on
release, a full range refused, and a forked child refused the parent's
lease.  Needs the throwaway server run.sh starts (no extension: the lease
table is plain SQL); skipped without one, as the psycopg tests are."""
import multiprocessing
import os
import time

import pytest

import chronoid
from util import assert_unique_and_increasing_each, in_child, in_threads

REQUIRED = os.environ.get("CHRONOID_PY_PG") == "1"

# Without run.sh's server these tests skip rather than create tables in
# whatever server the PG* defaults reach.
needs_server = pytest.mark.skipif(not REQUIRED and not os.environ.get("PGHOST"),
                                  reason="no PostgreSQL server (python/tests/run.sh starts one)")


@pytest.fixture
def schema(request):
    if not REQUIRED and not os.environ.get("PGHOST"):
        pytest.skip("no PostgreSQL server (python/tests/run.sh starts one)")
    name = "lease_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
    try:
        chronoid.lease_setup(schema=name)
    except chronoid.GeneratorError as e:
        if REQUIRED:
            raise
        pytest.skip(f"no PostgreSQL server answers at PGHOST: {e}")
    chronoid.lease_setup(schema=name)  # again: a no-op
    return name


@needs_server
def test_built_with_leases():
    # run.sh builds where libpq is (scripts/setup.sh installs libpq-dev)
    assert chronoid.has_leases is True


def test_distinct_numbers_and_back_on_release(schema):
    a = chronoid.SnowflakeLease(schema=schema, ttl_ms=5000)
    b = chronoid.SnowflakeLease(schema=schema, ttl_ms=5000)
    assert (a.node, b.node) == (1, 2) and a.status == "ok" and a.remaining_ms > 1000
    ids = a.batch(1000) + [b.next() for _ in range(1000)]
    assert len(set(ids)) == 2000
    assert {chronoid.inspect(i).node for i in ids} == {1, 2}
    a.release()
    with pytest.raises(chronoid.GeneratorError, match="released"):
        a.next()
    assert a.status == "released"
    with chronoid.SnowflakeLease(schema=schema) as c:
        assert c.node == 1 and chronoid.inspect(c.next()).node == 1
    with pytest.raises(chronoid.GeneratorError, match="released"):
        c.next()
    b.release()


def test_full_range_refused(schema):
    held = chronoid.SnowflakeLease(schema=schema, lo=7, hi=7)
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.SnowflakeLease(schema=schema, lo=7, hi=7)
    assert "no free node number in 7..7: 1 held by leases" in str(e.value)
    # said once: not after its own summary ("... in the range: no free ...")
    assert str(e.value).count("no free node number") == 1
    held.release()
    chronoid.SnowflakeLease(schema=schema, lo=7, hi=7).release()


def test_other_layouts(schema):
    with chronoid.SnowflakeLease(schema=schema, layout="sonyflake", lo=300, hi=400) as lease:
        assert lease.node == 300 and lease.layout_name == "sonyflake"
        assert chronoid.inspect(lease.next(), layout="sonyflake").node == 300


def test_forked_child_is_refused_the_parents_lease(schema):
    lease = chronoid.SnowflakeLease(schema=schema)

    def child():
        try:
            lease.next()
            return "minted"
        except chronoid.ForkError as e:
            return str(e)

    assert "parent" in in_child(child)
    assert lease.next() > 0
    lease.release()


def _lease_and_mint(args):
    schema, _ = args
    with chronoid.SnowflakeLease(schema=schema, ttl_ms=5000) as lease:
        return lease.node, lease.batch(500)


def test_workers_lease_distinct_numbers(schema):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(3) as pool:
        # Each task holds its lease while it mints; tasks in parallel get
        # distinct numbers, later ones may reuse a released one.
        results = pool.map(_lease_and_mint, [(schema, k) for k in range(6)])
    ids = [i for _, batch in results for i in batch]
    assert len(set(ids)) == len(ids) == 3000
    for node, batch in results:
        assert {chronoid.inspect(i).node for i in batch} == {node}


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
@pytest.mark.parametrize("kw,exc,words", [
    ({"ttl_ms": 10}, chronoid.ChronoidValueError, "ttl_ms 10 is out of range"),
    ({"lo": 5, "hi": 2}, chronoid.ChronoidValueError, "lo 5 is above hi 2"),
    ({"hi": 5000}, chronoid.ChronoidValueError, "hi 5000 is out of range"),
    ({"lo": True}, chronoid.ChronoidTypeError, "not bool"),
    ({"schema": "a\x00b"}, chronoid.ChronoidValueError, "NUL"),
    ({"schema": "Bad-Name"}, chronoid.ChronoidValueError, ""),
    ({"owner": "\udc80"}, chronoid.ChronoidValueError, "surrogate"),
    ({"conninfo": 5}, chronoid.ChronoidTypeError, "conninfo must be a str"),
    ({"layout": "nope"}, chronoid.ChronoidValueError, "not a layout"),
])
def test_bad_options(kw, exc, words):
    with pytest.raises(exc) as e:
        chronoid.SnowflakeLease(**kw)
    assert words in str(e.value)


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
def test_unreachable_server():
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.SnowflakeLease("host=/nonexistent-dir port=1", ttl_ms=1000)
    assert "nonexistent" in str(e.value) or "database" in str(e.value)


def test_lease_threads_mint_while_it_renews(schema):
    # ttl 1 s: the library's thread renews every third of it, while four
    # threads mint (without the GIL) for about 1.5 s; under the TSan pass
    # this is where a race between renewal and minting would show.
    lease = chronoid.SnowflakeLease(schema=schema, ttl_ms=1000)
    deadline = time.monotonic() + 1.5

    def work():
        got = []
        while time.monotonic() < deadline:
            got.append(lease.next())
            got.extend(lease.batch(50))
        return got

    runs = in_threads(work)
    assert lease.status == "ok" and lease.remaining_ms > 0  # renewed all along
    assert_unique_and_increasing_each(runs)
    lease.release()
