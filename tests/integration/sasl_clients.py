"""confluent-kafka over SASL_PLAINTEXT (test_sasl.sh).

  roundtrip BOOT MECH USER PW TOPIC N      produce N records and consume them back
  longrun BOOT MECH USER PW TOPIC SECONDS  one producer sending every 100 ms for SECONDS, across
                                           several session lifetimes (KIP-368 re-authentication)
  describe BOOT MECH USER PW NAME...       DescribeUserScramCredentials through the AdminClient
Prints one result line; exit status 1 on failure.
"""
import sys
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient


def conf(boot, mech, user, pw):
    return {"bootstrap.servers": boot, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mech,
            "sasl.username": user, "sasl.password": pw}


def roundtrip(boot, mech, user, pw, topic, n):
    p = Producer(conf(boot, mech, user, pw))
    errors = []
    for i in range(n):
        p.produce(topic, b"%s-%d" % (mech.encode(), i), on_delivery=lambda e, m: e and errors.append(e))
    p.flush(20)
    c = Consumer(dict(conf(boot, mech, user, pw), **{"group.id": "g-" + mech, "enable.auto.commit": False}))
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got, deadline = set(), time.time() + 20
    while time.time() < deadline and len([v for v in got if v.startswith(mech.encode())]) < n:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.add(m.value())
    c.close()
    mine = len([v for v in got if v.startswith(mech.encode())])
    print("produced %d errors %d consumed %d" % (n, len(errors), mine))
    return not errors and mine == n


def longrun(boot, mech, user, pw, topic, seconds):
    stats = {"delivered": 0, "errors": []}

    def cb(e, m):
        if e:
            stats["errors"].append(str(e))
        else:
            stats["delivered"] += 1

    p = Producer(dict(conf(boot, mech, user, pw), **{"linger.ms": 0}))
    sent, end = 0, time.time() + seconds
    while time.time() < end:
        p.produce(topic, b"r%d" % sent, on_delivery=cb)
        sent += 1
        p.poll(0)
        time.sleep(0.1)
    p.flush(20)
    print("sent %d delivered %d errors %d %s" % (sent, stats["delivered"], len(stats["errors"]), stats["errors"][:3]))
    return sent > 0 and stats["delivered"] == sent and not stats["errors"]


def describe(boot, mech, user, pw, names):
    a = AdminClient(conf(boot, mech, user, pw))
    out = []
    for name, fut in a.describe_user_scram_credentials(names).items():
        try:
            d = fut.result(15)
            out.append("%s:%s" % (name, ",".join(sorted("%s/%d" % (i.mechanism.name, i.iterations)
                                                          for i in d.scram_credential_infos))))
        except Exception as e:  # noqa: BLE001 - the error text is the result
            out.append("%s:error:%s" % (name, e.args[0].code() if e.args and hasattr(e.args[0], "code") else e))
    print(" ".join(sorted(out)))
    return True


if __name__ == "__main__":
    cmd, boot, mech, user, pw = sys.argv[1:6]
    if cmd == "roundtrip":
        ok = roundtrip(boot, mech, user, pw, sys.argv[6], int(sys.argv[7]))
    elif cmd == "longrun":
        ok = longrun(boot, mech, user, pw, sys.argv[6], float(sys.argv[7]))
    else:
        ok = describe(boot, mech, user, pw, sys.argv[6:])
    sys.exit(0 if ok else 1)
