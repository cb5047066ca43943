"""worker.py — the Python face of the application state machine
(tests/app/statemachine.py): a process that makes chronoid.Snowflake
generators, driven by commands on stdin, one per line, with the protocol
of worker.c.

  open H SCOPE NODE CLAIM      Snowflake(node=NODE, scope=SCOPE, claim=...)
  openr H SCOPE FIRST LAST     node=range(FIRST, LAST + 1): "r ok NODE"
  mint H K | batch H N | close H | exit      as in worker.c
  fork                         os.fork(); the child tries every generator:
                               an int node raises ForkError ("fmint H
                               forked"), a range one claims again
                               ("fre H NODE", then its IDs), and a claim
                               of a parent's number is refused ("fclaim H")

Each ID is one os.write of "id H VALUE" before the next is made; no
buffered stdout, so a fork copies no pending output.
"""
import os
import sys

import chronoid


def say(line):
    os.write(1, (line + "\n").encode())


# The status words and codes of worker.c, from the exception's status.
CODES = {-18: ("held", "CHRONOID_ENODE_HELD"), -19: ("eclaim", "CHRONOID_ECLAIM"),
         -20: ("forked", "CHRONOID_EFORKED"), -9: ("err", "CHRONOID_EDRIFT"),
         -10: ("err", "CHRONOID_EWAIT_TIMEOUT"), -7: ("err", "CHRONOID_ETIME_RANGE")}


def word(e):
    if isinstance(e, chronoid.ForkError):
        return "forked"
    return CODES.get(getattr(e, "status", 0), ("err", ""))[0]


def failed(e):
    """r STATUS CODE 0 MESSAGE."""
    code = CODES.get(getattr(e, "status", 0), ("err", f"{type(e).__name__}"))[1]
    text = str(e).replace("\n", " ")
    return f"r {word(e)} {code or type(e).__name__} 0 {text}"


handles = {}
ranges = {}


def mint(h, k, batch):
    sf = handles.get(h)
    if sf is None:
        return say(f"r bad handle {h}")
    try:
        if batch:
            ids = sf.batch(k)
            os.write(1, "".join(f"id {h} {i}\n" for i in ids).encode())
        else:
            for _ in range(k):
                say(f"id {h} {sf.next()}")
        say("r ok")
    except chronoid.ChronoidError as e:
        say(failed(e))


def child():
    for h, sf in list(handles.items()):
        if h in ranges:
            try:
                v = sf.next()
            except chronoid.ChronoidError as e:
                say(f"fre {h} {failed(e)[2:]}")
                continue
            say(f"fre {h} {sf.node}")
            say(f"id {h} {v}")
            continue
        try:
            say(f"id {h} {sf.next()}")
            say(f"fmint {h} ok")
        except chronoid.ChronoidError as e:
            say(f"fmint {h} {word(e)}")
        if h in hosts:
            try:
                chronoid.Snowflake(node=sf.node, scope=sf_scope[h]).close()
                say(f"fclaim {h} ok")
            except chronoid.ChronoidError as e:
                say(f"fclaim {h} {word(e)}")


sf_scope = {}
hosts = set()


def main():
    for line in sys.stdin:
        cmd, *a = line.split()
        try:
            if cmd == "open":
                h, scope, node, claim = a[0], a[1], int(a[2]), a[3] == "1"
                handles[h] = chronoid.Snowflake(node=node, scope=scope, claim=claim)
                sf_scope[h] = scope
                if claim:
                    hosts.add(h)
                say("r ok")
            elif cmd == "openr":
                h, scope, first, last = a[0], a[1], int(a[2]), int(a[3])
                handles[h] = chronoid.Snowflake(node=range(first, last + 1), scope=scope)
                sf_scope[h] = scope
                ranges[h] = True
                hosts.add(h)
                say(f"r ok {handles[h].node}")
            elif cmd in ("mint", "batch"):
                mint(a[0], int(a[1]), cmd == "batch")
            elif cmd == "close":
                handles.pop(a[0]).close()
                ranges.pop(a[0], None)
                hosts.discard(a[0])
                say("r ok")
            elif cmd == "fork":
                pid = os.fork()
                if pid == 0:
                    try:
                        child()
                    finally:
                        os._exit(0)
                _, status = os.waitpid(pid, 0)
                say(f"r ok {pid}" if status == 0 else f"r err child {pid} status {status}")
            elif cmd == "exit":
                for sf in handles.values():
                    sf.close()
                say("r ok")
                return
            else:
                say(f"r bad command {cmd}")
        except chronoid.ChronoidError as e:
            say(failed(e))


main()
