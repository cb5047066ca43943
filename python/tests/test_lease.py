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
    with pytest.raises(chronoid.GeneratorError, match="released") as e:
        a.next()
    # the lease library's code, as for every lease failure (CID_ELEASE_RELEASED)
    assert (e.value.status, e.value.reason) == (-107, "node lease released"), e.value.reason
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
    assert e.value.status == -102  # CID_ELEASE_FULL
    # said once: not after its own summary ("... in the range: no free ...")
    assert str(e.value).count("no free node number") == 1
    held.release()
    chronoid.SnowflakeLease(schema=schema, lo=7, hi=7).release()


def test_lo_alone_leases_up_to_the_layouts_largest(schema):
    with chronoid.SnowflakeLease(schema=schema, lo=1023) as lease:
        assert lease.node == 1023
    with chronoid.SnowflakeLease(schema=schema, layout="sonyflake", lo=65535, owner="web-1 ü") as lease:
        assert lease.node == 65535


# 4 IDs a tick of a second: a batch of 9 needs three ticks.
SMALL = "time:51,node:10,seq:2;tick=1000ms;epoch=2020-01-01"


def test_the_snowflake_policy_reaches_the_leases_generator(schema):
    # 9 IDs borrow a tick, which 0 allows not, even when the clock passes
    # into the next second once during the batch.
    with chronoid.SnowflakeLease(schema=schema, layout=SMALL, lo=3, hi=3, on_exhausted="borrow",
                                 max_borrow_ticks=0) as lease:
        with pytest.raises(chronoid.GeneratorError) as e:
            lease.batch(9)
        assert e.value.status == -11, str(e.value)
    # 12 IDs borrow at most two ticks: the number is then under 3 s ahead,
    # within the next holder's clock wait (a run again on the same server).
    with chronoid.SnowflakeLease(schema=schema, layout=SMALL, lo=4, hi=4, on_exhausted="borrow",
                                 max_borrow_ticks=100) as lease:
        ids = lease.batch(12)
        assert len(set(ids)) == 12 and ids == sorted(ids)


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
            return f"{e.status} {e}"

    assert in_child(child).startswith("-105 ")  # CID_ELEASE_FORKED
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


# A server that is never there: a value that passes reaches it and fails.
NOWHERE = "host=/nonexistent-chronoid-dir port=1 connect_timeout=1"

