"""migrate_prepared_app.py: a psycopg 3 application for migrate_prepared.sh.

One long-lived connection with psycopg's default server-side prepare (after
five executions of a statement) runs SELECT * and INSERT ... RETURNING * on
PREFIX orders and items in a loop, and writes its counts to DIR/status.py
after each round.  With --cue it follows the migration's hooks: while
DIR/pause exists it has closed its connection (and said so with
DIR/paused.py); when the file is gone it connects again.  DIR/stop ends it.
"""
import json
import os
import sys
import time

import psycopg

d, prefix, cue = sys.argv[1], sys.argv[2], "--cue" in sys.argv[3:]
st = {"ok": 0, "fail": 0, "codes": {}, "ok_after_fail": 0, "epochs": [0], "prepared": []}


def save():
    with open(os.path.join(d, "status.py.tmp"), "w") as f:
        json.dump(st, f)
    os.replace(os.path.join(d, "status.py.tmp"), os.path.join(d, "status.py"))


def connect():
    return psycopg.connect(autocommit=True, application_name="app-psycopg")


conn = connect()
n = 0
while not os.path.exists(os.path.join(d, "stop")):
    if cue and os.path.exists(os.path.join(d, "pause")):
        conn.close()
        open(os.path.join(d, "paused.py"), "w").close()
        while os.path.exists(os.path.join(d, "pause")):
            time.sleep(0.01)
        conn = connect()
        st["epochs"].append(0)
        n = 0
    n += 1
    note = "o%d" % (n % 50 + 1)
    for sql in ("SELECT * FROM %sorders WHERE note = %%s" % prefix,
                "INSERT INTO %sitems (order_id, qty) SELECT id, 2 FROM %sorders WHERE note = %%s RETURNING *"
                % (prefix, prefix)):
        try:
            conn.execute(sql, (note,)).fetchall()
            st["ok"] += 1
            st["epochs"][-1] += 1
            if st["fail"]:
                st["ok_after_fail"] += 1
        except psycopg.Error as e:
            st["fail"] += 1
            st["codes"][e.sqlstate] = st["codes"].get(e.sqlstate, 0) + 1
    if n == 10:
        # Proof that the statements are prepared on the server (psycopg's default).
        st["prepared"].append(conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0])
    save()
    time.sleep(0.005)
save()
