#!/usr/bin/env python3
"""Share acknowledgements on a full disk (tests/integration/test_share_disk_full.sh; issue 8, defect 4).

  share_disk_full.py HOST:PORT PHASE DATA_DIR STATE_FILE
DATA_DIR is gregord's log.dirs, a small tmpfs: the disk is filled with DATA_DIR/filler and
freed by deleting it. Phases:
  norestart  acks answered 56 while the disk is full are rolled back (records stay ACQUIRED by
             the member, same count: acknowledged right after space returns, or released and
             delivered again); a lock
             expiry and a session-end release that cannot be written leave the records locked,
             and they are redelivered (count 2) once space returns.
  before     acquire, fill, ACCEPT/REJECT answered 56, free, acknowledge other records (a
             successful write of the same share-partition), then print READY and wait (the
             shell restarts gregord).
  after      (after the restart) the records whose ACCEPT/REJECT failed are delivered again
             and can be acknowledged; the successful ack stays done.
Prints "ok - ..." / "FAIL - ..."; exit status 1 on any FAIL.
"""
import errno
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import check  # noqa: E402
import share_fetch_wire as sf  # noqa: E402
from share_fetch_wire import ACCEPT, REJECT, RELEASE  # noqa: E402

STORAGE = 56  # KAFKA_STORAGE_ERROR


