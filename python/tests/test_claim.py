"""Host-wide node claims (the core's cid_node_claim_*): a claiming
Snowflake generator holds its node against every other process on the
host, and in a forked child claims a free node of its own by itself."""
import multiprocessing
import os
import subprocess
import sys

import pytest

import chronoid
from util import in_child


def test_claims_lowest_free_and_refuses_held(tmp_path):
    a = chronoid.Snowflake("pgedge", claim=True, claim_dir=str(tmp_path))
    b = chronoid.Snowflake("pgedge", claim=True, claim_dir=str(tmp_path))
    assert (a.node, b.node) == (0, 1)
    assert a.claim_path.startswith(str(tmp_path)) and os.path.exists(a.claim_path)
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.Snowflake("pgedge", node=1, claim=True, claim_dir=str(tmp_path))
    assert str(os.getpid()) in str(e.value) and e.value.status == -18
    del a  # releases node 0
    c = chronoid.Snowflake("pgedge", node=0, claim=True, claim_dir=str(tmp_path))
    assert c.node == 0 and b.next() != c.next()


def test_scopes_are_separate(tmp_path):
    a = chronoid.Snowflake("pgedge", node=3, claim=True, claim_dir=str(tmp_path), claim_scope="app1")
    b = chronoid.Snowflake("pgedge", node=3, claim=True, claim_dir=str(tmp_path), claim_scope="app2")
    assert a.node == b.node == 3


def test_another_process_is_refused(tmp_path):
    gen = chronoid.Snowflake("pgedge", node=5, claim=True, claim_dir=str(tmp_path))
    code = ("import chronoid,sys\n"
            "try:\n"
            f"    chronoid.Snowflake('pgedge', node=5, claim=True, claim_dir={str(tmp_path)!r})\n"
            "except chronoid.GeneratorError as e:\n"
            "    print(e); sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 3, r.stderr
    assert str(os.getpid()) in r.stdout and "5" in r.stdout
    gen.renode(6)  # renode moves the claim
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_forked_child_claims_its_own(tmp_path):
    gen = chronoid.Snowflake("pgedge", claim=True, claim_dir=str(tmp_path))
    assert gen.node == 0
    mine = gen.batch(1000)

    def child():
        ids = gen.batch(1000) + [gen.next() for _ in range(100)]
        return gen.node, ids

    kids = [in_child(child) for _ in range(3)]
    # Each child claimed the lowest free number while it ran (the parent
    # holds 0; a child's claim ends when it exits, so the next reuses 1).
    assert all(node == 1 for node, _ in kids)
    assert gen.node == 0 and os.path.exists(gen.claim_path)
    mine += gen.batch(1000)
    kid_ids = [i for _, ids in kids for i in ids]
    # Children one after another under node 1: their IDs still differ
    # because each ran later than the one before, on a later clock.
    assert len(set(mine + kid_ids)) == len(mine) + len(kid_ids)


GEN = None


def _mint(_):
    ids = GEN.batch(300)  # the first ID in a worker claims its node
    return os.getpid(), GEN.node, ids


def test_pool_workers_claim_distinct_nodes(tmp_path):
    global GEN
    GEN = chronoid.Snowflake("pgedge", claim=True, claim_dir=str(tmp_path))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(3) as pool:
        results = pool.map(_mint, range(12))
    by_pid = {}
    for pid, node, _ in results:
        by_pid.setdefault(pid, set()).add(node)
    nodes = [n for s in by_pid.values() for n in s]
    assert all(len(s) == 1 for s in by_pid.values())  # a worker keeps its node
    assert len(set(nodes)) == len(nodes) and 0 not in nodes  # live workers never share
    ids = [i for _, _, b in results for i in b] + GEN.batch(300)
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("kw,exc,words", [
    ({"claim_scope": "../x"}, chronoid.ChronoidValueError, ""),
    ({"claim_scope": "x" * 65}, chronoid.ChronoidValueError, ""),
    ({"claim_scope": "a\x00b"}, chronoid.ChronoidValueError, "NUL"),
    ({"claim_scope": 5}, chronoid.ChronoidTypeError, "str"),
])
def test_bad_claim_arguments(tmp_path, kw, exc, words):
    with pytest.raises(exc) as e:
        chronoid.Snowflake("pgedge", claim=True, claim_dir=str(tmp_path), **kw)
    assert words in str(e.value)


def test_claim_options_need_claim_and_a_node_field(tmp_path):
    with pytest.raises(chronoid.ChronoidTypeError, match="need claim=True"):
        chronoid.Snowflake("pgedge", node=1, claim_dir=str(tmp_path))
    with pytest.raises(chronoid.ChronoidValueError, match="no node field"):
        chronoid.Snowflake("time:42,seq:12,reserved:10", claim=True, claim_dir=str(tmp_path))


def test_untrusted_directory_refused(tmp_path):
    d = tmp_path / "open"
    d.mkdir()
    d.chmod(0o777)  # writable by all and not sticky: others could unlink a held lock
    with pytest.raises(chronoid.GeneratorError) as e:
        chronoid.Snowflake("pgedge", claim=True, claim_dir=str(d))
    assert e.value.status == -19 and str(d) in str(e.value)


def test_failed_claim_leaves_a_generator_that_cannot_mint(tmp_path):
    held = chronoid.Snowflake("pgedge", node=4, claim=True, claim_dir=str(tmp_path))
    gen = chronoid.Snowflake.__new__(chronoid.Snowflake)
    with pytest.raises(chronoid.GeneratorError):
        gen.__init__("pgedge", node=4, claim=True, claim_dir=str(tmp_path), claim_scope="default")
    with pytest.raises(TypeError, match="__init__"):
        gen.next()
    gen.__init__("pgedge", node=5, claim=True, claim_dir=str(tmp_path))  # a second try may succeed
    assert gen.node == 5 and held.node == 4 and gen.next() > 0
