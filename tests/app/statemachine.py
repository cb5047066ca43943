#!/usr/bin/python3
"""statemachine.py — a randomized, seeded state-machine test of node claims
and Snowflake uniqueness on the application side, as
pg/test/statemachine/statemachine.py is for the server.

A pool of worker processes (worker.js: Node, one or two copies of the
addon; worker.c: the C claim API, or the shared generator the faces use;
worker.py: Python), some as a second OS user,
share one sticky claim directory of the test's own.  Each step is drawn
at random: spawn a worker, claim a node number (0..3 of two scopes, so
collisions are frequent) host-wide or in-process, mint k IDs or a batch,
close, hand a number over (close, then claim and mint elsewhere at once),
fork (C, Python) or start a child process (Node), SIGKILL a worker idle
or in the middle of minting, end a worker, step the clock.

The clock is libfaketime's, frozen at a time the driver writes to its
timestamp file (FAKETIME_NO_CACHE: every reading rereads it) and moves
forward and back between steps: every handover happens within one tick
unless a step moves the clock, which is what a fast machine sees at worst.
A worker that stays silent (waiting for the next tick) gets one ms more.

Checked at every step: every ID a worker wrote (a worker writes each one
before it makes the next, so a SIGKILL loses none it returned) is unique
in its scope, carries its generator's node, lies within the clock's tick
and max_drift_ms (1000) after it (the worker saw the stepped clock), and
is above every earlier ID of its (scope, node): a new holder starts after
the previous one's mark.  Every claim's outcome is the model's: granted
when no live process (nor another copy in the same one) holds the number,
refused as held when one does, refused when the lock file is another
user's.  A granted claim while another live holder exists is two holders.

Usage: statemachine.py --steps N [--seed S] --tmp DIR --node-pkg DIR
       [--cworker PATH] [--python-site DIR] [--kinds node,node2,c,py]
Prints TAP; on failure the seed, the step, the history's tail and the two
minters of a duplicate.
"""

import argparse
import collections
import os
import pwd
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
EPOCH_MS = 1672531200000  # pgedge layout: 41 bits of ms | 10 node | 12 seq
SEQ_BITS, TIME_SHIFT = 12, 22
MAX_DRIFT_MS = 1000
CLOCK_START_MS = 1780272000000  # 2026-06-01T00:00:00Z, far from the real clock
# The claim scopes each user's workers use: "a" is both users' (one's lock
# file refuses the other, for good: its mark is not the other's to move),
# "b" and "c" are one user's each, contested by that user's workers.
SCOPES = (("a", "b"), ("a", "c"))  # the running user's, the second user's
NODES = range(4)
# claim: false numbers, one per worker process for the whole run (what an
# application that skips the claim promises): 100..999 of scopes u0, u1...
LOCAL_FIRST, LOCAL_COUNT = 100, 900
MAX_WORKERS = 6
REPLY_S = 120
# A worker silent this long while the clock is frozen may be waiting for
# the next tick (a new holder after the mark, a used-up sequence): time
# passes, one ms, as it would for a real clock.
IDLE_S = 0.1
# IDs of one ms, all numbers together, before the driver moves the clock on
# rather than have a generator wait out a used-up tick (4,096 a number) on
# a clock that does not move: each such wait is max_wait_ms of real time.
TICK_BUDGET = 1500
MINT_ERRORS = {"CHRONOID_EDRIFT", "CHRONOID_EWAIT_TIMEOUT"}
# Kinds whose opens of one number in one process (one copy) share one
# generator; the others refuse a second open there.
SHARING = {"node", "node2", "cs", "py"}


class Failure(Exception):
    pass


def faketime_lib():
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"):
        p = os.path.join(d, "faketime", "libfaketime.so.1")
        if os.path.exists(p):
            return p
    return None


class Handle:
    def __init__(self, w, h, copy, scope, node, host):
        self.w, self.h, self.copy, self.scope, self.node, self.host = w, h, copy, scope, node, host

    @property
    def key(self):
        return (self.scope, self.node)

    def __str__(self):
        return f"{self.w.label}/h{self.h}(copy {self.copy}, {self.scope}.{self.node}, {'host' if self.host else 'local'})"


