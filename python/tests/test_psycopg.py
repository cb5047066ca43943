"""chronoid's IDs through psycopg 3 on a real PostgreSQL server, next to
the same kinds minted by the chronoid extension: they round-trip as the
same Python values, sort together by time, and decode the same on both
sides.

python/tests/run.sh starts a throwaway cluster (scripts/pgcluster.sh),
installs the extension and sets PGHOST/PGPORT and CHRONOID_PY_PG=1; then
a missing server or driver is a failure.  Run alone, without a server,
these tests are skipped.
"""
import time
import uuid

import pytest

import chronoid
from util import pg_connect


@pytest.fixture(scope="module")
def conn():
    c = pg_connect()
    with c:
        c.execute("DROP SCHEMA IF EXISTS pytest_chronoid CASCADE")
        c.execute("CREATE SCHEMA pytest_chronoid")
        c.execute("CREATE EXTENSION IF NOT EXISTS chronoid")
        c.execute("SET search_path = pytest_chronoid, public")
        c.execute("SET snowflake.node = 2")
        yield c
        c.execute("DROP SCHEMA pytest_chronoid CASCADE")


def pause():
    # Past any millisecond a generator may have run ahead into.
    time.sleep(0.003)


def interleave(conn, rounds, py_sql, py_ids, server_sql):
    """rounds times: IDs minted in Python (py_ids()) inserted by py_sql,
    then IDs minted by the server (server_sql), a pause after each."""
    for _ in range(rounds):
        with conn.cursor() as cur:
            cur.executemany(py_sql, [(i,) for i in py_ids()])
        pause()
        conn.execute(server_sql)
        pause()


def assert_id_order_is_insert_order(rows):
    """rows ORDER BY id, with the serial insert order second."""
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)


def test_uuid7_key_round_trip(conn):
    conn.execute("CREATE TABLE u (id uuid PRIMARY KEY, v int)")
    ids = chronoid.uuid7_batch(500) + [chronoid.uuid7() for _ in range(500)]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO u VALUES (%s, %s)", [(u, i) for i, u in enumerate(ids)])
        cur.execute("SELECT id FROM u ORDER BY id")
        back = [r[0] for r in cur.fetchall()]
    assert all(type(u) is uuid.UUID for u in back)
    assert back == ids
    got = conn.execute("SELECT v FROM u WHERE id = %s", (ids[123],)).fetchone()
    assert got == (123,)


def test_uuid7_python_and_server_sort_together_and_decode_same(conn):
    conn.execute("CREATE TABLE u2 (id uuid PRIMARY KEY, seq serial, src text)")
    interleave(conn, 5, "INSERT INTO u2 (id, src) VALUES (%s, 'py')", lambda: chronoid.uuid7_batch(50),
               "INSERT INTO u2 (id, src) SELECT uuidv7(), 'pg' FROM generate_series(1, 50)")
    rows = conn.execute(
        "SELECT id, seq, src, (extract(epoch FROM uuid_extract_timestamp(id)) * 1000)::bigint "
        "FROM u2 ORDER BY id").fetchall()
    assert_id_order_is_insert_order(rows)
    assert {r[2] for r in rows} == {"py", "pg"}
    for u, _, _, server_ms in rows:
        info = chronoid.inspect(u)
        assert info.version == 7 and info.ms == server_ms


def test_uuid7_range_selects_by_time(conn):
    conn.execute("CREATE TABLE u3 (id uuid PRIMARY KEY)")
    before = chronoid.uuid7_batch(20)
    pause()
    start = time.time_ns() // 1_000_000
    middle = chronoid.uuid7_batch(20)
    conn.execute("INSERT INTO u3 SELECT uuidv7() FROM generate_series(1, 20)")
    end = time.time_ns() // 1_000_000
    server = [r[0] for r in conn.execute("SELECT id FROM u3").fetchall()]
    pause()
    after = chronoid.uuid7_batch(20)
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO u3 VALUES (%s)", [(u,) for u in before + middle + after])
    lo, hi = chronoid.uuid7_range(start, end)
    got = {r[0] for r in conn.execute("SELECT id FROM u3 WHERE id BETWEEN %s AND %s",
                                      (lo, hi)).fetchall()}
    assert got == set(middle) | set(server)


def test_snowflakes_in_bigint(conn):
    conn.execute("CREATE TABLE s (id bigint PRIMARY KEY, seq serial, src text)")
    gen = chronoid.Snowflake("pgedge", node=1)
    interleave(conn, 5, "INSERT INTO s (id, src) VALUES (%s, 'py')", lambda: gen.batch(50),
               "INSERT INTO s (id, src) SELECT snowflake.nextval(), 'pg' FROM generate_series(1, 50)")
    rows = conn.execute(
        "SELECT id, seq, src, snowflake.get_node(id), snowflake.get_count(id), "
        "(extract(epoch FROM snowflake.to_timestamp(id)) * 1000)::bigint FROM s ORDER BY id").fetchall()
    assert_id_order_is_insert_order(rows)
    for sid, _, src, node, count, ms in rows:
        assert type(sid) is int
        info = chronoid.inspect(sid)
        assert (info.node, info.sequence, info.ms) == (node, count, ms)
        assert node == (1 if src == "py" else 2)


def test_ulid_column(conn):
    conn.execute("CREATE TABLE l (id ulid PRIMARY KEY, seq serial)")
    interleave(conn, 3, "INSERT INTO l (id) VALUES (%s::ulid)", lambda: chronoid.ulid_monotonic_batch(30),
               "INSERT INTO l (id) SELECT gen_monotonic_ulid() FROM generate_series(1, 30)")
    rows = conn.execute(
        "SELECT id::text, seq, (extract(epoch FROM ulid_to_timestamptz(id)) * 1000)::bigint, "
        "ulid_to_uuid(id) FROM l ORDER BY id").fetchall()
    assert_id_order_is_insert_order(rows)
    for text, _, ms, as_uuid in rows:
        assert chronoid.inspect(text).ms == ms
        assert chronoid.ulid_to_uuid(text) == as_uuid
