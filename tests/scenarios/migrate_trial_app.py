"""migrate_trial_app.py: the shop's application for migrate_trial.sh.

A psycopg 3 application as the role app, tenant ACCOUNT (row security
reads app.account), on one long-lived connection with psycopg's default
server-side prepare (after five executions of a statement): the tenant's
keyset page (SELECT * ... ORDER BY id), an item added to one of its orders
(INSERT ... RETURNING *), the order's totals through the GROUP BY view, and
the order's status (UPDATE ... RETURNING *, which fires the shop's touch
and audit triggers).  Counts go to DIR/status.py after each round.

The migration's cue: while DIR/pause exists it has closed its connection
(said with DIR/paused.py) and waits; when the file is gone it connects
again and prepares anew.  While DIR/hold exists it sends nothing and keeps
its connection (said with DIR/held.py), so that the test can compare the
publisher with its subscriber.  DIR/stop ends it.
"""
import json
import os
import sys
import time

import psycopg

d, account, ref = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
st = {"ok": 0, "fail": 0, "codes": {}, "errors": [], "epochs": [0], "prepared": []}


def path(name):
    return os.path.join(d, name)


def save():
    with open(path("status.py.tmp"), "w") as f:
        json.dump(st, f)
    os.replace(path("status.py.tmp"), path("status.py"))


def connect():
    c = psycopg.connect("dbname=shop user=app", autocommit=True, application_name="trial-app")
    c.execute("SELECT set_config('app.account', %s, false)", (str(account),))
    return c


STATEMENTS = (
    "SELECT * FROM orders WHERE account_id = %s ORDER BY id LIMIT 20",
    "INSERT INTO order_items (order_id, sku, qty, price) SELECT id, 'app', 1, 2.50 FROM orders"
    " WHERE ref = %s RETURNING *",
    "SELECT * FROM order_totals WHERE id = (SELECT id FROM orders WHERE ref = %s)",
    "UPDATE orders SET status = 'paid' WHERE ref = %s RETURNING *",
)

conn = connect()
n = 0
while not os.path.exists(path("stop")):
    if os.path.exists(path("hold")):
        open(path("held.py"), "w").close()
        time.sleep(0.02)
        continue
    if os.path.exists(path("pause")):
        conn.close()
        open(path("paused.py"), "w").close()
        while os.path.exists(path("pause")) and not os.path.exists(path("stop")):
            time.sleep(0.01)
        conn = connect()
        st["epochs"].append(0)
        n = 0
    n += 1
    for i, sql in enumerate(STATEMENTS):
        arg = account if i == 0 else ref
        try:
            rows = conn.execute(sql, (arg,)).fetchall()
            if not rows:
                raise RuntimeError("no row: %s" % sql)
            st["ok"] += 1
            st["epochs"][-1] += 1
        except (psycopg.Error, RuntimeError) as e:
            st["fail"] += 1
            code = getattr(e, "sqlstate", None) or "none"
            st["codes"][code] = st["codes"].get(code, 0) + 1
            if len(st["errors"]) < 5:
                st["errors"].append(str(e).splitlines()[0])
    if n == 10:
        # Proof that psycopg prepares on the server, its default.
        st["prepared"].append(conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0])
    save()
    time.sleep(0.05)
conn.close()
save()
