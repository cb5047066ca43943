"""Node claims (the core's cid_node_claim_* and cid_claimed_snowflake_*):
a Snowflake generator claims its node by default and holds it against
every other process on the host; generators of one (scope, node) in a
process share one generator; a number handed over (a generator per job,
a worker recycled, a process that died) never repeats the previous
holder's IDs; after fork() an explicit node stays explicit, and a node
chosen from a range is chosen again from that range."""
import multiprocessing
import os
import subprocess
import sys

import pytest

import chronoid
from util import in_child


def test_claim_is_the_default_and_refuses_another_process(tmp_path):
    gen = chronoid.Snowflake("pgedge", node=5)
    assert gen.claim_path == os.path.join(os.environ["CHRONOID_CLAIM_DIR"], "default.5.lock")
    code = ("import chronoid,sys\n"
            "try:\n"
            "    chronoid.Snowflake('pgedge', node=5)\n"
            "except chronoid.GeneratorError as e:\n"
            "    print(e); sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 3, r.stdout + r.stderr
    assert f"held by process {os.getpid()}" in r.stdout and "node 5" in r.stdout
    # The advice is the packages' one claim policy (bind/claim.c), as in Node's.
    assert "give every process its own node number (or a lease)" in r.stdout, r.stdout
    gen.renode(6)  # renode moves the claim
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_one_generator_per_number_in_a_process():
    a = chronoid.Snowflake("pgedge")          # the lowest free number
    b = chronoid.Snowflake("pgedge")          # this process's own: shared
    c = chronoid.Snowflake("pgedge", node=0)
    assert a.node == b.node == c.node == 0
    ids = [g.next() for _ in range(300) for g in (a, b, c)]
    assert ids == sorted(set(ids))
    with pytest.raises(chronoid.GeneratorError, match="one layout"):
        chronoid.Snowflake("twitter", node=0)


def test_scopes_are_separate():
    a = chronoid.Snowflake("pgedge", node=3, scope="app1")
    b = chronoid.Snowflake("pgedge", node=3, claim_scope="app2")  # the older name
    assert a.claim_path.endswith("/app1.3.lock") and b.claim_path.endswith("/app2.3.lock")
    with pytest.raises(chronoid.ChronoidTypeError, match="not both"):
        chronoid.Snowflake("pgedge", node=3, scope="a", claim_scope="b")


@pytest.mark.parametrize("claim", [True, False])
def test_a_generator_per_job_never_repeats(claim):
    # The last generator of the number goes and the next comes within the
    # same millisecond: it starts after the previous one's last tick.
    ids = []
    for _ in range(3000):
        with chronoid.Snowflake("pgedge", node=21, claim=claim, scope=f"job{claim}") as g:
            ids.append(g.next())
    for _ in range(3000):
        g = chronoid.Snowflake("pgedge", node=21, claim=claim, scope=f"job{claim}")
        ids += g.batch(2)
        del g
    assert len(set(ids)) == len(ids)


def test_closed_generator_refuses():
    g = chronoid.Snowflake("pgedge", node=22)
    g.close()
    g.close()  # twice is fine
    with pytest.raises(chronoid.GeneratorError, match="closed"):
        g.next()
    assert g.claim_path is None
    chronoid.Snowflake("pgedge", node=22).next()  # the number is free again


def test_number_handed_between_processes_never_repeats():
    # Each process mints a batch and exits; the next takes the number over.
    code = ("import chronoid\n"
            "ids = chronoid.Snowflake('pgedge', node=23).batch(5000)\n"
            "print(ids[0], ids[-1])\n")
    last = -1
    for _ in range(6):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        first, end = map(int, r.stdout.split())
        assert first > last
        last = end


def test_explicit_node_stays_explicit_after_fork():
    gen = chronoid.Snowflake("pgedge", node=7)
    mine = gen.batch(100)

    def child():
        out = {}
        try:
            gen.next()
        except chronoid.ForkError as e:
            out["next"] = str(e)
        try:
            gen.renode(7)  # the parent's number: still the parent's
        except chronoid.GeneratorError as e:
            out["same"] = str(e)
        gen.renode(8)
        out["ids"] = gen.batch(100)
        out["node"] = gen.node
        return out

    got = in_child(child)
    assert "renode" in got["next"] and "node 7" in got["next"]
    assert f"held by process {os.getpid()}" in got["same"]
    assert got["node"] == 8 and gen.node == 7
    mine += gen.batch(100)
    assert not set(mine) & set(got["ids"])


def test_forked_child_chooses_from_the_same_range():
    gen = chronoid.Snowflake("pgedge", node=range(40, 44))
    assert gen.node == 40
    mine = gen.batch(1000)

    def child():
        node = gen.node  # chosen again before it is shown: never the parent's
        ids = gen.batch(1000) + [gen.next() for _ in range(100)]
        assert gen.node == node
        return node, ids

    kids = [in_child(child) for _ in range(3)]
    # The parent holds 40; a child's claim ends when it exits, so each
    # next child takes 41 again, and starts after its predecessor's mark.
    assert all(node == 41 for node, _ in kids)
    assert gen.node == 40 and os.path.exists(gen.claim_path)
    mine += gen.batch(1000)
    kid_ids = [i for _, ids in kids for i in ids]
    assert len(set(mine + kid_ids)) == len(mine) + len(kid_ids)


def test_range_full_and_bad_ranges():
    held = [chronoid.Snowflake("pgedge", node=range(50, 52), scope="r") for _ in range(1)]
    code = ("import chronoid\n"
            "a = chronoid.Snowflake('pgedge', node=range(50, 52), scope='r')\n"
            "try:\n"
            "    chronoid.Snowflake('pgedge', node=range(50, 52), scope='r2')\n"
            "    print(a.node)\n"
            "except chronoid.GeneratorError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "51", r.stdout + r.stderr
    with pytest.raises(chronoid.ChronoidTypeError, match="needs claim=True"):
        chronoid.Snowflake("pgedge", node=range(1, 3), claim=False)
    with pytest.raises(chronoid.ChronoidValueError, match="step 1"):
        chronoid.Snowflake("pgedge", node=range(1, 9, 2))
    with pytest.raises(chronoid.ChronoidValueError, match="step 1"):
        chronoid.Snowflake("pgedge", node=range(5, 5))
    with pytest.raises(chronoid.ChronoidValueError, match="out of range"):
        chronoid.Snowflake("pgedge", node=range(1000, 1030))
    assert held[0].node == 50


GEN = None


def _mint(_):
    ids = GEN.batch(300)  # the first ID in a worker claims its node
    return os.getpid(), GEN.node, ids


def test_pool_workers_claim_distinct_nodes():
    global GEN
    GEN = chronoid.Snowflake("pgedge", node=range(60, 70))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(3) as pool:
        results = pool.map(_mint, range(12))
    by_pid = {}
    for pid, node, _ in results:
        by_pid.setdefault(pid, set()).add(node)
    nodes = [n for s in by_pid.values() for n in s]
    assert all(len(s) == 1 for s in by_pid.values())  # a worker keeps its node
    assert len(set(nodes)) == len(nodes) and 60 not in nodes  # live workers never share
    assert all(60 < n < 70 for n in nodes)
    ids = [i for _, _, b in results for i in b] + GEN.batch(300)
    assert len(set(ids)) == len(ids)


def _spawned(node, q, done):
    try:
        g = chronoid.Snowflake("pgedge", node=node)
        q.put(("ok", g.next()))
        done.wait(60)  # hold the number until both have tried
    except chronoid.GeneratorError as e:
        q.put(("held", str(e)))


def test_spawned_children_on_one_node_one_wins():
    # multiprocessing's spawn: fresh interpreters, each making the
    # generator anew with the one number it was configured with.
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    done = ctx.Event()
    procs = [ctx.Process(target=_spawned, args=(500, q, done)) for _ in range(2)]
    for p in procs:
        p.start()
    got = sorted(q.get(timeout=60)[0] for _ in procs)
    done.set()
    for p in procs:
        p.join(60)
    assert got == ["held", "ok"]


@pytest.mark.parametrize("kw,exc,words", [
    ({"scope": "../x"}, chronoid.ChronoidValueError, ""),
    ({"scope": "x" * 65}, chronoid.ChronoidValueError, ""),
    ({"scope": "a\x00b"}, chronoid.ChronoidValueError, "NUL"),
    ({"scope": 5}, chronoid.ChronoidTypeError, "str"),
    ({"claim_dir": "relative/claims"}, chronoid.ChronoidValueError, "not an absolute path"),
])
def test_bad_claim_arguments(kw, exc, words):
    with pytest.raises(exc) as e:
        chronoid.Snowflake("pgedge", **kw)
    assert words in str(e.value)


def test_claim_options_need_claim_and_a_node_field(tmp_path):
    with pytest.raises(chronoid.ChronoidTypeError, match="needs claim=True"):
        chronoid.Snowflake("pgedge", node=1, claim=False, claim_dir=str(tmp_path))
    with pytest.raises(chronoid.ChronoidTypeError, match="needs node="):
        chronoid.Snowflake("pgedge", claim=False)
    # Without a node field, two processes of a scope could never mint
    # apart: the claim is on node 0, and a second process is refused.
    a = chronoid.Snowflake("time:42,seq:12,reserved:10;epoch=2025-01-01", scope="nodeless")
    assert a.claim_path.endswith("/nodeless.0.lock") and a.next() < a.next()
    b = chronoid.Snowflake("time:42,seq:12,reserved:10;epoch=2025-01-01", scope="nodeless2",
                           claim=False)
    assert b.claim_path is None and b.next() < b.next()


def test_untrusted_directory_refused(tmp_path):
    d = tmp_path / "open"
    d.mkdir()
    d.chmod(0o777)  # writable by all and not sticky: others could unlink a held lock
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.Snowflake("pgedge", claim_dir=str(d))
    assert e.value.status == -19 and str(d) in str(e.value)


def test_failed_claim_leaves_a_generator_that_cannot_mint():
    held = chronoid.Snowflake("pgedge", node=4)
    gen = chronoid.Snowflake.__new__(chronoid.Snowflake)
    with pytest.raises(chronoid.GeneratorError):
        gen.__init__("twitter", node=4)  # the number is this process's, with another layout
    with pytest.raises(TypeError, match="__init__"):
        gen.next()
    gen.__init__("pgedge", node=5)  # a second try may succeed
    assert gen.node == 5 and held.node == 4 and gen.next() > 0
