#!/usr/bin/python3
"""statemachine.py — a randomized, seeded state-machine test of the
extension's ID guarantees on a real server.

Several sessions and a few sequences; each step is drawn at random: mint
(alone or inside a transaction left open across steps), commit, roll
back, setval forward and backward, ALTER SEQUENCE ... RESTART, TRUNCATE
... RESTART IDENTITY, drop and recreate, convert_sequence_to_snowflake,
clean and immediate restarts, kill -9 of a minting backend, clock jumps
back and forward (also while the server is down, and past 2092) through
libfaketime, release_node / claim_node.  Preloaded, also UUIDv7 and
monotonic ULIDs.

Every ID a committed transaction returned goes into a ledger table in the
same transaction, so the server itself holds the acknowledged IDs: its
primary key catches any repeat, and after every commit the new IDs are
compared with their neighbours in mint order (the step order; within a
statement, the row order): each sequence's snowflakes (by OID) and,
preloaded, all UUIDv7s and all ULIDs must strictly increase.  Any error
outside the expected ones (see EXPECTED) fails the run, naming the seed,
the step and the last steps.

Usage: statemachine.py --steps N [--seed S] --mode plain|preload
Environment: PGHOST, PGPORT, PGDATABASE (set up with the extension by the
wrapper), PGDATA, PGLOG, PGBIN, SM_FAKETIME_LIB, SM_FAKETIME_FILE.
Prints TAP.
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import psycopg2
import psycopg2.errors
import psycopg2.extensions

NODE_OPTS = "-c snowflake.node=1 -c client_min_messages=error -c lock_timeout=5s -c statement_timeout=60s"
EPOCH_2093 = datetime(2093, 3, 1, tzinfo=timezone.utc).timestamp()


class Failure(Exception):
    """An invariant was broken or an unexpected error came back."""


class Lost(Exception):
    """The connection went away (restart, crash): expected after those steps."""


def lost(e, conn):
    """A broken connection, as opposed to an SQL error (psycopg2 files
    some SQLSTATEs, 55000 among them, under OperationalError too)."""
    return (conn is None or conn.closed != 0 or
            (isinstance(e, (psycopg2.OperationalError, psycopg2.InterfaceError)) and e.pgcode is None))


def env(name):
    v = os.environ.get(name)
    if not v:
        sys.exit(f"statemachine.py: {name} is not set")
    return v


class Server:
    """pg_ctl under libfaketime, whose offset file the steps rewrite."""

    def __init__(self):
        self.pgbin = env("PGBIN")
        self.pgdata = env("PGDATA")
        self.pglog = env("PGLOG")
        self.lib = env("SM_FAKETIME_LIB")
        self.rc = env("SM_FAKETIME_FILE")
        self.offset = 0  # seconds the fake clock is ahead (negative: behind)

    def set_offset(self, seconds):
        with open(self.rc, "w") as f:
            f.write(f"{seconds:+d}\n")
        self.offset = seconds

    def far_future(self):
        return time.time() + self.offset > EPOCH_2093 - 86400

    # pg_ctl's wait: a start after "-m immediate" is a crash recovery (see
    # READY_S below).  120 s was once too short in make soak, with eight
    # agents' suites on two cores (step 9463 of a 10,000-step run).
    START_S = 300

    def pg_ctl(self, *args):
        cmd = ["runuser", "-u", "postgres", "--", "env", f"LD_PRELOAD={self.lib}",
               f"FAKETIME_TIMESTAMP_FILE={self.rc}", "FAKETIME_NO_CACHE=1",
               # stat() real: the kills below would otherwise leave
               # libfaketime's semaphore taken (scenario_lib.bash says more)
               "NO_FAKE_STAT=1", "DONT_FAKE_MONOTONIC=1", f"{self.pgbin}/pg_ctl", "-D", self.pgdata,
               "-l", self.pglog, "-w", "-t", str(self.START_S), *args]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise Failure(f"pg_ctl {' '.join(args)} failed: {r.stdout[-500:]}")

    # A crash restart replays the WAL since the last checkpoint: seconds on
    # a quiet machine, more on two cores shared with other test suites.
    READY_S = 180

    def wait_ready(self):
        deadline = time.monotonic() + self.READY_S
        last = ""
        while time.monotonic() < deadline:
            r = subprocess.run([f"{self.pgbin}/pg_isready", "-q"])
            if r.returncode == 0:
                try:
                    c = psycopg2.connect("", options=NODE_OPTS)
                    c.close()
                    return
                except psycopg2.OperationalError as e:
                    last = str(e).strip()
            time.sleep(0.1)
        try:
            with open(self.pglog, errors="replace") as f:
                tail = "".join("# " + line for line in f.readlines()[-15:])
        except OSError as e:
            tail = f"(no server log: {e})"
        raise Failure(f"server not ready after {self.READY_S} s; last connection error: {last or 'none'}; "
                      f"server log ends:\n{tail}{self.stuck_report()}")

    def stuck_report(self):
        """What the server's processes are doing when it never answers:
        their states, kernel wait channels, and the stacks of the oldest
        few.  (A soak once saw every new backend hang after a crash restart,
        deaf to the fast shutdown: libfaketime's semaphore, left taken by a
        backend killed inside stat(); NO_FAKE_STAT above prevents it.)"""
        out = []
        try:
            with open(os.path.join(self.pgdata, "postmaster.pid")) as f:
                pm = f.readline().strip()
            ps = subprocess.run(["ps", "-o", "pid,stat,wchan:30,etimes,args", "--ppid", pm],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
            lines = ps.stdout.splitlines()
            out.append(f"the postmaster ({pm})'s children:")
            out += lines[:60]
            # The oldest backends (the first to hang says on what), and
            # every other process (the one holding it, if it is stuck).
            backends, others = [], []
            for ln in lines[1:]:
                f = ln.split(None, 4)  # pid, stat, wchan, etimes, args
                if len(f) == 5 and f[0].isdigit():
                    (backends if f[4].startswith("postgres: postgres ") else others).append(f)
            backends.sort(key=lambda f: -int(f[3]) if f[3].isdigit() else 0)
            for pid in [f[0] for f in backends[:2]] + [f[0] for f in others[:8]]:
                bt = subprocess.run(["gdb", "-batch", "-p", pid, "-ex", "bt"], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=60)
                out.append(f"stack of {pid}:")
                out += [ln for ln in bt.stdout.splitlines() if ln.startswith("#")][:25]
        except (OSError, subprocess.SubprocessError) as e:
            out.append(f"(no report of the server's processes: {e})")
        return "".join(f"# {ln}\n" for ln in out)


class Session:
    def __init__(self, idx):
        self.idx = idx
        self.conn = None
        self.in_tx = False
        self.pending = []  # (kind, seq OID, first ord, last ord) of the open transaction

    def connect(self):
        self.conn = psycopg2.connect("", options=NODE_OPTS, application_name=f"sm_{self.idx}")
        self.conn.autocommit = True
        self.in_tx = False
        self.pending = []

    def close(self):
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:
            pass
        self.conn = None


class Machine:
    def __init__(self, seed, steps, mode):
        self.rnd = random.Random(seed)
        self.seed = seed
        self.steps = steps
        self.mode = mode
        self.preload = mode == "preload"
        self.server = Server()
        self.sessions = [Session(i) for i in range(self.rnd.randint(3, 5))]
        self.nseq = self.rnd.randint(3, 4)
        self.seq_oid = {}        # name -> current OID
        self.seq_incr = {}       # name -> its INCREMENT
        self.seq_table = {}      # name -> table fed by it (converted serial) or None
        self.far_floor = set()   # sequences set beyond the run-ahead bound
        self.claimed = False     # node 1 claimed by a fake server: minting refused
        self.ord = 0             # mint order counter
        self.log = []            # recent steps
        self.step_no = 0
        self.counts = {"ids": 0, "uuid": 0, "ulid": 0, "restarts": 0, "kills": 0,
                       "jumps": 0, "errors_expected": 0}
        self.admin = None

    # -- plumbing ------------------------------------------------------
    def note(self, text):
        self.log.append(f"step {self.step_no}: {text}")
        del self.log[:-25]

    def admin_conn(self):
        if self.admin is None or self.admin.closed:
            self.admin = psycopg2.connect("", options=NODE_OPTS, application_name="sm_admin")
            self.admin.autocommit = True
        return self.admin

    def admin_exec(self, sql, args=None, fetch=False):
        try:
            cur = self.admin_conn().cursor()
            cur.execute(sql, args)
            return cur.fetchall() if fetch else None
        except psycopg2.Error as e:
            if lost(e, self.admin):
                self.admin = None
                raise Lost(str(e))
            raise Failure(f"unexpected error {e.pgcode} from {sql.strip()[:80]!r}: {str(e).strip()}")

    def any_tx(self):
        """DDL and registry changes would wait for open transactions' locks."""
        return any(s.in_tx for s in self.sessions)

    def reconnect_all(self):
        self.admin = None
        for s in self.sessions:
            s.close()
        self.server.wait_ready()
        for s in self.sessions:
            s.connect()
        self.admin_conn()

    def next_ord(self, n):
        base = self.ord
        self.ord += n + 1
        return base

    # -- expected errors -------------------------------------------------
    def expected(self, e, seq=None):
        """True when error e is one the model allows right now."""
        code = getattr(e, "pgcode", None)
        if code == "22008" and self.server.far_future():
            return True
        if code == "22023" and seq is not None and seq in self.far_floor:
            return True
        if code == "55000" and self.claimed and "already claimed" in str(e):
            return True
        return False

    # -- setup -------------------------------------------------------------
    def setup(self):
        self.server.set_offset(0)
        self.reconnect_all()
        self.admin_exec("""
            CREATE TABLE IF NOT EXISTS ledger (id int8 PRIMARY KEY, seq oid NOT NULL, ord int8 NOT NULL);
            CREATE INDEX IF NOT EXISTS ledger_seq_ord ON ledger (seq, ord);
            CREATE TABLE IF NOT EXISTS ledger_u7 (id uuid PRIMARY KEY, ord int8 NOT NULL UNIQUE);
            CREATE TABLE IF NOT EXISTS ledger_ul (id ulid PRIMARY KEY, ord int8 NOT NULL UNIQUE);
        """)
        for k in range(self.nseq):
            self.create_seq(f"s{k}", with_table=(k % 2 == 1))

    def create_seq(self, name, with_table):
        """A plain sequence, or a serial table converted to snowflakes."""
        if with_table:
            self.admin_exec(f"DROP TABLE IF EXISTS t_{name}; DROP SEQUENCE IF EXISTS {name};"
                            f"CREATE TABLE t_{name} (id serial PRIMARY KEY, v int4);"
                            f"ALTER SEQUENCE t_{name}_id_seq RENAME TO {name};"
                            f"SELECT snowflake.convert_sequence_to_snowflake('{name}');")
            self.seq_table[name] = f"t_{name}"
        else:
            self.admin_exec(f"DROP TABLE IF EXISTS t_{name}; DROP SEQUENCE IF EXISTS {name}; CREATE SEQUENCE {name};")
            self.seq_table[name] = None
        self.seq_oid[name] = self.admin_exec(f"SELECT '{name}'::regclass::oid", fetch=True)[0][0]
        self.seq_incr[name] = 1
        self.far_floor.discard(name)

    # -- invariants --------------------------------------------------------
    def verify_batch(self, conn, seq_oid, lo, hi):
        """Snowflakes of seq with ord in [lo, hi]: increasing, and between
        their neighbours in mint order.  Run after the commit."""
        cur = conn.cursor()
        cur.execute("""
            WITH b AS (SELECT id, ord FROM ledger WHERE seq = %(s)s AND ord BETWEEN %(lo)s AND %(hi)s),
                 inside AS (SELECT coalesce(bool_and(ok), true) AS ok
                              FROM (SELECT id > lag(id) OVER (ORDER BY ord) AS ok FROM b) x),
                 prev AS (SELECT id FROM ledger WHERE seq = %(s)s AND ord < %(lo)s ORDER BY ord DESC LIMIT 1),
                 next AS (SELECT id FROM ledger WHERE seq = %(s)s AND ord > %(hi)s ORDER BY ord LIMIT 1)
            SELECT (SELECT ok FROM inside),
                   coalesce((SELECT id FROM prev) < (SELECT min(id) FROM b), true),
                   coalesce((SELECT id FROM next) > (SELECT max(id) FROM b), true)""",
                    {"s": seq_oid, "lo": lo, "hi": hi})
        ok_in, ok_prev, ok_next = cur.fetchone()
        if not (ok_in and ok_prev and ok_next):
            raise Failure(f"sequence OID {seq_oid}: IDs of mint order {lo}..{hi} not increasing "
                          f"(within {ok_in}, after earlier {ok_prev}, before later {ok_next})")

    def verify_server_wide(self, conn, table, lo, hi):
        cur = conn.cursor()
        cur.execute(f"""
            WITH b AS (SELECT id, ord FROM {table} WHERE ord BETWEEN %(lo)s AND %(hi)s),
                 prev AS (SELECT id FROM {table} WHERE ord < %(lo)s ORDER BY ord DESC LIMIT 1),
                 next AS (SELECT id FROM {table} WHERE ord > %(hi)s ORDER BY ord LIMIT 1)
            SELECT coalesce((SELECT bool_and(ok) FROM (SELECT id > lag(id) OVER (ORDER BY ord) AS ok FROM b) x), true),
                   coalesce((SELECT id FROM prev) < (SELECT id FROM b ORDER BY ord LIMIT 1), true),
                   coalesce((SELECT id FROM next) > (SELECT id FROM b ORDER BY ord DESC LIMIT 1), true)""",
                    {"lo": lo, "hi": hi})
        r = cur.fetchone()
        if not all(r):
            raise Failure(f"{table}: values of mint order {lo}..{hi} not above every earlier one "
                          f"(within {r[0]}, after earlier {r[1]}, before later {r[2]})")

    # -- steps -------------------------------------------------------------
    def run_in(self, s, sql, args=None, seq=None):
        """Execute on session s; returns rows, or None for an expected
        error (the session's transaction is then rolled back)."""
        try:
            cur = s.conn.cursor()
            cur.execute(sql, args)
            return cur.fetchall() if cur.description else []
        except psycopg2.errors.UniqueViolation as e:
            raise Failure(f"duplicate: {e.pgerror or e}")
        except psycopg2.errors.LockNotAvailable as e:
            raise Failure(f"blocked on an uncommitted row with the same key (a repeat?): {e}")
        except psycopg2.Error as e:
            if lost(e, s.conn):
                raise Lost(str(e))
            if self.expected(e, seq):
                self.counts["errors_expected"] += 1
                self.note(f"  expected error {e.pgcode}: {str(e).strip().splitlines()[0]}")
                if s.in_tx:
                    s.conn.rollback()
                    s.conn.autocommit = True
                    s.in_tx = False
                    s.pending = []
                return None
            raise Failure(f"unexpected error {e.pgcode}: {str(e).strip()}")

    def pick_seq(self):
        return self.rnd.choice(sorted(self.seq_oid))

    def step_mint(self):
        s = self.rnd.choice(self.sessions)
        name = self.pick_seq()
        n = self.rnd.choice([1, 1, 5, 50, 500, 2000, 4000])
        if self.rnd.random() < 0.01:
            n = 200000  # far beyond 4096 per millisecond: runs ahead
        if self.seq_incr[name] >= 1024:
            # a few IDs per millisecond: at the run-ahead bound these wait
            n = min(n, 50)
        base = self.next_ord(n)
        oid = self.seq_oid[name]
        table = self.seq_table[name]
        if table is not None and self.rnd.random() < 0.6:
            sql = (f"WITH ins AS (INSERT INTO {table} (v) SELECT g FROM generate_series(1, %(n)s) g RETURNING id, v) "
                   f"INSERT INTO ledger (id, seq, ord) SELECT id, %(oid)s, %(base)s + v FROM ins")
            what = f"insert {n} into {table}"
        else:
            sql = (f"INSERT INTO ledger (id, seq, ord) SELECT snowflake.nextval('{name}'), %(oid)s, %(base)s + g "
                   f"FROM generate_series(1, %(n)s) g")
            what = f"nextval('{name}') x {n}"
        self.note(f"session {s.idx}{' (in tx)' if s.in_tx else ''}: {what}")
        r = self.run_in(s, sql, {"n": n, "oid": oid, "base": base}, seq=name)
        if r is None:
            return
        if self.server.far_future():
            raise Failure("minted with the clock past 2092 (want 22008)")
        # (with node 1 claimed elsewhere a backend refuses at its next
        # registry check, within 10 s: minting meanwhile is allowed)
        self.counts["ids"] += n
        if s.in_tx:
            s.pending.append(("sf", oid, base, base + n))
        else:
            self.verify_batch(s.conn, oid, base, base + n)

    def step_mint_time_ordered(self):
        # Only on a clock not ahead of the true one: their durable mark is
        # server-wide, and one minted in 2093 would hold every later UUIDv7
        # and ULID of this server (other tests' too) in 2093.
        if self.server.offset > 0:
            self.step_mint()
            return
        s = self.rnd.choice(self.sessions)
        kind = self.rnd.choice(["u7", "ul"])
        n = self.rnd.choice([1, 10, 500, 3000])
        base = self.next_ord(n)
        if kind == "u7":
            sql = "INSERT INTO ledger_u7 (id, ord) SELECT chronoid_uuidv7(), %(base)s + g FROM generate_series(1, %(n)s) g"
        else:
            sql = "INSERT INTO ledger_ul (id, ord) SELECT gen_monotonic_ulid(), %(base)s + g FROM generate_series(1, %(n)s) g"
        self.note(f"session {s.idx}: {n} x {'chronoid_uuidv7()' if kind == 'u7' else 'gen_monotonic_ulid()'}")
        if self.run_in(s, sql, {"n": n, "base": base}) is None:
            return
        self.counts["uuid" if kind == "u7" else "ulid"] += n
        table = "ledger_u7" if kind == "u7" else "ledger_ul"
        if s.in_tx:
            s.pending.append((table, None, base, base + n))
        else:
            self.verify_server_wide(s.conn, table, base, base + n)

    def step_tx(self):
        s = self.rnd.choice(self.sessions)
        if not s.in_tx:
            self.note(f"session {s.idx}: BEGIN")
            s.conn.autocommit = False
            s.in_tx = True
            s.pending = []
            return
        commit = self.rnd.random() < 0.7
        self.note(f"session {s.idx}: {'COMMIT' if commit else 'ROLLBACK'}")
        try:
            if commit:
                s.conn.commit()
            else:
                s.conn.rollback()
        except psycopg2.Error as e:
            if lost(e, s.conn):
                raise Lost(str(e))
            raise Failure(f"unexpected error {e.pgcode} at {'COMMIT' if commit else 'ROLLBACK'}: {e}")
        s.conn.autocommit = True
        s.in_tx = False
        if commit:
            for kind, oid, lo, hi in s.pending:
                if kind == "sf":
                    self.verify_batch(s.conn, oid, lo, hi)
                else:
                    self.verify_server_wide(s.conn, kind, lo, hi)
        s.pending = []

    def clock_body(self, seconds_ahead):
        ms = int((time.time() + self.server.offset + seconds_ahead) * 1000) - 1672531200000
        return max(ms, 1) << 12

    def step_setval(self):
        name = self.pick_seq()
        kind = self.rnd.choice(["forward", "back1", "back", "far"] + (["far"] if self.rnd.random() < 0.3 else []))
        if kind == "forward":
            value = self.clock_body(0.3)
        elif kind == "far":
            value = self.clock_body(3600)
        elif kind == "back1":
            value = 1
        else:
            value = self.clock_body(-self.rnd.randint(1, 3600))
        self.note(f"setval('{name}') {kind} to {value}")
        self.admin_exec(f"SELECT setval('{name}', %s)", (value,))
        # Any value but 1 may lie beyond the run-ahead bound now or once the
        # fake clock moves back (it is computed from the clock of the
        # moment, which may be ahead or past 2092): 22023 is then allowed,
        # not required, until the sequence is moved back to 1 or restarted.
        if kind == "back1":
            self.far_floor.discard(name)
        else:
            self.far_floor.add(name)

    def step_restart_seq(self):
        if self.any_tx():
            return
        name = self.pick_seq()
        table = self.seq_table[name]
        if table is not None and self.rnd.random() < 0.5:
            self.note(f"TRUNCATE {table} RESTART IDENTITY")
            self.admin_exec(f"TRUNCATE {table} RESTART IDENTITY")
        else:
            self.note(f"ALTER SEQUENCE {name} RESTART")
            self.admin_exec(f"ALTER SEQUENCE {name} RESTART")
        self.far_floor.discard(name)

    def step_increment(self):
        # ALTER SEQUENCE waits for the open transactions that minted from it
        if self.any_tx():
            return
        name = self.pick_seq()
        k = self.rnd.choice([1, 1, 2, 7, 100, 1000, 4095, 4096, 100000])
        self.note(f"ALTER SEQUENCE {name} INCREMENT BY {k}")
        self.admin_exec(f"ALTER SEQUENCE {name} INCREMENT BY {k}")
        self.seq_incr[name] = k

    def step_recreate(self):
        if self.any_tx():
            return
        name = self.pick_seq()
        with_table = self.rnd.random() < 0.5
        self.note(f"drop and recreate {name} ({'converted serial table' if with_table else 'sequence'})")
        self.create_seq(name, with_table)

    def end_transactions(self):
        for s in self.sessions:
            s.in_tx = False
            s.pending = []

    def step_restart(self):
        mode = self.rnd.choice(["fast", "immediate"])
        new_offset = None
        if self.rnd.random() < 0.4:
            new_offset = self.rnd.choice([0, 0, -600, -2, 3600])
        self.note(f"restart -m {mode}" + (f", clock {new_offset:+d} s while down" if new_offset is not None else ""))
        for s in self.sessions:
            s.close()
        self.admin = None
        self.end_transactions()
        self.server.pg_ctl("stop", "-m", mode)
        if new_offset is not None:
            self.server.set_offset(new_offset)
        self.server.pg_ctl("start", "-o", "")
        self.counts["restarts"] += 1
        self.reconnect_all()

    def step_kill(self):
        if self.server.far_future() or self.claimed:
            return  # the victim would be refused at once: nothing to kill
        name = self.pick_seq()
        if name in self.far_floor:
            return
        self.note(f"kill -9 of a backend minting from {name}")
        victim = subprocess.Popen(
            [f"{self.server.pgbin}/psql", "-X", "-q", "-c",
             f"SELECT count(snowflake.nextval('{name}')) FROM generate_series(1, 100000000)"],
            env=dict(os.environ, PGOPTIONS=NODE_OPTS, PGAPPNAME="sm_victim"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pid = None
        for _ in range(100):
            rows = self.admin_exec("SELECT pid FROM pg_stat_activity WHERE application_name = 'sm_victim' "
                                   "AND state = 'active'", fetch=True)
            if rows:
                pid = rows[0][0]
                break
            time.sleep(0.05)
        if pid is None:
            victim.kill()
            raise Failure("the minting backend to kill did not show up")
        time.sleep(self.rnd.uniform(0.05, 0.5))
        os.kill(pid, signal.SIGKILL)
        victim.wait(timeout=60)
        self.counts["kills"] += 1
        for s in self.sessions:
            s.close()
        self.end_transactions()
        time.sleep(0.3)
        self.reconnect_all()

    def step_clock(self):
        if self.server.far_future():
            offset = 0
        else:
            choices = [0, 0, -600, -2, -30, 3600]
            if self.rnd.random() < 0.15:
                choices = [int(EPOCH_2093 - time.time())]
            offset = self.rnd.choice(choices)
        self.note(f"clock jump to {offset:+d} s")
        self.server.set_offset(offset)
        self.counts["jumps"] += 1

    def step_registry(self):
        if self.any_tx():
            return
        if self.claimed:
            self.note("release_node(1): the fake server's claim goes")
            self.admin_exec("SELECT snowflake.release_node(1)")
            self.claimed = False
        elif self.rnd.random() < 0.5:
            self.note("release_node(1)")
            self.admin_exec("SELECT snowflake.release_node(1)")
        elif self.rnd.random() < 0.5:
            other = self.rnd.randint(2, 1023)
            self.note(f"claim_node({other}) for a fake server")
            self.admin_exec("SELECT snowflake.claim_node(%s, 1234567, 'fake')", (other,))
        else:
            # node 1 released, then claimed by another server first:
            # minting must be refused until it is released again
            self.note("release_node(1), then claim_node(1) for a fake server")
            self.admin_exec("SELECT snowflake.release_node(1)")
            self.admin_exec("SELECT snowflake.claim_node(1, 1234567, 'fake')")
            self.claimed = True

    def step(self):
        r = self.rnd.random()
        table = [
            (0.44, self.step_mint),
            (0.46, self.step_increment),
            (0.60, self.step_tx),
            (0.68, self.step_setval),
            (0.72, self.step_restart_seq),
            (0.74, self.step_recreate),
            (0.77, self.step_restart),
            (0.79, self.step_kill),
            (0.85, self.step_clock),
            (0.88, self.step_registry),
            (1.00, self.step_mint_time_ordered if self.preload else self.step_mint),
        ]
        for limit, fn in table:
            if r < limit:
                fn()
                return

    def run(self):
        self.setup()
        for self.step_no in range(1, self.steps + 1):
            try:
                self.step()
            except Lost as e:
                # only a step that kills or restarts may lose connections;
                # anything else losing one is a failure
                raise Failure(f"connection lost outside a restart or kill: {e}")
        # end: the true clock, every transaction committed, each sequence mints
        self.server.set_offset(0)
        for s in self.sessions:
            if s.in_tx:
                self.step_tx_commit(s)
        if self.claimed:
            self.admin_exec("SELECT snowflake.release_node(1)")
            self.claimed = False
        for name in sorted(self.seq_oid):
            if name in self.far_floor:
                self.admin_exec(f"SELECT setval('{name}', 1)")
                self.far_floor.discard(name)
            self.step_no += 1
            s = self.sessions[0]
            base = self.next_ord(10)
            self.run_in(s, f"INSERT INTO ledger (id, seq, ord) SELECT snowflake.nextval('{name}'), %(oid)s, %(b)s + g "
                        f"FROM generate_series(1, 10) g", {"oid": self.seq_oid[name], "b": base})
            self.verify_batch(s.conn, self.seq_oid[name], base, base + 10)

    def step_tx_commit(self, s):
        s.conn.commit()
        s.conn.autocommit = True
        s.in_tx = False
        for kind, oid, lo, hi in s.pending:
            if kind == "sf":
                self.verify_batch(s.conn, oid, lo, hi)
            else:
                self.verify_server_wide(s.conn, kind, lo, hi)
        s.pending = []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--mode", choices=["plain", "preload"], required=True)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print(f"# seed {seed} ({a.steps} steps, {a.mode})")
    print(f"# replay: CHRONOID_SM_SEED={seed} CHRONOID_SM_STEPS={a.steps}")
    sys.stdout.flush()
    m = Machine(seed, a.steps, a.mode)
    t0 = time.time()
    try:
        m.run()
        total = m.admin_exec("SELECT (SELECT count(*) FROM ledger), (SELECT count(*) FROM ledger_u7), "
                             "(SELECT count(*) FROM ledger_ul)", fetch=True)[0]
        rc = 0
        print(f"ok 1 - {a.steps} random steps ({len(m.sessions)} sessions, {m.nseq} sequences): "
              f"no snowflake repeated across sequences, each sequence increasing, every step as expected")
        print(f"# {total[0]} snowflakes acknowledged ({m.counts['ids']} minted), "
              f"{total[1]} UUIDv7, {total[2]} ULID; {m.counts['restarts']} restarts, {m.counts['kills']} kills, "
              f"{m.counts['jumps']} clock jumps, {m.counts['errors_expected']} expected refusals; "
              f"{time.time() - t0:.0f} s")
        if m.preload and total[1] > 0 and total[2] > 0:
            print("ok 2 - preloaded: every UUIDv7 and every monotonic ULID above all earlier ones, server-wide")
        elif m.preload:
            print("not ok 2 - preloaded: too few steps to mint UUIDv7s and ULIDs")
            rc = 1
        else:
            print("ok 2 - # SKIP UUIDv7/ULID: without preload only per-session order is promised "
                  "(nothing across sessions or restarts)")
    except (Failure, Lost, Exception) as e:
        if not isinstance(e, Failure):
            import traceback
            e = Failure(f"{type(e).__name__}: {e}\n" + traceback.format_exc())
        print(f"not ok 1 - step {m.step_no}: {e}")
        print(f"# seed {seed}; replay: CHRONOID_SM_SEED={seed} CHRONOID_SM_STEPS={a.steps} "
              f"CHRONOID_MODE={a.mode}")
        for line in m.log:
            print(f"#   {line}")
        print("not ok 2 - # not reached")
        rc = 1
    print("1..2")
    sys.exit(rc)


if __name__ == "__main__":
    main()
