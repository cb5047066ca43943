"""Snowflake generators: every preset, custom specs, each policy of the
core through the pure step (exact clock readings), threads, batches."""
import array
import threading
import time

import pytest

import chronoid
from util import SLOW_LAYOUT, assert_threads_mint_unique_increasing, use_up_fresh_tick

MS = 1_000_000  # ns


@pytest.mark.parametrize("layout", chronoid.layouts())
def test_preset_increasing_and_decodes(layout):
    gen = chronoid.Snowflake(layout, node=3)
    ids = [gen.next() for _ in range(2000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
    now_ms = time.time_ns() // MS
    for i in ids[:: 250]:
        info = gen.decode(i)
        assert info.kind == "snowflake" and info.value == i and info.node == 3
        assert abs(info.ms - now_ms) < 60_000
        assert chronoid.inspect(i, layout=layout) == info
        assert chronoid.inspect(str(i), layout=layout) == info
    assert gen.layout_name == layout and gen.node == 3


def test_pgedge_known_answer():
    # tests/vectors.md: node 1, counter 0 at 2023-10-16 18:47:12.257 UTC.
    info = chronoid.inspect(104651375538868224)
    assert (info.ms, info.node, info.sequence) == (1697482032257, 1, 0)
    assert info.datetime.isoformat() == "2023-10-16T18:47:12.257000+00:00"


def test_custom_spec_and_no_node_layout():
    gen = chronoid.Snowflake("time:42,seq:12,reserved:10;epoch=2025-01-01")
    assert gen.layout_name == "custom" and gen.max_node == 0
    a, b = gen.next(), gen.next()
    assert a < b and a & 0x3FF == 0
    assert gen.decode(a).node is None
    with pytest.raises(chronoid.ChronoidValueError, match="no node field"):
        gen.renode(1)
    with pytest.raises(chronoid.ChronoidValueError, match="node 1 is out of range"):
        chronoid.Snowflake("time:42,seq:12,reserved:10", node=1)


def test_batches_increase_and_follow_next():
    gen = chronoid.Snowflake("pgedge", node=9)
    first = gen.next()
    b = gen.batch(10000)
    arr = gen.batch_array(10000)
    last = gen.next()
    assert isinstance(arr, array.array) and arr.typecode == "Q" and len(arr) == 10000
    seq = [first] + b + list(arr) + [last]
    assert all(x < y for x, y in zip(seq, seq[1:]))
    assert gen.batch(0) == [] and len(gen.batch_array(0)) == 0


def test_threads_unique_and_increasing_per_thread():
    gen = chronoid.Snowflake("pgedge", node=1)
    assert_threads_mint_unique_increasing(gen.next, gen.batch, 100, 40)


def test_waiting_releases_the_gil():
    # The generator must wait about a second for its next tick; meanwhile
    # another thread must run.
    gen = chronoid.Snowflake(SLOW_LAYOUT, node=1)
    use_up_fresh_tick(gen)
    count = 0
    stop = threading.Event()

    def spin():
        nonlocal count
        while not stop.is_set():
            count += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        start_count = count
        t0 = time.monotonic()
        gen.next()
        waited = time.monotonic() - t0
        during = count - start_count
    finally:
        stop.set()
        t.join()
    assert waited > 0.5
    assert during > 1000, f"other thread ran {during} times in {waited:.3f} s"


# --- policies, at exact clock readings (the pure step) ------------------

SMALL = "time:51,node:10,seq:2;epoch=2020-01-01"  # 4 IDs per tick
T0 = 1_700_000_000_000  # Unix ms


def test_exhausted_wait_policy_says_would_wait():
    gen = chronoid.Snowflake(SMALL, node=1, scope="exhausted-wait")
    ids = [gen.next_at(T0 * MS) for _ in range(4)]
    assert [gen.decode(i).sequence for i in ids] == [0, 1, 2, 3]
    with pytest.raises(chronoid.WouldWait) as e:
        gen.next_at(T0 * MS)
    assert e.value.status == -17
    assert gen.decode(gen.next_at((T0 + 1) * MS)).ms == T0 + 1


def test_exhausted_borrow_policy():
    gen = chronoid.Snowflake(SMALL, node=1, on_exhausted="borrow", max_borrow_ticks=2,
                             scope="exhausted-borrow")
    ids = [gen.next_at(T0 * MS) for _ in range(12)]
    assert [gen.decode(i).ms for i in ids] == [T0] * 4 + [T0 + 1] * 4 + [T0 + 2] * 4
    with pytest.raises(chronoid.GeneratorError) as e:
        gen.next_at(T0 * MS)
    assert e.value.status == -11


def test_clock_behind_run_ahead():
    gen = chronoid.Snowflake(SMALL, node=1, max_drift_ms=10, scope="behind-run-ahead")
    a = gen.next_at(T0 * MS)
    b = gen.next_at((T0 - 5) * MS)  # behind, within the drift: issued on the last tick
    assert b > a and gen.decode(b).ms == T0
    with pytest.raises(chronoid.GeneratorError) as e:
        gen.next_at((T0 - 50) * MS)
    assert e.value.status == -9  # CID_EDRIFT


def test_clock_behind_fail():
    gen = chronoid.Snowflake(SMALL, node=1, on_behind="fail", scope="behind-fail")
    gen.next_at(T0 * MS)
    with pytest.raises(chronoid.GeneratorError) as e:
        gen.next_at((T0 - 1) * MS)
    assert e.value.status == -8 and "clock" in str(e.value)


def test_clock_behind_wait():
    gen = chronoid.Snowflake(SMALL, node=1, on_behind="wait", max_wait_ms=5, scope="behind-wait")
    gen.next_at(T0 * MS)
    with pytest.raises(chronoid.WouldWait):
        gen.next_at((T0 - 1) * MS)


def test_before_epoch():
    gen = chronoid.Snowflake("pgedge", node=1)
    with pytest.raises(chronoid.ChronoidValueError) as e:
        gen.next_at(1_000 * MS)  # 1970: before pgedge's 2023 epoch
    assert e.value.status == -7


# --- bad arguments ---------------------------------------------------------

@pytest.mark.parametrize("node,exc,words", [
    (-1, chronoid.ChronoidValueError, "node -1 is out of range: expected 0..1023"),
    (1024, chronoid.ChronoidValueError, "node 1024 is out of range"),
    (2 ** 64, chronoid.ChronoidValueError, "node 18446744073709551616 is out of range"),
    (-(2 ** 100), chronoid.ChronoidValueError, "out of range"),
    (True, chronoid.ChronoidTypeError, "not bool"),
    (False, chronoid.ChronoidTypeError, "not bool"),
    (1.0, chronoid.ChronoidTypeError, "not float"),
    ("1", chronoid.ChronoidTypeError, "not str"),
])
def test_bad_node(node, exc, words):
    with pytest.raises(exc) as e:
        chronoid.Snowflake("pgedge", node=node)
    assert words in str(e.value)
    gen = chronoid.Snowflake("pgedge", node=1)
    if node is not None:
        with pytest.raises(exc):
            gen.renode(node)
    assert gen.node == 1


@pytest.mark.parametrize("kw,words", [
    ({"on_behind": "later"}, "'run_ahead', 'wait' or 'fail'"),
    ({"on_exhausted": "never"}, "'wait' or 'borrow'"),
    ({"max_drift_ms": -1}, "max_drift_ms -1 is out of range"),
    ({"max_wait_ms": True}, "not bool"),
    ({"max_borrow_ticks": 2 ** 40}, "out of range"),
    ({"max_wait_ms": None}, "max_wait_ms must be an int, not None"),
    ({"on_behind": None}, "on_behind must be a policy name, not None"),
])
def test_bad_options(kw, words):
    with pytest.raises((chronoid.ChronoidValueError, chronoid.ChronoidTypeError)) as e:
        chronoid.Snowflake("pgedge", node=1, **kw)
    assert words in str(e.value)


# bind/snowflake_opts.c: the policy limits a Snowflake and a lease share,
# with the npm package (node/test/errors.test.js plays the same values).
@pytest.mark.parametrize("name,top,unit", [
    ("max_drift_ms", 9223372036854, " ms"), ("max_wait_ms", 9223372036854, " ms"),
    ("max_borrow_ticks", 4294967295, ""),
])
def test_policy_limits(name, top, unit):
    for v in (0, top):
        # a scope of its own: one process mints under one set of policies a node
        gen = chronoid.Snowflake("pgedge", node=1, claim=False, scope=f"limits-{name}-{v}",
                                 **{name: v})
        assert isinstance(gen.next(), int)
        gen.close()
    for v in (-1, top + 1):
        with pytest.raises(chronoid.ChronoidValueError) as e:
            chronoid.Snowflake("pgedge", node=1, claim=False, **{name: v})
        assert f"{name} {v} is out of range: expected 0..{top}{unit}" in str(e.value)


@pytest.mark.parametrize("layout,words", [
    ("nope", "unknown layout 'nope'"),
    ("time:41,node:10,seq:11", "add up to 62"),
    ("time:41,node:10,seq:12;tick=1001ms", "tick 1001ms"),
    ("pgedge\x00", "not a layout"),
    ("pg\udcffedge", "U+DCFF at position 2 is not ASCII"),
    ("x" * 1000, "at most"),
])
def test_bad_layout(layout, words):
    with pytest.raises(chronoid.ChronoidValueError) as e:
        chronoid.Snowflake(layout, node=1)
    assert words in str(e.value)


def test_bad_layout_type():
    with pytest.raises(chronoid.ChronoidTypeError):
        chronoid.Snowflake(5, node=1)


def test_bad_batch_sizes():
    gen = chronoid.Snowflake("pgedge", node=1)
    for bad, exc in [(-1, ValueError), (2 ** 40, ValueError), (True, TypeError), (2.0, TypeError)]:
        with pytest.raises(exc):
            gen.batch(bad)
        with pytest.raises(exc):
            gen.batch_array(bad)
        with pytest.raises(exc):
            chronoid.uuid7_batch(bad)
        with pytest.raises(exc):
            chronoid.ulid_batch(bad)
        for batch_bytes in (chronoid.uuid7_batch_bytes, chronoid.ulid_batch_bytes,
                            chronoid.ulid_monotonic_batch_bytes):
            with pytest.raises(exc) as e:
                batch_bytes(bad)
            assert isinstance(e.value, chronoid.ChronoidError)
            assert (repr(bad) in str(e.value)) if exc is ValueError else ("int" in str(e.value))


def test_batch_size_limit_named():
    with pytest.raises(chronoid.ChronoidValueError,
                       match=r"^n 16777217 is out of range: expected 0\.\.16777216 IDs per batch"):
        chronoid.ulid_batch_bytes(2 ** 24 + 1)
    with pytest.raises(chronoid.ChronoidValueError, match=r"^n -1 is out of range"):
        chronoid.ulid_monotonic_batch_bytes(-1)


def test_no_argument_calls_refuse_arguments():
    gen = chronoid.Snowflake("pgedge", node=1)
    for name, fn in [("uuid7", chronoid.uuid7), ("uuid7_bytes", chronoid.uuid7_bytes),
                     ("uuid4", chronoid.uuid4), ("ulid", chronoid.ulid),
                     ("ulid_bytes", chronoid.ulid_bytes), ("ulid_monotonic", chronoid.ulid_monotonic),
                     ("ulid_monotonic_bytes", chronoid.ulid_monotonic_bytes), ("next", gen.next)]:
        with pytest.raises(chronoid.ChronoidTypeError,
                           match=rf"^{name}\(\) takes no arguments \(1 given\)$"):
            fn(1)
        with pytest.raises(TypeError):
            fn(a=1)
        fn()


def test_not_initialised_cannot_mint():
    gen = chronoid.Snowflake.__new__(chronoid.Snowflake)
    with pytest.raises(TypeError, match="__init__"):
        gen.next()
    assert gen.layout_name == "pgedge"


def test_init_twice_refused():
    gen = chronoid.Snowflake("pgedge", node=1)
    with pytest.raises(TypeError, match="made once"):
        gen.__init__("pgedge", node=2)
    assert gen.node == 1


def test_renode_keeps_increasing():
    gen = chronoid.Snowflake("pgedge", node=1)
    a = gen.next()
    gen.renode(2)
    b = gen.next()
    assert b > a and gen.decode(b).node == 2 and gen.node == 2
    assert repr(gen) == "chronoid.Snowflake(layout='pgedge', node=2)"
