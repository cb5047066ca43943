"""Helpers the tests share: running code in a forked child or in threads,
and a connection to run.sh's throwaway server."""
import os
import pickle
import threading
import time

import pytest

PG_REQUIRED = os.environ.get("CHRONOID_PY_PG") == "1"


def in_child(fn):
    """Run fn() in a forked child; return what it returned (or fail with what it raised)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            result = ("ok", fn())
        except BaseException as e:  # report everything to the parent
            result = ("err", f"{type(e).__name__}: {e}")
        with os.fdopen(w, "wb") as f:
            pickle.dump(result, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"child status {status}"
    kind, value = pickle.loads(data)
    if kind == "err":
        raise AssertionError(f"child raised {value}")
    return value


def in_threads(work, n=4):
    """Run work() in n threads at once; the list of what each returned."""
    out = [None] * n

    def run(k):
        out[k] = work()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def assert_unique_and_increasing_each(runs):
    """No ID twice across all runs; each run strictly increasing."""
    everything = [i for run in runs for i in run]
    assert len(set(everything)) == len(everything)
    for run in runs:
        assert all(a < b for a, b in zip(run, run[1:]))


# A layout whose 1-second tick holds 2 IDs: a generator of it waits.
SLOW_LAYOUT = "time:52,node:10,seq:1;tick=1000ms"


def use_up_fresh_tick(gen):
    """Leave gen (of SLOW_LAYOUT) with both IDs of a tick that has just
    begun used up, so that its next next() waits about a second."""
    while True:
        t0 = time.monotonic()
        first = gen.next()
        if time.monotonic() - t0 > 0.05 and gen.decode(first).sequence == 0:
            break  # waited into a new tick: its first ID
    gen.next()


def assert_threads_mint_unique_increasing(single, batch, rounds, size, n=4):
    """n threads each call single() and batch(size) rounds times: every ID
    unique, each thread's strictly increasing."""
    def work():
        out = []
        for _ in range(rounds):
            out.append(single())
            out.extend(batch(size))
        return out

    runs = in_threads(work, n)
    assert sum(map(len, runs)) == n * rounds * (size + 1)
    assert_unique_and_increasing_each(runs)


def pg_connect():
    """An autocommit psycopg connection to the server run.sh started (the
    PG* variables name it).  Without CHRONOID_PY_PG=1 a missing server or
    driver skips the test; with it, they are failures."""
    if not PG_REQUIRED and not os.environ.get("PGHOST"):
        pytest.skip("no PostgreSQL server (python/tests/run.sh starts one)")
    psycopg = pytest.importorskip("psycopg") if not PG_REQUIRED else __import__("psycopg")
    try:
        return psycopg.connect(autocommit=True)
    except psycopg.OperationalError as e:
        if PG_REQUIRED:
            raise
        pytest.skip(f"no PostgreSQL server answers at PGHOST: {e}")

