#!/usr/bin/env python3
"""Delayed redelivery (gregor.share.redelivery.backoff.ms / .max.ms) on the raw wire.

Used by tests/integration/test_share_delay.sh against gregord with an admin listener.
Standard library only (kwire.py, share_fetch_wire.py, share_coord_wire.py).

  share_delay_wire.py HOST:PORT ADMIN_URL timing
  share_delay_wire.py HOST:PORT ADMIN_URL restart1 STATEFILE
  share_delay_wire.py HOST:PORT ADMIN_URL restart2 STATEFILE GREGOR_CLI

timing    base 1000 ms: a RELEASEd record is not redelivered before its backoff while
          the records behind it are; a long poll gets it after ~1 s with count 2; the
          second release holds it ~2 s (doubled); the admin endpoint and the
          gregor_share_delayed_records gauge show it while it waits; a lock expiry
          delays too; configs are validated.
restart1  base 6000 ms: release one record, write the release time to STATEFILE, print
          READY and wait to be killed (the script kill -9s gregord).
restart2  after the restart: the record is still held back (fetch, admin endpoint,
          `gregor share-groups --describe --state`), then redelivered with count 2 no
          earlier than its due time.
Timing margins are generous (lower bounds ~0.2 s under the backoff, upper bounds
seconds above it); nothing measures speed.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import check  # noqa: E402
import share_coord_wire as scw  # noqa: E402
import share_fetch_wire as sfw  # noqa: E402
from share_fetch_wire import ACCEPT, RELEASE  # noqa: E402

BASE = "gregor.share.redelivery.backoff.ms"
MAX = "gregor.share.redelivery.backoff.max.ms"
ADMIN = None


def http_json(path):
    with urllib.request.urlopen(ADMIN + path, timeout=10) as r:
        return r.status, json.loads(r.read().decode("utf-8"))


def delayed_doc(group):
    st, doc = http_json("/v1/share-groups/%s/delayed" % group)
    assert st == 200, (st, doc)
    return doc


def gauge(group, topic):
    """gregor_share_delayed_records{group,topic,partition="0"} from /metrics (None if absent)."""
    with urllib.request.urlopen(ADMIN + "/metrics", timeout=10) as r:
        text = r.read().decode("utf-8")
    pat = r'^gregor_share_delayed_records\{([^}]*)\} (\S+)$'
    for m in re.finditer(pat, text, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if labels == {"group": group, "topic": topic, "partition": "0"}:
            return float(m.group(2))
    return None


class Member:
    def __init__(self, env):
        self.env, self.c, self.m, self.epoch = env, env.conn(), sfw.member(), 0
        j = scw.join_until_assigned(kw.Conn(env.boot), env.group, self.m, [env.topic], 1)
        check("member joined and holds partition 0", j["err"] == 0 and j["held"] == 1, j)

    def fetch(self, acks=None, **kw_):
        r = sfw.fetch1(self.env, self.c, self.m, self.epoch, acks=acks, **kw_)
        check("ShareFetch epoch %d: no error" % self.epoch, r["err"] == 0, r)
        self.epoch += 1
        return sfw.acquired(r, self.env)

    def ack(self, batches):
        a = sfw.share_ack(self.c, self.env.group, self.m, self.epoch, [(self.env.tid, [(0, batches)])])
        self.epoch += 1
        err = a["parts"].get(self.env.tp(), {}).get("err")
        check("ShareAcknowledge %s: no error" % (batches,), a["err"] == 0 and err == 0, a)


def t_configs(boot):
    c = kw.Conn(boot)
    g = "g-delay-cfg"
    e = sfw.set_group_configs(c, g, {BASE: "-1"})
    check("backoff -1 refused with 40 'Value must be at least 0'",
          e[0] == 40 and "Value must be at least 0" in (e[1] or ""), e)
    e = sfw.set_group_configs(c, g, {MAX: "86400001"})
    check("backoff max above one day refused with 40", e[0] == 40 and "86400000" in (e[1] or ""), e)
    e = sfw.set_group_configs(c, g, {"gregor.share.redelivery.other": "1"})
    check("an unknown gregor.* group config is refused like any unknown name",
          e[0] == 40 and "Unknown group config name" in (e[1] or ""), e)
    m = scw.describe_group_configs(c, g)["map"]
    check("DescribeConfigs GROUP lists the backoff configs with defaults 0 and 60000",
          m.get(BASE, {}).get("value") == "0" and m.get(MAX, {}).get("value") == "60000", m.get(BASE))


def t_timing(boot):
    t_configs(boot)
    env = sfw.Env(boot, "delay", {BASE: 1000, MAX: 60000})
    env.produce(5)
    a, b = Member(env), Member(env)
    check("A acquires [0,4] with count 1", a.fetch() == [(0, 4, 1)], None)
    check("delayed gauge 0 before any release", gauge(env.group, env.topic) == 0, gauge(env.group, env.topic))
    t0 = time.time()
    a.ack([(0, 0, [RELEASE]), (1, 4, [ACCEPT])])
    env.produce(5)
    got = b.fetch(max_wait=0)
    dt = time.time() - t0
    check("within the backoff (%.2fs): the records behind are delivered, not the released one" % dt,
          got == [(5, 9, 1)] and dt < 0.9, (got, dt))
    doc = delayed_doc(env.group)
    sp = doc["share_partitions"][0] if doc["share_partitions"] else {}
    check("admin endpoint: 1 delayed record at offset 0, count 1, due within 1 s",
          doc["redelivery_backoff_ms"] == 1000 and sp.get("delayed_records") == 1 and
          sp["ranges"][0]["first_offset"] == 0 and sp["ranges"][0]["delivery_count"] == 1 and
          0 <= sp["next_due_in_ms"] <= 1000, doc)
    check("gauge gregor_share_delayed_records = 1", gauge(env.group, env.topic) == 1, gauge(env.group, env.topic))
    b.ack([(5, 9, [ACCEPT])])
    got = b.fetch(max_wait=5000)
    dt = time.time() - t0
    check("a long poll gets it once due, count 2, %.2fs after the release (>= 0.8, < 4.5)" % dt,
          got == [(0, 0, 2)] and 0.8 <= dt < 4.5, (got, dt))
    check("gauge back to 0", gauge(env.group, env.topic) == 0, gauge(env.group, env.topic))
    # Second release: count 2 -> 2000 ms. At ~1.2 s (past one base) it must still wait.
    t1 = time.time()
    b.ack([(0, 0, [RELEASE])])
    time.sleep(1.2)
    got = a.fetch(max_wait=0)
    dt = time.time() - t1
    check("second release doubles: nothing at %.2fs (< 1.9)" % dt, got == [] and dt < 1.9, (got, dt))
    got = a.fetch(max_wait=5000)
    dt = time.time() - t1
    check("redelivered with count 3 after %.2fs (>= 1.8, < 5)" % dt, got == [(0, 0, 3)] and 1.8 <= dt < 5.0,
          (got, dt))
    a.ack([(0, 0, [ACCEPT])])
    doc = delayed_doc(env.group)
    check("admin endpoint: nothing delayed at the end", doc["group_total"]["delayed_records"] == 0, doc)
    t_expiry(boot)


def t_expiry(boot):
    env = sfw.Env(boot, "delayexp", {BASE: 1500, "share.record.lock.duration.ms": 1000})
    env.produce(1)
    a = Member(env)
    t0 = time.time()
    check("acquired [0,0]", a.fetch() == [(0, 0, 1)], None)
    got = a.fetch(max_wait=2000)  # the lock expires at ~1 s; the record is then held until ~2.5 s
    dt = time.time() - t0
    check("after the lock expiry the record is held back (nothing at %.2fs)" % dt, got == [], (got, dt))
    got = a.fetch(max_wait=5000)
    dt = time.time() - t0
    check("lock expiry + 1500 ms backoff: redelivered at %.2fs (>= 2.3, < 6)" % dt,
          got == [(0, 0, 2)] and 2.3 <= dt < 6.0, (got, dt))


def t_restart1(boot, statefile):
    env = sfw.Env(boot, "delayrs", {BASE: 6000})
    env.produce(3)
    a = Member(env)
    check("acquired [0,2]", a.fetch() == [(0, 2, 1)], None)
    t0 = time.time()
    a.ack([(0, 0, [RELEASE]), (1, 2, [ACCEPT])])
    with open(statefile, "w") as f:
        json.dump({"group": env.group, "topic": env.topic, "tid": env.tid.hex(), "t0": t0}, f)
    print("READY")
    sys.stdout.flush()
    time.sleep(60)  # killed by the script


def t_restart2(boot, statefile, cli):
    st = json.load(open(statefile))
    env = sfw.Env.__new__(sfw.Env)
    env.boot, env.c, env.group, env.topic, env.tid = boot, kw.Conn(boot), st["group"], st["topic"], bytes.fromhex(
        st["tid"])
    env.pc = None
    t0 = st["t0"]
    since = time.time() - t0
    check("restart done within 4.5 s of the release (%.2fs), so the hold can be seen" % since, since < 4.5, since)
    b = Member(env)
    doc = delayed_doc(env.group)
    check("after the restart the admin endpoint still shows 1 delayed record (offset 0)",
          doc["group_total"]["delayed_records"] == 1 and doc["share_partitions"][0]["ranges"][0]["first_offset"] == 0,
          doc)
    got = b.fetch(max_wait=0)
    since = time.time() - t0
    check("after kill -9 and restart it stays held back (nothing at %.2fs < 5.8)" % since,
          got == [] and since < 5.8, (got, since))
    out = subprocess.run([cli, "share-groups", "--bootstrap-server", boot, "--describe", "--state", "--group",
                          env.group, "--admin-url", ADMIN], capture_output=True, text=True, timeout=30)
    rows = [ln.split() for ln in out.stdout.splitlines()]
    hit = [r for r in rows if len(r) >= 5 and r[0] == env.group and r[1] == env.topic and r[2] == "0"]
    check("gregor share-groups --describe --state shows 1 delayed record on %s-0" % env.topic,
          out.returncode == 0 and len(hit) == 1 and hit[0][3] == "1" and hit[0][5] == "6000ms..60000ms",
          (out.returncode, out.stdout, out.stderr))
    got = b.fetch(max_wait=10000)
    since = time.time() - t0
    check("then redelivered with count 2 at %.2fs after the release (>= 5.8, < 12)" % since,
          got == [(0, 0, 2)] and 5.8 <= since < 12, (got, since))
    b.ack([(0, 0, [ACCEPT])])


def main():
    global ADMIN
    boot, ADMIN, what = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    if what == "timing":
        t_timing(boot)
    elif what == "restart1":
        t_restart1(boot, sys.argv[4])
    else:
        t_restart2(boot, sys.argv[4], sys.argv[5])
    sys.exit(1 if kw.FAILED else 0)


if __name__ == "__main__":
    main()
