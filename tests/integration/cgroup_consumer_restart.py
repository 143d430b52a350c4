#!/usr/bin/env python3
"""A consumer-protocol group across a broker restart (kill -9): its epochs, members and
their partitions (current, pending revocation and target) come back from the group store,
and the members carry on at their epochs (tests/interop/test_java_consumer_group.sh).

  cgroup_consumer_restart.py setup BOOTSTRAP STATE.json   two members, one still revoking
  cgroup_consumer_restart.py check BOOTSTRAP STATE.json   prints ok/FAIL lines
Standard library only."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwire import Conn, create_topic  # noqa: E402
import cgc_wire as w  # noqa: E402
import share_coord_wire as scw  # noqa: E402

G, T = "kr-group", "kr-topic"
M1, M2 = "kr-member-1-0000000000000000000", "kr-member-2-0000000000000000000"


def state(c):
    d = w.describe(c, [G])[0]
    return dict(err=d["err"], state=d["state"], epoch=d["epoch"], aepoch=d["aepoch"],
                members={m["member"]: [m["epoch"], m["assigned"], m["target"]] for m in d["members"]})


def setup(c, path):
    create_topic(c, T, 4)
    time.sleep(1.5)  # Kafka's coordinator sees a new topic a moment after CreateTopics answers
    deadline = time.time() + 30
    while True:  # the reference loads __consumer_offsets on first use
        r1 = w.heartbeat(c, G, M1, 0, rebalance=60000, topics=[T], owned=[])
        if r1["err"] not in (14, 15, 16) or time.time() > deadline:
            break
        time.sleep(0.3)
    time.sleep(1.2)
    r2 = w.heartbeat(c, G, M2, 0, rebalance=60000, topics=[T], owned=[])
    r1 = w.heartbeat(c, G, M1, r1["epoch"])  # now revoking two partitions
    # A group that is deleted must stay deleted.
    r = w.heartbeat(c, "kr-deleted", M1, 0, rebalance=60000, topics=[T], owned=[])
    w.heartbeat(c, "kr-deleted", M1, -1)
    print("ok   - setup: kr-deleted joined (%d) and deleted (%s)" % (r["err"], scw.delete_groups(c, ["kr-deleted"])))
    s = state(c)
    s["m1_epoch"], s["m2_epoch"] = r1["epoch"], r2["epoch"]
    s["tid"] = list(r1["assignment"])[0]
    s["m1_kept"] = r1["assignment"][s["tid"]]
    json.dump(s, open(path, "w"))
    print("ok   - setup: %s epoch %d, m1 revoking" % (s["state"], s["epoch"]))


def check(c, path):
    want = json.load(open(path))
    got = state(c)
    bad = 0
    for k in ("err", "state", "epoch", "aepoch", "members"):
        ok = got[k] == want[k]
        bad += not ok
        print("%s - after kill -9 and restart: %s %s" % ("ok  " if ok else "FAIL", k,
                                                        json.dumps(got[k]) if ok else "%r, was %r" % (got[k], want[k])))
    d = w.describe(c, ["kr-deleted"])[0]
    ok = d["err"] == 69
    bad += not ok
    print("%s - the deleted group stays deleted: %s" % ("ok  " if ok else "FAIL", d["msg"]))
    r = w.heartbeat(c, G, M1, want["m1_epoch"], owned=[(bytes.fromhex(want["tid"]), want["m1_kept"])])
    ok = r["err"] == 0 and r["epoch"] == want["epoch"]
    bad += not ok
    print("%s - the revoking member acknowledges at its old epoch and moves to %s" % ("ok  " if ok else "FAIL", r))
    r = w.heartbeat(c, G, M2, want["m2_epoch"])
    d = state(c)
    ok = r["err"] == 0 and d["state"] == "Stable" and all(sum(len(p) for p in m[1].values()) == 2
                                                          for m in d["members"].values())
    bad += not ok
    print("%s - the other member then gets the released partitions: %s" % ("ok  " if ok else "FAIL", d))
    for m in (M1, M2):
        w.heartbeat(c, G, m, -1)
    return bad


if __name__ == "__main__":
    conn = Conn(sys.argv[2])
    if sys.argv[1] == "setup":
        setup(conn, sys.argv[3])
    else:
        sys.exit(1 if check(conn, sys.argv[3]) else 0)
