"""The prefork recipe of docs/python.md under a real gunicorn (Debian's
python3-gunicorn): workers recycled every few requests (max_requests),
with and without --preload, all minting from one generator made at import
with the host's range; every ID served is unique, every node is in the
range, and an int node in a preloaded app refuses in the workers instead
of minting its parent's IDs."""
import http.client
import os
import socket
import subprocess
import sys
import textwrap
import time

import pytest

APP = textwrap.dedent("""
    import os
    import chronoid

    NODE = os.environ["APP_NODE"]
    ids = chronoid.Snowflake("pgedge", node=range(16, 20) if NODE == "range" else int(NODE))

    def app(environ, start_response):
        try:
            body = f"{os.getpid()} {ids.next()} {ids.node}"
            status = "200 OK"
        except chronoid.ForkError as e:
            body, status = f"ForkError {e}", "500 Internal Server Error"
        start_response(status, [("Content-Type", "text/plain")])
        return [body.encode()]
""")

pytestmark = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import gunicorn"], capture_output=True).returncode != 0,
    reason="no gunicorn (Debian's python3-gunicorn: make setup installs it)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(tmp_path, node, preload, requests):
    (tmp_path / "idapp.py").write_text(APP)
    port = free_port()
    args = [sys.executable, "-m", "gunicorn", "--workers", "3", "--max-requests", "7",
            "--max-requests-jitter", "3", "--bind", f"127.0.0.1:{port}",
            "--chdir", str(tmp_path), "--log-level", "warning", "idapp:app"]
    if preload:
        args.insert(3, "--preload")
    env = dict(os.environ, APP_NODE=node,
               PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    server = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.05)
        out = []
        for _ in range(requests):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/")
            r = conn.getresponse()
            out.append((r.status, r.read().decode()))
            conn.close()
        return out
    finally:
        server.terminate()
        server.wait(30)


@pytest.mark.parametrize("preload", [True, False])
def test_gunicorn_workers_recycled_never_repeat(tmp_path, preload):
    got = serve(tmp_path, "range", preload, 300)
    assert all(status == 200 for status, _ in got), got[:3]
    rows = [body.split() for _, body in got]
    ids = [int(i) for _, i, _ in rows]
    nodes = {int(n) for _, _, n in rows}
    pids = {p for p, _, _ in rows}
    assert len(set(ids)) == len(ids)
    assert nodes <= {16, 17, 18, 19}
    assert len(pids) > 3  # workers were recycled, numbers handed over


def test_gunicorn_preload_with_an_int_node_refuses():
    # An int node is the application's; workers must not mint the master's.
    import tempfile
    import pathlib
    with tempfile.TemporaryDirectory() as d:
        got = serve(pathlib.Path(d), "30", True, 20)
    assert all(status == 500 and "renode" in body for status, body in got), got[:3]