def fill(data_dir):
    """Fill the file system with DATA_DIR/filler up to the last page (ENOSPC)."""
    fd = os.open(os.path.join(data_dir, "filler"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for chunk in (1 << 20, 1 << 12, 1):
            while True:
                try:
                    if os.write(fd, b"\0" * chunk) <= 0:
                        break
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)


def free(data_dir):
    os.unlink(os.path.join(data_dir, "filler"))


class Part:
    """One member with a share session on one partition of env's topic."""

    def __init__(self, env, part=0, m=None):
        self.env, self.part = env, part
        self.c = env.conn()
        self.m = m or sf.member()
        self.epoch = 0

    def fetch(self, acks=None, wait=0):
        r = sf.share_fetch(self.c, self.env.group, self.m, self.epoch,
                           [(self.env.tid, [(self.part, acks or [])])], max_wait=wait)
        assert r["err"] == 0, r
        self.epoch += 1
        p = r["parts"].get(self.env.tp(self.part))
        return (p["acquired"] if p else []), (p["ack_err"] if p else 0), (p["err"] if p else 0)

    def ack(self, first, last, typ):
        r = sf.share_ack(self.c, self.env.group, self.m, self.epoch,
                         [(self.env.tid, [(self.part, [(first, last, [typ])])])])
        assert r["err"] == 0, r
        self.epoch += 1
        return r["parts"][self.env.tp(self.part)]["err"]


def fill_until_refused(data_dir, probe):
    """Fill the disk, then ACCEPT single records of the probe partition until two writes in a
    row are refused: the share-state log's last page then has no room for a record of that
    size (the filler cannot take the page slack of another file). Returns the probes made."""
    fill(data_dir)
    got, _, _ = probe.fetch(wait=2000)
    offs = sf.offsets(got)
    fails = n = 0
    for o in offs:
        n += 1
        err = probe.ack(o, o, ACCEPT)
        fails = fails + 1 if err == STORAGE else 0
        if fails == 2:
            break
    return n, fails


def setup(boot, name, configs=None):
    env = sf.Env(boot, name, configs, partitions=2)
    env.produce(30, per_batch=10, part=0)
    env.produce(200, per_batch=200, part=1)  # probes
    return env


def p_norestart(boot, data_dir, _state):
    env = setup(boot, "nr")
    a, probe = Part(env), Part(env, part=1)
    got, _, _ = a.fetch(wait=2000)
    check("acquired 0-29 with count 1", sf.offsets(got) == list(range(30)) and set(sf.counts(got).values()) == {1}, got)
    n, fails = fill_until_refused(data_dir, probe)
    check("disk full: share-state writes refused (KAFKA_STORAGE_ERROR) after %d probes" % n, fails == 2)
    check("ACCEPT 0-9 on a full disk answered 56", a.ack(0, 9, ACCEPT) == STORAGE)
    check("REJECT 10-19 on a full disk answered 56", a.ack(10, 19, REJECT) == STORAGE)
    _, ack_err, _ = a.fetch(acks=[(0, 9, [ACCEPT])])
    check("ACCEPT 0-9 piggybacked on ShareFetch answered 56", ack_err == STORAGE, ack_err)
    other = Part(env)
    got, _, _ = other.fetch()
    check("the failed acks were rolled back: 0-29 stay locked by the member (another gets nothing)",
          sf.offsets(got) == [], got)
    free(data_dir)
    check("space back: ACCEPT 0-4 (answered 56 before) succeeds at once", a.ack(0, 4, ACCEPT) == 0)
    check("space back: REJECT 10-14 (answered 56 before) succeeds at once", a.ack(10, 14, REJECT) == 0)
    r = sf.share_ack(a.c, env.group, a.m, a.epoch, [(env.tid, [(0, [(5, 9, [RELEASE]), (15, 29, [RELEASE])])])])
    a.epoch += 1
    check("space back: RELEASE 5-9 and 15-29 succeeds", r["parts"][env.tp(0)]["err"] == 0, r)
    got, _, _ = other.fetch(wait=2000)
    check("5-9 and 15-29 delivered again with count 2 (their failed ACCEPT/REJECT left no trace)",
          sf.offsets(got) == list(range(5, 10)) + list(range(15, 30)) and set(sf.counts(got).values()) == {2}, got)
    r = sf.share_ack(other.c, env.group, other.m, other.epoch,
                     [(env.tid, [(0, [(5, 9, [ACCEPT]), (15, 29, [ACCEPT])])])])
    other.epoch += 1
    check("and acknowledged", r["parts"][env.tp(0)]["err"] == 0, r)

    # Lock expiry and session-end release that cannot be written (lock 2 s).
    env2 = setup(boot, "nr-lock", {"share.record.lock.duration.ms": "2000"})
    b, probe2 = Part(env2), Part(env2, part=1)
    got, _, _ = b.fetch(wait=2000)
    check("lock 2 s: acquired 0-29", sf.offsets(got) == list(range(30)), got)
    n, fails = fill_until_refused(data_dir, probe2)
    check("disk full again (%d probes)" % n, fails == 2)
    b.c.close()  # session ends: the release cannot be written
    time.sleep(3.5)  # and the 2 s lock expiry cannot be written either
    c = Part(env2)
    got, _, _ = c.fetch()
    check("records whose release and expiry could not be written stay locked", sf.offsets(got) == [], got)
    free(data_dir)
    got, _, _ = c.fetch(wait=5000)
    check("space back: the expiry is written and 0-29 are delivered again with count 2",
          sf.offsets(got) == list(range(30)) and set(sf.counts(got).values()) == {2}, got)
    check("and acknowledged", c.ack(0, 29, ACCEPT) == 0)


def p_before(boot, data_dir, state):
    env = setup(boot, "rs")
    a, probe = Part(env), Part(env, part=1)
    got, _, _ = a.fetch(wait=2000)
    check("acquired 0-29", sf.offsets(got) == list(range(30)), got)
    n, fails = fill_until_refused(data_dir, probe)
    check("disk full: share-state writes refused after %d probes" % n, fails == 2)
    check("ACCEPT 0-9 on a full disk answered 56", a.ack(0, 9, ACCEPT) == STORAGE)
    check("REJECT 10-19 on a full disk answered 56", a.ack(10, 19, REJECT) == STORAGE)
    free(data_dir)
    check("space back: ACCEPT 20-29 succeeds (the next successful write of the partition)",
          a.ack(20, 29, ACCEPT) == 0)
    with open(state, "w") as f:
        json.dump(dict(topic=env.topic, group=env.group, tid=env.tid.hex()), f)
    print("READY", flush=True)
    time.sleep(120)  # the session stays open while gregord restarts


def p_after(boot, _data_dir, state):
    with open(state) as f:
        st = json.load(f)

    class E:  # the env of the first phase
        pass
    env = E()
    env.boot, env.topic, env.group, env.tid = boot, st["topic"], st["group"], bytes.fromhex(st["tid"])
    env.conn = lambda: kw.Conn(boot)
    env.tp = lambda part=0: (env.tid, part)
    a = Part(env)
    got, _, _ = a.fetch(wait=3000)
    offs = sf.offsets(got)
    check("after the restart, 0-19 (ACCEPT and REJECT answered 56) are delivered again", offs == list(range(20)), got)
    check("REJECT answered 56 did not archive 10-19", all(o in offs for o in range(10, 20)), got)
    check("the acks can be made now", a.ack(0, 9, ACCEPT) == 0 and a.ack(10, 19, REJECT) == 0)
    got, _, _ = Part(env).fetch(wait=500)
    check("nothing left to deliver", got == [], got)


if __name__ == "__main__":
    boot, phase, data_dir, state = sys.argv[1:5]
    {"norestart": p_norestart, "before": p_before, "after": p_after}[phase](boot, data_dir, state)
    sys.exit(1 if kw.FAILED else 0)
