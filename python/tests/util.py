"""Helpers the tests share: running code in a forked child or in threads."""
import os
import pickle
import threading


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
