"""Values of a PostgreSQL sequence a block at a time (chronoid.BlockAllocator,
libchronoid_lease's cid_block_* compiled into the module): threads and
processes never get a value twice, bad options and refused sequences
raise the package's exceptions, a forked child is refused the parent's
allocator.  Needs the throwaway server with the extension that run.sh
starts; skipped without one, as the psycopg tests are."""
import pytest

import chronoid
from util import in_child, in_threads, pg_connect


@pytest.fixture(scope="module")
def seqs():
    c = pg_connect()
    with c:
        c.execute("CREATE EXTENSION IF NOT EXISTS chronoid")
        c.execute("DROP SCHEMA IF EXISTS pytest_block CASCADE")
        c.execute("CREATE SCHEMA pytest_block")
        c.execute("CREATE SEQUENCE pytest_block.s")
        c.execute("CREATE SEQUENCE pytest_block.by2 INCREMENT 2")
        yield c
        c.execute("DROP SCHEMA pytest_block CASCADE")


def test_threads_and_processes_never_share_a_value(seqs):
    # small blocks (target 20 ms) so that many are fetched while threads take
    with chronoid.BlockAllocator("pytest_block.s", target_ms=20, min_size=1,
                                 initial_size=8) as a:
        per_thread = in_threads(lambda: [a.next() for _ in range(3000)], n=4)
        st = a.stats
    for vals in per_thread:
        assert vals == sorted(vals) and len(set(vals)) == len(vals)
    mine = [v for vals in per_thread for v in vals]
    # another allocator, and nextval(), on the same sequence meanwhile
    with chronoid.BlockAllocator("pytest_block.s") as b:
        theirs = [b.next() for _ in range(2000)]
    core = [r[0] for r in seqs.execute(
        "SELECT nextval('pytest_block.s') FROM generate_series(1, 500)").fetchall()]
    every = mine + theirs + core
    assert len(set(every)) == len(every) == 12000 + 2000 + 500
    assert st["issued"] == 12000 and st["blocks"] >= 2


def test_refusals_and_bad_options(seqs):
    with pytest.raises(chronoid.GeneratorError, match="INCREMENT 2") as e:
        chronoid.BlockAllocator("pytest_block.by2")
    assert e.value.status == -111  # CID_EBLOCK_DB, as every block failure carries its code
    with pytest.raises(chronoid.GeneratorError, match="nosuch"):
        chronoid.BlockAllocator("pytest_block.nosuch")
    with pytest.raises(ValueError, match="prefetch at 100 %"):
        chronoid.BlockAllocator("pytest_block.s", prefetch_pct=100)
    with pytest.raises(ValueError, match="target 5 ms"):
        chronoid.BlockAllocator("pytest_block.s", target_ms=5)
    with pytest.raises(TypeError):
        chronoid.BlockAllocator(None)  # type: ignore[arg-type]


def test_usage_alone_is_refused_at_open(seqs):
    # Blocks of more than one value need UPDATE, as setval() does: a role
    # with USAGE alone on a superuser's sequence is told what to grant.
    seqs.execute("DROP ROLE IF EXISTS pytest_block_usage")
    seqs.execute("CREATE ROLE pytest_block_usage LOGIN")
    seqs.execute("GRANT USAGE ON SCHEMA pytest_block TO pytest_block_usage")
    seqs.execute("GRANT USAGE ON SEQUENCE pytest_block.s TO pytest_block_usage")
    try:
        with pytest.raises(chronoid.GeneratorError,
                           match="GRANT UPDATE ON SEQUENCE pytest_block.s TO pytest_block_usage"):
            chronoid.BlockAllocator("pytest_block.s", "user=pytest_block_usage")
        seqs.execute("GRANT UPDATE ON SEQUENCE pytest_block.s TO pytest_block_usage")
        with chronoid.BlockAllocator("pytest_block.s", "user=pytest_block_usage") as a:
            assert a.next() > 0
    finally:
        seqs.execute("DROP OWNED BY pytest_block_usage")
        seqs.execute("DROP ROLE pytest_block_usage")


def test_closed_and_forked(seqs):
    a = chronoid.BlockAllocator("pytest_block.s")
    first = a.next()

    def child():
        try:
            a.next()
        except chronoid.ForkError as e:
            return f"{e.status} {e}"
        return "no error"

    assert in_child(child).startswith("-113 ")  # CID_EBLOCK_FORKED
    assert "parent" in in_child(child)
    assert a.next() == first + 1
    a.close()
    a.close()  # a no-op
    with pytest.raises(chronoid.GeneratorError, match="closed"):
        a.next()
