#!/usr/bin/env python3
"""Raw-wire checks of a read_committed share group (ShareFetch AcquiredRecords), used by
tests/integration/test_share_read_committed.sh on gregord (Kafka answers a ShareFetch only for a
member that joined with ShareGroupHeartbeat, which this raw client does not do).

  share_rc_wire.py HOST:PORT BUILD_DIR
t1 commits 2 records (offsets 0-1, marker 2), t2 aborts 2 (3-4, marker 5), t3 holds 2 open (6-7):
 - the first fetch acquires [0,2] and [5,5]: the aborted batch is split out, the markers stay in;
 - a fetch waiting (MaxWaitMs 8000) on the open transaction answers within 2 s of its commit
   with [6,8] (the records and the COMMIT marker): the marker's append wakes it."""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import share_fetch_wire as sf  # noqa: E402
import kwire as kw  # noqa: E402
from kwire import check  # noqa: E402

boot, build = sys.argv[1], sys.argv[2]
env = sf.Env(boot, "rcwire", {"share.isolation.level": "read_committed"})
for a in (["t1", "commit:2"], ["t2", "abort:2"]):
    subprocess.run([build + "/client_txn", boot, env.topic] + a, check=True, capture_output=True, timeout=60)
hold = subprocess.Popen([build + "/client_txn", boot, env.topic, "t3", "hold:2"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True)
line = ""
while "holding" not in line:
    line = hold.stdout.readline()
    if not line:
        break
check("t3 holds an open transaction", "holding" in line, line)
c, m = env.conn(), sf.member()
r = sf.fetch1(env, c, m, 0, max_wait=1000)
acq = sf.acquired(r, env)
check("first fetch: [0,2] and [5,5] (aborted 3-4 archived, nothing past the LSO)",
      acq == [(0, 2, 1), (5, 5, 1)], acq)
acks = [(0, 1, [sf.ACCEPT]), (2, 2, [sf.GAP]), (5, 5, [sf.GAP])]
res = {}


def waiting_fetch():
    res["r"] = sf.fetch1(env, c, m, 1, acks=acks, max_wait=8000)
    res["t"] = time.time()


th = threading.Thread(target=waiting_fetch)
th.start()
time.sleep(1.0)
check("the fetch waits while the transaction is open", th.is_alive(), res)
t0 = time.time()
hold.stdin.write("go\n")
hold.stdin.flush()
out = hold.communicate(timeout=60)[0]
th.join(15)
check("t3 commits", "hold:2 ok" in out, out)
got = sf.acquired(res["r"], env) if "r" in res else None
check("the waiting fetch gets [6,8] after the commit", got == [(6, 8, 1)], got)
dt = res.get("t", time.time()) - t0
check("it answered within 2 s of the commit (%.0f ms; MaxWaitMs 8000)" % (dt * 1000), dt < 2.0, dt)
sys.exit(1 if kw.FAILED else 0)
