"""The stubs (PEP 561) against the module and against code that uses it:
mypy's stubtest compares every name and signature of chronoid/*.pyi
with the imported module; mypy --strict accepts typical code and rejects
a wrong use, which shows that py.typed makes the stubs the types.

python/tests/run.sh sets CHRONOID_PY_MYPY=1 (mypy is Debian's
python3-mypy, which scripts/setup.sh installs); elsewhere these tests
skip without mypy.
"""
import os
import site
import subprocess
import sys
import textwrap

import pytest

import chronoid

if os.environ.get("CHRONOID_PY_MYPY") != "1":
    pytest.importorskip("mypy", reason="mypy not installed (apt-get install python3-mypy)")

SITE = os.path.dirname(os.path.dirname(os.path.abspath(chronoid.__file__)))


def run(args, cwd):
    env = dict(os.environ, PYTHONPATH=SITE)
    # mypy finds an installed package through the interpreter's own
    # site-packages, and refuses to have one named in MYPYPATH; a --target
    # directory (run.sh's) it finds only there.
    if SITE not in site.getsitepackages():
        env["MYPYPATH"] = SITE
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_stubtest(tmp_path):
    r = run(["mypy.stubtest", "--mypy-config-file", os.devnull, "chronoid"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


GOOD = '''
    import datetime, uuid
    import chronoid

    u: uuid.UUID = chronoid.uuid7()
    us: list[uuid.UUID] = chronoid.uuid7_batch(3)
    s: str = chronoid.ulid_monotonic()
    oid: str = chronoid.objectid()
    ks: bytes = chronoid.ksuid_bytes()
    oids: list[str] = chronoid.objectid_batch(2) + chronoid.ksuid_batch(2)
    v6s: list[uuid.UUID] = chronoid.uuid6_batch(2)
    raw: bytes = chronoid.uuid6_batch_bytes(2) + chronoid.objectid_batch_bytes(2)
    v1: uuid.UUID = chronoid.uuid6_to_uuid1(chronoid.uuid6())
    v6: uuid.UUID = chronoid.uuid1_to_uuid6(str(v1))
    gen = chronoid.Snowflake("pgedge", node=1, on_behind="wait", claim=False)
    i: int = gen.next()
    info = chronoid.inspect(i, layout="pgedge")
    when: datetime.datetime | None = info.datetime
    lo, hi = chronoid.uuid7_range(datetime.datetime.now(datetime.timezone.utc), "2100-01-01")
    ul: chronoid.ULID = chronoid.ULID.from_datetime(datetime.datetime.now(datetime.timezone.utc))
    ul_ms: int = ul.milliseconds + int(ul)
    ul_dt: datetime.datetime = max(ul, chronoid.ULID.parse(str(ul))).datetime
    back: uuid.UUID = chronoid.uuid7_at("2020-01-01") if ul < chronoid.ULID() else ul.to_uuid()
    s2: str = chronoid.ulid_at(0)
    try:
        chronoid.ulid_to_uuid("x")
    except chronoid.ChronoidValueError as e:
        code: int = e.status
'''

BAD = '''
    import chronoid

    text: str = chronoid.uuid7()
    chronoid.Snowflake("pgedge", node=1, on_behind="sometimes")
'''


def test_mypy_strict_accepts_typical_use_and_rejects_wrong(tmp_path):
    (tmp_path / "good.py").write_text(textwrap.dedent(GOOD))
    (tmp_path / "bad.py").write_text(textwrap.dedent(BAD))
    base = ["mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull]
    r = run(base + ["good.py"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(base + ["bad.py"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert 'bad.py:4: error: Incompatible types in assignment (expression has type "UUID"' in r.stdout
    assert 'bad.py:5: error: Argument "on_behind"' in r.stdout