class Worker:
    def __init__(self, serial, kind, user, proc):
        self.serial, self.kind, self.user, self.proc = serial, kind, user, proc
        self.pid = proc.pid
        self.handles = {}
        self.buf = b""
        self.eof = False
        self.label = f"w{serial}:{kind}:{user}:pid{self.pid}"
        self.copies = 2 if kind == "node2" else 1
        self.local_scope = f"u{serial // LOCAL_COUNT}"
        self.local_node = LOCAL_FIRST + serial % LOCAL_COUNT
        os.set_blocking(proc.stdout.fileno(), False)

    def free_h(self):
        """The lowest handle number not open: workers keep a fixed table
        (worker.c: 64), and a long run opens far more than that in all."""
        h = 0
        while h in self.handles:
            h += 1
        return h

    def send(self, line):
        self.machine.clock_floor = self.machine.clock_ms
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def read_lines(self, until_reply=True, timeout=REPLY_S, on_idle=None):
        """Lines up to and including the reply ("r ..."), or to EOF;
        on_idle() after every IDLE_S without output."""
        out = []
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.decode()
                out.append(line)
                if until_reply and line.startswith("r "):
                    return out
            if self.eof:
                if until_reply:
                    raise Failure(f"{self.label} ended without answering (status {self.proc.wait()}); "
                                  f"output: {out[-5:]}")
                return out  # a line cut short by the kill was never written
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"{self.label} did not answer in {timeout} s; output so far: {out[-5:]}")
            r, _, _ = select.select([fd], [], [], min(left, IDLE_S) if on_idle else left)
            if not r and on_idle:
                on_idle()
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    self.eof = True
                self.buf += chunk

    def call(self, line):
        self.send(line)
        lines = self.read_lines(on_idle=self.machine.time_passes)
        return lines[:-1], lines[-1].split(" ", 3)


