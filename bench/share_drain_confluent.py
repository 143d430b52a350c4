"""confluent-kafka's share consumer in the share-drain benchmark (bench/clients.sh), the same
workload as bench/gregor_bench_client.c share-drain and the Java BenchShareDrain: one
confluent_kafka.ShareConsumer in share group GROUP, implicit acknowledgement (each poll accepts
the previous batch), every other setting at the client's default; polls until N records were
received, then commit_sync (accepts the last batch) and close.

    python share_drain_confluent.py BOOTSTRAP GROUP TOPIC N [name=value ...]

Prints one JSON line: seconds from subscribe to the last record, first_s (subscribe to the first
record), msgs/s, MB/s. Exit status 0 only if all N records arrived with delivery count 1.
"""
import json
import sys
import time

import confluent_kafka as ck
from confluent_kafka import ShareConsumer


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    boot, group, topic, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    conf = {"bootstrap.servers": boot, "group.id": group, "client.id": "bench-share-drain",
            "share.acknowledgement.mode": "implicit"}
    for kv in sys.argv[5:]:
        k, _, v = kv.partition("=")
        conf[k] = v
    c = ShareConsumer(conf)
    count = bad = nbytes = 0
    t0 = time.monotonic()
    first = None
    last = idle_since = t0
    c.subscribe([topic])
    while count < n:
        msgs = c.poll(0.5)
        t = time.monotonic()
        if not msgs:
            if t - idle_since > 30:
                print("no records for 30 s after %d" % count, file=sys.stderr)
                break
            continue
        idle_since = t
        if first is None:
            first = t
        for m in msgs:
            if m.error():
                print("poll error: %s" % m.error(), file=sys.stderr)
                bad += 1
                continue
            v = m.value()
            if v is None or m.delivery_count() != 1:
                bad += 1
            else:
                nbytes += len(v)
            count += 1
        last = t
    c.commit_sync(60)
    c.close()
    secs = last - t0
    print(json.dumps({
        "client": "confluent-kafka", "mode": "share-drain", "version": ck.version() if isinstance(ck.version(), str) else ck.version()[0],
        "librdkafka": ck.libversion()[0], "messages": n, "done": count, "failed": bad, "bytes": nbytes,
        "seconds": round(secs, 3), "first_s": round(first - t0, 3) if first is not None else -1,
        "msgs_per_s": round(count / secs, 1) if secs > 0 else 0,
        "mb_per_s": round(nbytes / 1e6 / secs, 2) if secs > 0 else 0}), flush=True)
    return 0 if count >= n and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