# What bind/lease_opts.c refuses before any connection, in the words the
# npm package uses too (node/test/lease_options.test.js plays the same
# values), the option spelled the Python way.
REFUSED = [
    ({"ttl_ms": 999}, "ttl_ms 999 is out of range: expected 1000..86400000 ms"),
    ({"ttl_ms": 86400001}, "ttl_ms 86400001 is out of range: expected 1000..86400000 ms"),
    ({"ttl_ms": 0}, "ttl_ms 0 is out of range: expected 1000..86400000 ms"),
    ({"ttl_ms": -1}, "ttl_ms -1 is out of range: expected 1000..86400000 ms"),
    ({"grace_ms": -1}, "grace_ms -1 is out of range: expected 0..86400000 ms"),
    ({"grace_ms": 86400001}, "grace_ms 86400001 is out of range: expected 0..86400000 ms"),
    ({"clock_wait_ms": -1}, "clock_wait_ms -1 is out of range: expected 0..86400000 ms"),
    ({"clock_wait_ms": 86400001}, "clock_wait_ms 86400001 is out of range: expected 0..86400000 ms"),
    ({"lo": -1}, "lo -1 is out of range: expected 0..1023 (layout pgedge)"),
    ({"lo": 1024}, "lo 1024 is out of range: expected 0..1023 (layout pgedge)"),
    ({"hi": 0}, "hi 0 is out of range: expected 1..1023 (layout pgedge)"),
    ({"lo": 0, "hi": 0}, "hi 0 is out of range: expected 1..1023 (layout pgedge)"),
    ({"hi": 1024}, "hi 1024 is out of range: expected 1..1023 (layout pgedge)"),
    ({"layout": "sonyflake", "hi": 65536},
     "hi 65536 is out of range: expected 1..65535 (layout sonyflake)"),
    ({"lo": 5, "hi": 2}, "lo 5 is above hi 2: expected lo <= hi"),
    ({"schema": "Bad-Name"}, 'schema "Bad-Name" is not a lease schema name: expected lower-case '
     "letters, digits and _, not starting with a digit, at most 63"),
    ({"schema": "9lives"}, 'schema "9lives" is not a lease schema name'),
    ({"schema": "a" * 64}, f'schema "{"a" * 64}" is not a lease schema name'),
    ({"schema": ""}, 'schema "" is not a lease schema name'),
    ({"owner": "x" * 256}, f'owner "{"x" * 64}..." is 256 bytes long: expected at most 255'),
    ({"owner": "é" * 128}, f'owner "{"é" * 32}..." is 256 bytes long: expected at most 255'),
    ({"owner": "web\n1"}, 'owner "web\\x0a1" has a control character at byte 3: expected printable text'),
    ({"owner": "\x1b[2Jweb"},
     'owner "\\x1b[2Jweb" has a control character at byte 0: expected printable text'),
    ({"owner": "web\x7f"}, 'owner "web\\x7f" has a control character at byte 3'),
    ({"max_drift_ms": -1}, "max_drift_ms -1 is out of range: expected 0..9223372036854 ms"),
    ({"max_drift_ms": 9223372036855},
     "max_drift_ms 9223372036855 is out of range: expected 0..9223372036854 ms"),
    ({"max_wait_ms": -1}, "max_wait_ms -1 is out of range: expected 0..9223372036854 ms"),
    ({"max_borrow_ticks": 2 ** 32}, "max_borrow_ticks 4294967296 is out of range: expected 0..4294967295"),
    ({"on_behind": "later"}, "on_behind='later' is not a policy: expected 'run_ahead', 'wait' or 'fail'"),
    ({"on_exhausted": "run-ahead"}, "on_exhausted='run-ahead' is not a policy: expected 'wait' or 'borrow'"),
    ({"ttl_ms": 2 ** 53}, "ttl_ms 9007199254740992 is out of range: expected an integer from "
     "-9007199254740991 to 9007199254740991"),
    ({"ttl_ms": -10 ** 30}, "ttl_ms -1000000000000000000000000000000 is out of range: expected "
     "an integer"),
]


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
@pytest.mark.parametrize("kw,words", REFUSED, ids=[str(kw)[:40] for kw, _ in REFUSED])
def test_refused_before_any_connection(kw, words):
    with pytest.raises(chronoid.ChronoidValueError) as e:
        chronoid.SnowflakeLease(NOWHERE, **kw)
    assert words in str(e.value)
    assert getattr(e.value, "status", None) is None


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
def test_lease_setup_refuses_a_bad_schema_the_same_way():
    with pytest.raises(chronoid.ChronoidValueError, match='schema "Bad-Name" is not a lease schema name'):
        chronoid.lease_setup(NOWHERE, schema="Bad-Name")


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
@pytest.mark.parametrize("kw", [
    {"ttl_ms": 1000}, {"ttl_ms": 86400000}, {"grace_ms": 0}, {"grace_ms": 86400000},
    {"clock_wait_ms": 0}, {"clock_wait_ms": 86400000}, {"lo": 0, "hi": 1}, {"lo": 1023},
    {"hi": 1023}, {"lo": 7, "hi": 7}, {"layout": "sonyflake", "lo": 65535}, {"schema": "a" * 63},
    {"owner": "x" * 255}, {"owner": "web-1 (pid 7) ü"}, {"max_drift_ms": 9223372036854},
    {"max_borrow_ticks": 2 ** 32 - 1}, {"on_behind": "fail", "on_exhausted": "borrow"},
    {"on_behind": None, "max_wait_ms": 0},
])
def test_edges_pass_the_check_and_fail_only_at_the_server(kw):
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.SnowflakeLease(NOWHERE, **kw)
    assert "lease database error" in str(e.value)
    assert e.value.status == -101  # CID_ELEASE_DB


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq")
@pytest.mark.parametrize("kw,exc,words", [
    ({"lo": True}, chronoid.ChronoidTypeError, "lo must be an int, not bool"),
    ({"ttl_ms": 1500.5}, chronoid.ChronoidTypeError, "ttl_ms must be an int, not float"),
    ({"schema": "a\x00b"}, chronoid.ChronoidValueError, "NUL"),
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