class Machine:
    def __init__(self, a, seed):
        self.a = a
        self.rnd = random.Random(seed)
        self.seed = seed
        self.kinds = a.kinds.split(",")
        self.tmp = a.tmp
        self.claim_dir = os.path.join(self.tmp, "claims")
        self.clock_file = os.path.join(self.tmp, "faketime")
        self.clock_ms = CLOCK_START_MS
        self.clock_floor = CLOCK_START_MS  # the clock when the current command was sent
        self.ids_in_ms = collections.Counter()  # IDs minted in each ms
        self.workers = {}
        self.serial = 0
        self.log = []
        self.step_no = 0
        self.ledger = {}     # scope -> {id: (label, pid, step)}
        self.key_max = {}    # (scope, node) -> (id, label, step)
        self.counts = {k: 0 for k in ("ids", "at_clock", "ahead", "claims_ok", "held", "eclaim",
                                      "handovers", "same_tick_handovers", "copy_refusals", "kills",
                                      "kills_minting", "forks", "children", "clock_back", "clock_fwd",
                                      "mint_errors", "spawns", "local", "reclaims", "forked_refusals", "waits",
                                      "live_sum", "waited")}
        self.lib = faketime_lib()
        self.me = pwd.getpwuid(os.geteuid()).pw_name
        self.users = [self.me]
        if os.geteuid() == 0 and shutil.which("setpriv"):
            try:
                pwd.getpwnam("nobody")
                self.users.append("nobody")
            except KeyError:
                pass
        self.setup()

    # --- setup -------------------------------------------------------------

    def setup(self):
        os.chmod(self.tmp, 0o755)
        os.mkdir(self.claim_dir)
        os.chmod(self.claim_dir, 0o1777)  # shared, like /run/lock/chronoid
        self.set_clock(self.clock_ms)
        os.chmod(self.clock_file, 0o644)
        # the scripts where the second user surely reads them
        self.bin = os.path.join(self.tmp, "workers")
        os.mkdir(self.bin)
        for f in ("worker.js", "worker.py"):
            if os.path.exists(os.path.join(HERE, f)):
                shutil.copy(os.path.join(HERE, f), self.bin)
        self.pkgs = []
        if any(k.startswith("node") for k in self.kinds):
            # two copies, as npm nests them: a/node_modules/chronoid, b/...
            src = os.path.abspath(self.a.node_pkg)
            for name in ("a", "b"):
                dst = os.path.join(self.tmp, "copies", name, "node_modules", "chronoid")
                os.makedirs(os.path.join(dst, "build"))
                shutil.copytree(os.path.join(src, "lib"), os.path.join(dst, "lib"))
                shutil.copy(os.path.join(src, "package.json"), dst)
                shutil.copy(os.path.join(src, "build", "chronoid.node"), os.path.join(dst, "build"))
                self.pkgs.append(dst)
        for root, dirs, files in os.walk(self.tmp):
            for d in dirs:
                p = os.path.join(root, d)
                if p != self.claim_dir:
                    os.chmod(p, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)

    def set_clock(self, ms):
        t = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
        tmp = self.clock_file + ".new"
        with open(tmp, "w") as f:
            # half a ms more: libfaketime reads the fraction as a double,
            # and .462 would be 461.999999 ms
            f.write(t.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}5\n")
        os.chmod(tmp, 0o644)
        os.rename(tmp, self.clock_file)  # a reader sees the old or the new, whole
        self.clock_ms = ms
        self.clock_high = max(ms, getattr(self, "clock_high", ms))

    def worker_env(self):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": "UTC", "LC_ALL": "C",
               "CHRONOID_CLAIM_DIR": self.claim_dir, "FAKETIME_TIMESTAMP_FILE": self.clock_file,
               "FAKETIME_NO_CACHE": "1", "DONT_FAKE_MONOTONIC": "1",
               # stat() real: a worker killed inside libfaketime's stat()
               # would leave its semaphore taken (scenario_lib.bash)
               "NO_FAKE_STAT": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if self.a.python_site:
            env["PYTHONPATH"] = self.a.python_site
        return env

    # --- bookkeeping ---------------------------------------------------------

    def note(self, text):
        self.log.append(f"step {self.step_no} [clock {self.clock_ms - CLOCK_START_MS:+d} ms]: {text}")
        if len(self.log) > 40:
            del self.log[0]

    def scopes(self, w):
        return SCOPES[0] if w.user == self.me else SCOPES[1]

    def live_holders(self, key):
        """(worker, copy) pairs with an open host-wide handle of key."""
        return {(h.w, h.copy) for w in self.workers.values() for h in w.handles.values()
                if h.host and h.key == key}

    def local_holders(self, w, key):
        return [h for h in w.handles.values() if not h.host and h.key == key]

    def expect_open(self, w, copy, scope, node, host):
        """The model's outcome of a claim: ok, held or eclaim."""
        key = (scope, node)
        if not host:
            if self.local_holders(w, key):
                return "ok" if w.kind in SHARING else "held"
            return "ok"
        path = os.path.join(self.claim_dir, f"{scope}.{node}.lock")
        try:
            owner = os.lstat(path).st_uid
        except FileNotFoundError:
            owner = None
        if owner is not None and owner != pwd.getpwnam(w.user).pw_uid:
            return "eclaim"
        holders = self.live_holders(key)
        if (w, copy) in holders and w.kind in SHARING:
            return "ok"  # one generator per (scope, node) in a copy: shared
        return "held" if holders else "ok"

    def record(self, w, h, value, step_kind):
        """One ID a worker wrote: the invariants."""
        idv = int(value)
        ms = (idv >> TIME_SHIFT) + EPOCH_MS
        node = (idv >> SEQ_BITS) & 0x3FF
        self.counts["ids"] += 1
        self.ids_in_ms[ms] += 1
        if node != h.node:
            raise Failure(f"{w.label} minted {idv} with node {node} through {h} ({step_kind})")
        if not self.clock_floor <= ms <= self.clock_ms + MAX_DRIFT_MS:
            raise Failure(f"{w.label} minted {idv} at {ms} ms, clock at {self.clock_ms} ms: the worker "
                          f"does not see the injected clock ({step_kind})")
        self.counts["at_clock" if ms <= self.clock_ms else "ahead"] += 1
        seen = self.ledger.setdefault(h.scope, {})
        prev = seen.get(idv)
        if prev is not None:
            raise Failure(f"duplicate ID {idv} in scope {h.scope} (node {node}, {ms} ms): minted by "
                          f"{prev[0]} at step {prev[1]} ({prev[2]}) and by {w.label} at step "
                          f"{self.step_no} ({step_kind}) through {h}")
        seen[idv] = (w.label, self.step_no, step_kind)
        top = self.key_max.get(h.key)
        if top is not None and idv <= top[0]:
            raise Failure(f"{w.label} minted {idv} through {h} ({step_kind}), not above {top[0]} that "
                          f"{top[1]} minted at step {top[2]}: a holder started inside an earlier "
                          f"holder's ticks")
        self.key_max[h.key] = (idv, w.label, self.step_no)

    def take_ids(self, w, lines, h, step_kind):
        for line in lines:
            parts = line.split(" ")
            if parts[0] == "id" and len(parts) == 3:
                self.record(w, h, parts[2], step_kind)

    # --- workers ------------------------------------------------------------

    def spawn(self, kind=None, user=None):
        kind = kind or self.rnd.choice(self.kinds)
        user = user or self.rnd.choice(self.users + [self.me])  # the running user twice as often
        self.serial += 1
        if kind in ("node", "node2"):
            argv = ["node", os.path.join(self.bin, "worker.js")] + self.pkgs[:2 if kind == "node2" else 1]
        elif kind in ("c", "cs"):
            argv = [self.a.cworker, "claim" if kind == "c" else "shared"]
        elif kind == "py":
            argv = [sys.executable, os.path.join(self.bin, "worker.py")]
        else:
            raise Failure(f"unknown worker kind {kind}")
        # libfaketime is preloaded after setpriv has changed the user: its
        # shared memory (FAKETIME_SHARED, inherited by the worker's
        # children) must be the worker's own
        argv = ["env", f"LD_PRELOAD={self.lib}"] + argv
        if user != self.me:
            argv = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups", "--"] + argv
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.worker_env(),
                                cwd=self.tmp)
        w = Worker(self.serial, kind, user, proc)
        w.machine = self
        self.workers[w.serial] = w
        self.counts["spawns"] += 1
        self.note(f"spawn {w.label}")
        return w

    def reap(self, w):
        w.proc.stdin.close() if not w.proc.stdin.closed else None
        w.proc.wait()
        w.proc.stdout.close()
        del self.workers[w.serial]
        self.shm_cleanup(w.pid)

    @staticmethod
    def shm_cleanup(pid):
        """libfaketime's shared memory of a worker, which a SIGKILL leaves."""
        for name in (f"faketime_shm_{pid}", f"sem.faketime_sem_{pid}"):
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except OSError:
                pass

    def kill(self, w):
        os.kill(w.pid, signal.SIGKILL)
        lines = w.read_lines(until_reply=False)
        self.reap(w)
        return lines

    # --- steps --------------------------------------------------------------

    def handles(self, host=None):
        return [h for w in self.workers.values() for h in w.handles.values()
                if host is None or h.host == host]

    def expect_range(self, w, scope, nodes):
        """The model's outcome of a claim of the lowest free number of
        nodes: (status, node).  Held numbers are skipped; another user's
        lock file is an error at once."""
        for n in nodes:
            want = self.expect_open(w, 0, scope, n, True)
            if want != "held":
                return want, n
        return "held", None

    def open_range(self, w, scope, nodes, why="open range"):
        want, wnode = self.expect_range(w, scope, nodes)
        hnum = w.free_h()
        _, r = w.call(f"openr {hnum} {scope} {nodes[0]} {nodes[-1]}")
        got = r[1]
        node = int(r[2]) if got == "ok" else None
        self.note(f"{why} {w.label} {scope}.{nodes[0]}..{nodes[-1]}: {' '.join(r[1:3])} "
                  f"(model: {want} {wnode})")
        if got == "ok" and (want != "ok" or node != wnode):
            holders = self.live_holders((scope, node))
            raise Failure(f"claim of {scope}.{nodes[0]}..{nodes[-1]} by {w.label} got node {node} "
                          f"(held by {', '.join(x.label for x, _ in holders) or 'nobody'}); "
                          f"the model expected {want} {wnode}")
        if got != want:
            raise Failure(f"claim of {scope}.{nodes[0]}..{nodes[-1]} by {w.label}: {' '.join(r[1:])}; "
                          f"the model expected {want} {wnode}")
        if got == "ok":
            h = Handle(w, hnum, 0, scope, node, True)
            w.handles[hnum] = h
            self.counts["claims_ok"] += 1
            return h
        self.counts[got] += 1
        return None

    def open(self, w, copy, scope, node, host, why="open"):
        want = self.expect_open(w, copy, scope, node, host)
        holders = self.live_holders((scope, node)) if host else set()
        hnum = w.free_h()
        cmd = f"open {hnum} {copy} {scope} {node} {1 if host else 0}" if w.kind in ("node", "node2") else \
            f"open {hnum} {scope} {node} {1 if host else 0}"
        _, r = w.call(cmd)
        got = r[1]
        self.note(f"{why} {w.label} copy {copy} {scope}.{node} {'host' if host else 'local'}: {got} "
                  f"(model: {want}){' ' + r[3][:90] if len(r) > 3 and got != 'ok' else ''}")
        if got == "ok" and want != "ok":
            others = ", ".join(f"{x.label} copy {c}" for x, c in holders if (x, c) != (w, copy))
            if others:
                raise Failure(f"two live holders of {scope}.{node}: {w.label} copy {copy} was granted the "
                              f"claim while {others} holds it")
            raise Failure(f"{w.label} copy {copy} was granted {scope}.{node}, whose lock file belongs to "
                          f"another user (who can remove or replace it under the holder)")
        if got != want:
            raise Failure(f"claim of {scope}.{node} by {w.label} copy {copy}: {' '.join(r[1:])}; the model "
                          f"expected {want}")
        if got == "ok":
            h = Handle(w, hnum, copy, scope, node, host)
            w.handles[hnum] = h
            self.counts["claims_ok" if host else "local"] += 1
            return h
        self.counts[got] += 1
        if got == "held" and any(x is w for x, _ in holders):
            self.counts["copy_refusals"] += 1
        return None

    def mint(self, h, batch=False, k=None):
        k = k or (self.rnd.choice([1, 2, 5, 50, 300]) if batch else self.rnd.choice([1, 1, 2, 3, 10, 40]))
        self.tick_room(k)
        lines, r = h.w.call(f"{'batch' if batch else 'mint'} {h.h} {k}")
        self.take_ids(h.w, lines, h, "batch" if batch else "mint")
        self.note(f"{'batch' if batch else 'mint'} {k} via {h}: {' '.join(r[1:])[:80]} "
                  f"({sum(1 for x in lines if x.startswith('id '))} IDs)")
        if r[1] != "ok":
            if r[1] == "err" and len(r) > 2 and r[2] in MINT_ERRORS:
                self.counts["mint_errors"] += 1
                self.counts["waits"] += r[2] == "CHRONOID_EWAIT_TIMEOUT"
            else:
                raise Failure(f"mint through {h}: {' '.join(r[1:])}")

    def time_passes(self):
        """A worker waits on the frozen clock: move it on by one ms."""
        self.clock_step(1, "time passes while a worker waits")
        self.counts["waited"] += 1

    def tick_room(self, k):
        """Move the clock on to a ms where k more IDs fit the budget."""
        while self.ids_in_ms[self.clock_ms] + k > TICK_BUDGET:
            self.clock_step(self.rnd.randint(1, 3), "this ms's budget of IDs is used")

    def close(self, h):
        _, r = h.w.call(f"close {h.h}")
        if r[1] != "ok":
            raise Failure(f"close {h}: {' '.join(r[1:])}")
        del h.w.handles[h.h]
        self.note(f"close {h}")

    def step_open(self, host=True):
        w = self.rnd.choice(list(self.workers.values()))
        if host and w.kind == "py" and self.rnd.random() < 0.4:
            self.open_range(w, self.rnd.choice(self.scopes(w)), list(NODES))
        elif host:
            self.open(w, self.rnd.randrange(w.copies), self.rnd.choice(self.scopes(w)), self.rnd.choice(NODES),
                      True)
        else:
            self.open(w, 0, w.local_scope, w.local_node, False)

    def step_handover(self):
        """Close a number and claim it again at once, elsewhere or here."""
        hs = self.handles(host=True)
        if not hs:
            return self.step_open()
        h = self.rnd.choice(hs)
        self.close(h)
        same_user = [w for w in self.workers.values() if w.user == h.w.user]
        w = self.rnd.choice(same_user)
        copy = self.rnd.randrange(w.copies)
        clock = self.clock_ms
        nh = self.open(w, copy, h.scope, h.node, True, why="handover to")
        if nh is not None:
            self.counts["handovers"] += 1
            if w is not h.w and clock == self.clock_ms:
                self.counts["same_tick_handovers"] += 1
            self.mint(nh, k=self.rnd.choice([1, 3]))

    def step_fork(self):
        w = self.rnd.choice(list(self.workers.values()))
        if w.kind in ("c", "cs", "py"):
            lines, r = w.call("fork")
            self.note(f"fork {w.label}: {' '.join(r[1:])[:60]}; child: {'; '.join(lines)[:200]}")
            if r[1] != "ok":
                raise Failure(f"fork in {w.label}: {' '.join(r[1:])}")
            self.counts["forks"] += 1
            self.check_fork_child(w, lines)
        else:
            scope, node = self.rnd.choice(self.scopes(w)), self.rnd.choice(NODES)
            # the child is a process of its own: the model's claimant
            child = Worker.__new__(Worker)
            child.kind, child.user, child.label, child.handles = "node", w.user, f"{w.label}/child", {}
            want = self.expect_open(child, 0, scope, node, True)
            lines, r = w.call(f"child {scope} {node} 2")
            status = "ok" if "cc ok" in lines else next((x.split(" ")[1] for x in lines if x.startswith("cr ")),
                                                        "none")
            end = next((x.split(" ") for x in lines if x.startswith("cr ")), ["cr", "none"])
            if status == "ok" and end[1] != "ok" and not (end[1] == "err" and end[2] in MINT_ERRORS):
                raise Failure(f"child of {w.label} could not mint: {' '.join(end)}")
            self.note(f"child of {w.label} claims {scope}.{node}: {status} (model: {want})")
            if r[1] != "ok":
                raise Failure(f"child of {w.label}: {' '.join(r[1:])}")
            self.counts["children"] += 1
            ch = Handle(child, "c", 0, scope, node, True)
            child.label = f"{w.label}/child-pid{r[2] if len(r) > 2 else '?'}"
            self.take_ids(child, lines, ch, "child")
            if status == "ok" and want != "ok":
                raise Failure(f"two live holders of {scope}.{node}: a child of {w.label} was granted it while "
                              f"{', '.join(x.label for x, _ in self.live_holders((scope, node)))} holds it")
            if status != want:
                raise Failure(f"claim of {scope}.{node} by a child of {w.label}: {lines[-1] if lines else ''}; "
                              f"the model expected {want}")

    def check_fork_child(self, w, lines):
        """A forked child holds nothing of its parent's: it may mint
        nothing through the inherited generators, and is refused their
        numbers while the parent lives.  A Python generator whose number
        came from a range claims the lowest free one again (fre)."""
        child = Worker.__new__(Worker)
        child.kind, child.user, child.handles, child.serial = w.kind, w.user, {}, -1
        child.label = f"{w.label}/forked-child"
        self.workers[-1] = child  # a live holder while its lines are read
        try:
            self.check_fork_lines(w, child, lines)
        finally:
            del self.workers[-1]

    def check_fork_lines(self, w, child, lines):
        for line in lines:
            p = line.split(" ")
            if p[0] == "id":
                h = child.handles.get(int(p[1])) or w.handles.get(int(p[1]))
                self.record(child, h, p[2], "forked child")
            elif p[0] == "fre":
                h = w.handles[int(p[1])]
                want, wnode = self.expect_range(child, h.scope, list(NODES))
                got = "ok" if p[2].isdigit() else p[2]
                if got == "ok" and (want != "ok" or int(p[2]) != wnode):
                    raise Failure(f"a forked child of {w.label} claimed {h.scope}.{p[2]} again for {h}; the "
                                  f"model expected {want} {wnode}")
                if got != want and not (got == "err" and p[3] in MINT_ERRORS):
                    raise Failure(f"a forked child of {w.label} re-claiming for {h}: {line}; the model "
                                  f"expected {want} {wnode}")
                if got == "ok":
                    child.handles[int(p[1])] = Handle(child, int(p[1]), 0, h.scope, int(p[2]), True)
                    self.counts["reclaims"] += 1
            elif p[0] == "fmint" and p[2] == "forked":
                self.counts["forked_refusals"] += 1
            elif p[0] == "fmint" and p[2] == "ok":
                # The parent's next ID shows what that costs: the ledger
                # names both minters of the repeat.
                h = w.handles[int(p[1])]
                del self.workers[-1]
                try:
                    self.mint(h, k=1)
                finally:
                    self.workers[-1] = child
                raise Failure(f"a forked child of {w.label} minted through the inherited {h}: "
                              f"{line} (it must report CID_EFORKED / ForkError)")
            elif p[0] == "fclaim" and p[2] != "held":
                raise Failure(f"a forked child of {w.label} claimed {w.handles[int(p[1])]}'s number while "
                              f"the parent holds it: {line}")

    def step_kill(self, minting):
        w = self.rnd.choice(list(self.workers.values()))
        hs = list(w.handles.values())
        if minting and hs:
            h = self.rnd.choice(hs)
            self.tick_room(400)
            w.send(f"mint {h.h} 400")
            time.sleep(self.rnd.choice([0, 0.0005, 0.002, 0.01]))
            lines = self.kill(w)
            self.take_ids(w, lines, h, "mint, killed")
            self.counts["kills_minting"] += 1
            self.note(f"SIGKILL {w.label} while it mints via {h} "
                      f"({sum(1 for x in lines if x.startswith('id '))} IDs written)")
        else:
            self.kill(w)
            self.note(f"SIGKILL {w.label}")
        self.counts["kills"] += 1

    def step_exit(self):
        w = self.rnd.choice(list(self.workers.values()))
        w.send("exit")
        w.read_lines()
        self.reap(w)
        self.note(f"exit {w.label}")

    def clock_step(self, delta, why=None):
        self.set_clock(self.clock_ms + delta)
        self.counts["clock_back" if delta < 0 else "clock_fwd"] += 1
        self.note(f"clock {delta:+d} ms" + (f" ({why})" if why else ""))

    def step_clock(self):
        """Mostly a ms or a few; steps back of ms, of most of a second
        (within max_drift_ms) and of seconds; the clock coming back to where
        it was (an operator's or NTP's correction), or jumping ahead."""
        r = self.rnd.random()
        if r < 0.45:
            d = self.rnd.randint(1, 3)
        elif r < 0.55:
            if self.clock_ms < self.clock_high:
                d = self.clock_high - self.clock_ms + self.rnd.randint(0, 3)
            else:
                d = self.rnd.randint(1000, 5000)
        elif r < 0.75:
            d = -self.rnd.randint(1, 20)
        elif r < 0.93:
            d = -self.rnd.randint(100, 900)
        else:
            d = -self.rnd.randint(1500, 3000)
        self.clock_step(d)

    def step(self):
        live = len(self.workers)
        hs = self.handles()
        self.counts["live_sum"] += live
        choices = [("spawn", 8 if live < 2 else (6 if live < 4 else (2 if live < MAX_WORKERS else 0))),
                   ("open", 20 if live else 0), ("open_local", 4 if live else 0),
                   ("mint", 25 if hs else 0), ("batch", 8 if hs else 0), ("close", 10 if hs else 0),
                   ("handover", 10 if live else 0), ("fork", 4 if live else 0),
                   ("kill", 2 if live else 0), ("kill_minting", 2 if live else 0),
                   ("exit", 1 if live > 1 else 0), ("clock", 12)]
        kind = self.rnd.choices([c for c, _ in choices], [wt for _, wt in choices])[0]
        if kind == "spawn":
            self.spawn()
        elif kind == "open":
            self.step_open()
        elif kind == "open_local":
            self.step_open(host=False)
        elif kind in ("mint", "batch"):
            self.mint(self.rnd.choice(hs), batch=kind == "batch")
        elif kind == "close":
            self.close(self.rnd.choice(hs))
        elif kind == "handover":
            self.step_handover()
        elif kind == "fork":
            self.step_fork()
        elif kind in ("kill", "kill_minting"):
            self.step_kill(kind == "kill_minting")
        elif kind == "exit":
            self.step_exit()
        else:
            self.step_clock()

    def run(self, steps):
        for self.step_no in range(1, steps + 1):
            self.step()

    def stop(self):
        for w in list(self.workers.values()):
            try:
                os.kill(w.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            w.proc.wait()
            self.shm_cleanup(w.pid)
        self.workers.clear()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--tmp", required=True, help="an empty directory of the test's own")
    ap.add_argument("--node-pkg", help="the npm package directory, with build/chronoid.node")
    ap.add_argument("--cworker", help="worker.c built against libchronoid")
    ap.add_argument("--python-site", help="PYTHONPATH for worker.py: where chronoid is installed")
    ap.add_argument("--kinds", default="node,node2,c,cs,py",
                    help="worker kinds: node, node2 (two addon copies), c (worker.c claim), "
                         "cs (worker.c shared), py")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print(f"# seed {seed} ({a.steps} steps, workers {a.kinds})")
    print(f"# replay: tests/app/run.sh --seed {seed} --steps {a.steps}")
    sys.stdout.flush()
    if faketime_lib() is None:
        print("1..0 # SKIP libfaketime not installed (Debian package libfaketime)")
        return 0
    m = Machine(a, seed)
    t0 = time.time()
    rc = 0
    try:
        if len(m.users) == 1:
            print("# not root (or no setpriv / nobody): every worker runs as this user")
        m.run(a.steps)
        c = m.counts
        print(f"ok 1 - {a.steps} random steps: no ID twice in a scope, each (scope, node)'s IDs increasing "
              f"across holders, never two live holders, every claim as the model says")
        print(f"# {c['ids']} IDs; {c['spawns']} workers ({c['live_sum'] / max(a.steps, 1):.1f} live on average), {c['claims_ok']} claims granted, {c['held']} refused "
              f"as held ({c['copy_refusals']} by another copy or generator in the holder's process), "
              f"{c['eclaim']} as another user's, {c['local']} in-process; {c['handovers']} handovers "
              f"({c['same_tick_handovers']} to another process in the same ms), {c['kills']} SIGKILLs "
              f"({c['kills_minting']} while minting), {c['forks']} forks (children refused {c['forked_refusals']} "
              f"inherited generators, claimed {c['reclaims']} numbers again), {c['children']} child processes; "
              f"clock {c['clock_fwd']} steps forward, {c['clock_back']} back; {c['mint_errors']} mints "
              f"refused ({c['waits']} of them after waiting out a used-up tick, the rest beyond the drift); {c['waited']} ms passed while a worker waited; "
              f"{time.time() - t0:.0f} s")
        if c["ids"] == 0:
            print(f"ok 2 - # SKIP no ID was minted in {a.steps} steps")
        elif c["at_clock"] > 0 and c["ids"] == c["at_clock"] + c["ahead"]:
            print(f"ok 2 - every worker minted on the injected clock ({c['at_clock']} IDs in the clock's "
                  f"own ms, {c['ahead']} ahead of it after a step back or a handover)")
        else:
            print("not ok 2 - no ID was minted in the injected clock's ms")
            rc = 1
    except Failure as e:
        print(f"not ok 1 - step {m.step_no}: {e}")
        print(f"# seed {seed}; replay: tests/app/run.sh --seed {seed} --steps {a.steps}")
        print("# the history's last steps:")
        for line in m.log:
            print(f"#   {line}")
        print("not ok 2 - # not reached")
        rc = 1
    finally:
        m.stop()
    print("1..2")
    return rc


if __name__ == "__main__":
    sys.exit(main())
