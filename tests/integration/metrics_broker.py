#!/usr/bin/env python3
"""Exact checks of the broker-wide metrics of GET /metrics (docs/metrics.md, "Broker").

Used by tests/integration/test_metrics_broker.sh, which starts gregord with
admin.listener, metrics.partition.series.max=3 and max.connections=8.

  metrics_broker.py HOST:PORT http://ADMIN_HOST:ADMIN_PORT

Requests go over raw sockets (kwire.py), so their number, versions and contents are
known exactly; every scrape is parsed whole by prometheus_client's text parser (the
pinned reference parser of the format). Each check compares a value, or the change of a
value between two scrapes, with the number it must be.
"""
import os
import socket
import struct
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kwire as kw  # noqa: E402
from kwire import check, s16  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

ADMIN = None
CAP = 3           # metrics.partition.series.max of the broker under test
MAX_CONNS = 8     # max.connections of the broker under test


# ------------------------------------------------------------------ scraping
def scrape_text():
    with urllib.request.urlopen(ADMIN + "/metrics", timeout=10) as r:
        if r.status != 200:
            raise RuntimeError("GET /metrics: HTTP %d" % r.status)
        return r.read().decode("utf-8")


class Scrape:
    """One /metrics answer: families by name (types) and samples by (name, labels)."""

    def __init__(self, text):
        self.text = text
        self.types, self.samples = {}, {}
        for fam in text_string_to_metric_families(text):  # raises on any format error
            self.types[fam.name] = fam.type
            for s in fam.samples:
                self.samples[(s.name, tuple(sorted(s.labels.items())))] = s.value

    def get(self, name, **labels):
        return self.samples.get((name, tuple(sorted((k, str(v)) for k, v in labels.items()))))

    def v(self, name, **labels):
        """The value, 0 when the series is absent (counters not incremented yet)."""
        x = self.get(name, **labels)
        return 0 if x is None else x

    def series(self, name):
        """{labels tuple: value} of every sample named name."""
        return {k[1]: v for k, v in self.samples.items() if k[0] == name}

    def total(self, name):
        return sum(self.series(name).values())


def scrape():
    return Scrape(scrape_text())


# ------------------------------------------------------------------ requests (classic versions)
def produce(c, topic, parts, acks=1):
    """Produce v8: parts is [(partition, records bytes)]; returns [(partition, error code)]."""
    body = s16(None) + struct.pack(">hi", acks, 10000) + struct.pack(">i", 1) + s16(topic)
    body += struct.pack(">i", len(parts))
    for p, recs in parts:
        body += struct.pack(">ii", p, len(recs)) + recs
    r = c.call(0, 8, body, flexible=False)
    out = []
    for _ in range(r.i32()):
        r.string()
        for _ in range(r.i32()):
            idx, err, _base, _lat, _lso = r.take("ihqqq")
            for _ in range(r.i32()):
                r.i32()
                r.string()
            r.string()
            out.append((idx, err))
    return out


def fetch(c, topic, partition, offset=0):
    """Fetch v11 of one partition, no wait; returns (error code, records bytes)."""
    body = struct.pack(">iiiibii", -1, 0, 1, 50 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", partition, -1, offset, -1, 10 << 20)
    body += struct.pack(">i", 0) + s16("")
    r = c.call(1, 11, body, flexible=False)
    r.take("ihi")
    out = None
    for _ in range(r.i32()):
        r.string()
        for _ in range(r.i32()):
            _idx, err, _hwm, _lso, _start = r.take("ihqqq")
            for _ in range(max(r.i32(), 0)):
                r.take("qq")
            r.i32()
            out = (err, r.bytes_() or b"")
    return out


def records(n, size, tag):
    return [(b"%s-%04d-" % (tag, i)).ljust(size, b"x") for i in range(n)]


def produced(scrape_a, scrape_b, name, **labels):
    return scrape_b.v(name, **labels) - scrape_a.v(name, **labels)


# ------------------------------------------------------------------ checks
def t_format(s):
    want = {"gregor_requests_total": "counter", "gregor_request_errors_total": "counter",
            "gregor_request_duration_seconds": "histogram", "gregor_topic_bytes_in_total": "counter",
            "gregor_topic_bytes_out_total": "counter", "gregor_topic_records_in_total": "counter",
            "gregor_topic_records_out_total": "counter", "gregor_partition_log_end_offset": "gauge",
            "gregor_partition_log_start_offset": "gauge", "gregor_partition_log_size_bytes": "gauge",
            "gregor_partitions": "gauge", "gregor_partitions_offline": "gauge", "gregor_topics": "gauge",
            "gregor_connections_open": "gauge", "gregor_connections_accepted_total": "counter",
            "gregor_connections_closed_total": "counter", "gregor_connections_refused_total": "counter",
            "gregor_log_fsync_duration_seconds": "histogram", "gregor_log_fsyncs_total": "counter",
            "gregor_metrics_series_dropped": "gauge", "gregor_producer_ids": "gauge",
            "gregor_topic_producer_ids_evicted_total": "counter",
            "gregor_topic_producer_ids_refused_total": "counter"}
    # The parser names a counter family without its _total suffix.
    got = {}
    for name, typ in want.items():
        fam = name[:-len("_total")] if typ == "counter" else name
        got[name] = s.types.get(fam)
    check("every broker family is present with its type (prometheus_client parses the whole text)",
          got == want, {k: v for k, v in got.items() if v != want[k]})


def t_produce_fetch(c, T):
    """Produce 5 requests (one with acks=all, fsynced once) and fetch both partitions."""
    s0 = scrape()
    plan = [(0, records(4, 50, b"a"), 1), (0, records(4, 70, b"b"), 1), (1, records(3, 90, b"c"), 1),
            (0, records(4, 30, b"d"), -1), (1, records(3, 10, b"e"), 1)]
    sizes = {0: 0, 1: 0}
    counts = {0: 0, 1: 0}
    for p, vals, acks in plan:
        b = kw.batch(vals)
        res = produce(c, T, [(p, b)], acks)
        check("produce %d records to %s-%d (acks=%d)" % (len(vals), T, p, acks), res == [(p, 0)], res)
        sizes[p] += len(b)
        counts[p] += len(vals)
    n = counts[0] + counts[1]
    s1 = scrape()
    check("gregor_requests_total{api=Produce,version=8} grew by exactly the 5 produce requests",
          produced(s0, s1, "gregor_requests_total", api="Produce", version=8) == 5)
    check("gregor_topic_records_in_total{topic=T} == %d records produced" % n,
          s1.v("gregor_topic_records_in_total", topic=T) == n, s1.get("gregor_topic_records_in_total", topic=T))
    check("gregor_topic_bytes_in_total{topic=T} == the batch bytes sent (%d)" % (sizes[0] + sizes[1]),
          s1.v("gregor_topic_bytes_in_total", topic=T) == sizes[0] + sizes[1],
          s1.get("gregor_topic_bytes_in_total", topic=T))
    for p in (0, 1):
        check("gregor_partition_log_end_offset{%s,%d} == %d" % (T, p, counts[p]),
              s1.get("gregor_partition_log_end_offset", topic=T, partition=p) == counts[p],
              s1.get("gregor_partition_log_end_offset", topic=T, partition=p))
        check("gregor_partition_log_start_offset{%s,%d} == 0" % (T, p),
              s1.get("gregor_partition_log_start_offset", topic=T, partition=p) == 0)
        check("gregor_partition_log_size_bytes{%s,%d} == the bytes stored (%d)" % (T, p, sizes[p]),
              s1.get("gregor_partition_log_size_bytes", topic=T, partition=p) == sizes[p],
              s1.get("gregor_partition_log_size_bytes", topic=T, partition=p))
    check("bytes in == the sum of the partitions' log sizes",
          s1.v("gregor_topic_bytes_in_total", topic=T) ==
          sum(s1.v("gregor_partition_log_size_bytes", topic=T, partition=p) for p in (0, 1)))
    check("the one acks=all produce made exactly one partition-log fsync",
          produced(s0, s1, "gregor_log_fsyncs_total") == 1, produced(s0, s1, "gregor_log_fsyncs_total"))
    check("fsync histogram count == gregor_log_fsyncs_total",
          s1.v("gregor_log_fsync_duration_seconds_count") == s1.v("gregor_log_fsyncs_total"))
    check("nothing sent out before the fetch", s1.v("gregor_topic_bytes_out_total", topic=T) == 0 and
          s1.v("gregor_topic_records_out_total", topic=T) == 0)

    got = {}
    for p in (0, 1):
        err, recs = fetch(c, T, p)
        got[p] = recs
        check("fetch %s-%d from offset 0: all %d bytes" % (T, p, sizes[p]), err == 0 and len(recs) == sizes[p],
              (err, len(recs)))
    s2 = scrape()
    check("gregor_requests_total{api=Fetch,version=11} grew by exactly 2",
          produced(s1, s2, "gregor_requests_total", api="Fetch", version=11) == 2)
    check("gregor_topic_bytes_out_total{topic=T} == the bytes fetched",
          s2.v("gregor_topic_bytes_out_total", topic=T) == len(got[0]) + len(got[1]),
          s2.get("gregor_topic_bytes_out_total", topic=T))
    check("gregor_topic_records_out_total{topic=T} == %d" % n, s2.v("gregor_topic_records_out_total", topic=T) == n,
          s2.get("gregor_topic_records_out_total", topic=T))
    check("no request errors from the good requests",
          s2.total("gregor_request_errors_total") == s0.total("gregor_request_errors_total"))
    prod = sum(v for k, v in s2.series("gregor_requests_total").items() if ("api", "Produce") in k)
    check("every Produce request answered: duration histogram count == requests",
          s2.v("gregor_request_duration_seconds_count", api="Produce") == prod,
          (s2.get("gregor_request_duration_seconds_count", api="Produce"), prod))
    return s2


def t_errors(c, T):
    """Unknown topic on Fetch (one error); two unknown partitions in one Produce (two errors)."""
    s0 = scrape()
    err, _ = fetch(c, "no-such-topic-m", 0)
    check("fetch of an unknown topic: UNKNOWN_TOPIC_OR_PARTITION", err == 3, err)
    res = produce(c, T, [(7, kw.batch([b"x"])), (8, kw.batch([b"y"]))])
    check("produce to two unknown partitions: two UNKNOWN_TOPIC_OR_PARTITION", res == [(7, 3), (8, 3)], res)
    s1 = scrape()
    check("gregor_request_errors_total{Fetch,11,UNKNOWN_TOPIC_OR_PARTITION} +1",
          produced(s0, s1, "gregor_request_errors_total", api="Fetch", version=11,
                   error="UNKNOWN_TOPIC_OR_PARTITION") == 1)
    check("gregor_request_errors_total{Produce,8,UNKNOWN_TOPIC_OR_PARTITION} +2 (one per partition)",
          produced(s0, s1, "gregor_request_errors_total", api="Produce", version=8,
                   error="UNKNOWN_TOPIC_OR_PARTITION") == 2)
    check("no other error counted", s1.total("gregor_request_errors_total") - s0.total("gregor_request_errors_total")
          == 3)
    check("failed produces count as requests and append nothing",
          produced(s0, s1, "gregor_requests_total", api="Produce", version=8) == 1 and
          produced(s0, s1, "gregor_topic_records_in_total", topic=T) == 0)


def wait_for(cond, timeout=10.0):
    """Scrape until cond(scrape) holds (the broker accepts and closes asynchronously);
    returns the last scrape."""
    end = time.time() + timeout
    while True:
        s = scrape()
        if cond(s) or time.time() > end:
            return s
        time.sleep(0.05)


def t_connections(boot):
    """max.connections=8 and one connection (the driver's) open: of 9 more, 7 are admitted
    and 2 refused; closing the 9 closes the 7."""
    host, port = boot.rsplit(":", 1)
    s0 = scrape()
    base_open = s0.v("gregor_connections_open")
    check("the driver's connection is the only one open", base_open == 1, base_open)
    acc0, clo0 = s0.v("gregor_connections_accepted_total"), s0.v("gregor_connections_closed_total")
    ref0 = s0.v("gregor_connections_refused_total", reason="max.connections")
    extra = MAX_CONNS - int(base_open) + 2
    socks = [socket.create_connection((host, int(port)), timeout=10) for _ in range(extra)]
    admitted = MAX_CONNS - int(base_open)

    def settled(s):
        return (s.v("gregor_connections_accepted_total") - acc0 + s.v("gregor_connections_refused_total",
                                                                      reason="max.connections") - ref0) >= extra
    s1 = wait_for(settled)
    time.sleep(0.2)
    s1 = scrape()
    check("%d connections admitted" % admitted, s1.v("gregor_connections_accepted_total") - acc0 == admitted,
          s1.v("gregor_connections_accepted_total") - acc0)
    check("2 refused with reason max.connections",
          s1.v("gregor_connections_refused_total", reason="max.connections") - ref0 == 2)
    check("refusals are not counted as closed", s1.v("gregor_connections_closed_total") == clo0)
    check("gregor_connections_open == %d" % MAX_CONNS, s1.v("gregor_connections_open") == MAX_CONNS,
          s1.v("gregor_connections_open"))
    check("no refusal by max.connections.per.ip",
          s1.v("gregor_connections_refused_total", reason="max.connections.per.ip") ==
          s0.v("gregor_connections_refused_total", reason="max.connections.per.ip"))
    for so in socks:
        so.close()
    s2 = wait_for(lambda s: s.v("gregor_connections_closed_total") - clo0 >= admitted)
    time.sleep(0.2)
    s2 = scrape()
    check("closing them: closed +%d" % admitted, s2.v("gregor_connections_closed_total") - clo0 == admitted,
          s2.v("gregor_connections_closed_total") - clo0)
    check("open back to %d" % base_open, s2.v("gregor_connections_open") == base_open)
    check("accepted unchanged by the closes", s2.v("gregor_connections_accepted_total") - acc0 == admitted)


def partition_series(s):
    return sorted((dict(k)["topic"], int(dict(k)["partition"])) for k in s.series("gregor_partition_log_end_offset"))


def topic_series(s):
    return sorted(dict(k)["topic"] for k in s.series("gregor_topic_records_in_total"))


def dropped(s, kind):
    return s.get("gregor_metrics_series_dropped", kind=kind)


def t_cap(c, T, U):
    """metrics.partition.series.max=3: T (2 partitions) and U (3): 3 partition series, 2 dropped."""
    s = scrape()
    check("5 partitions, 2 topics", s.v("gregor_partitions") == 5 and s.v("gregor_topics") == 2,
          (s.v("gregor_partitions"), s.v("gregor_topics")))
    check("3 partition series, the first by name: T's two and U's first",
          partition_series(s) == [(T, 0), (T, 1), (U, 0)],
          partition_series(s))
    for fam in ("gregor_partition_log_start_offset", "gregor_partition_log_size_bytes"):
        check("%s has the same 3 series" % fam, len(s.series(fam)) == 3, len(s.series(fam)))
    check("gregor_metrics_series_dropped{kind=partition} == 2", dropped(s, "partition") == 2, dropped(s, "partition"))
    check("gregor_metrics_series_dropped{kind=topic} == 0", dropped(s, "topic") == 0, dropped(s, "topic"))
    check("both topics have topic series", topic_series(s) == sorted([T, U]), topic_series(s))
    V, W = T + "-v", T + "-w"
    for name in (V, W):
        err, _ = kw.create_topic(c, name, 1)
        check("create %s" % name, err == 0, err)
    s = scrape()
    check("4 topics: 3 topic series (the first by name: T, V, W), 1 dropped",
          topic_series(s) == sorted([T, V, W]) and dropped(s, "topic") == 1, (topic_series(s), dropped(s, "topic")))
    for fam in ("gregor_topic_bytes_in_total", "gregor_topic_bytes_out_total", "gregor_topic_records_out_total"):
        check("%s has 3 series" % fam, len(s.series(fam)) == 3, len(s.series(fam)))
    check("7 partitions: 3 series (T-0, T-1, V-0), 4 dropped",
          partition_series(s) == [(T, 0), (T, 1), (V, 0)] and dropped(s, "partition") == 4,
          (partition_series(s), dropped(s, "partition")))
    err = kw.delete_topic(c, T)
    check("delete %s" % T, err == 0, err)
    s = scrape()
    gone = [k for k in s.samples if dict(k[1]).get("topic") == T]
    check("the deleted topic's series are gone", gone == [], gone[:3])
    check("3 topics left: 3 series, 0 dropped", topic_series(s) == sorted([U, V, W]) and dropped(s, "topic") == 0,
          (topic_series(s), dropped(s, "topic")))
    check("5 partitions left: 3 series (V-0, W-0, U-0), 2 dropped",
          partition_series(s) == sorted([(V, 0), (W, 0), (U, 0)]) and dropped(s, "partition") == 2
          and s.v("gregor_partitions") == 5, (partition_series(s), dropped(s, "partition")))


def t_share(boot, c, T):
    """ShareFetch sends what it acquires: records out += acquired, bytes out += the batches.
    V and W (from t_cap) are deleted first so that the share topic gets a topic series."""
    import share_fetch_wire as sfw
    for name in (T + "-v", T + "-w"):
        check("delete %s" % name, kw.delete_topic(c, name) == 0)
    env = sfw.Env(boot, "metrics")
    env.produce(6, per_batch=3)
    s0 = scrape()
    sc, m = env.conn(), sfw.member()
    r = sfw.fetch1(env, sc, m, 0)
    acq = sfw.acquired(r, env)
    recs = r["parts"][env.tp()]["records"] or b""
    check("ShareFetch acquires [0,5]", r["err"] == 0 and acq == [(0, 5, 1)], r)
    r2 = sfw.share_fetch(sc, env.group, m, 1, [(env.tid, [(7, [])])])
    check("ShareFetch of an unknown partition -> 3", r2["parts"].get(env.tp(7), {}).get("err") == 3, r2)
    s1 = scrape()
    check("gregor_requests_total{api=ShareFetch,version=1} +2",
          produced(s0, s1, "gregor_requests_total", api="ShareFetch", version=1) == 2)
    check("gregor_topic_records_out_total{share topic} +6 (the records acquired)",
          produced(s0, s1, "gregor_topic_records_out_total", topic=env.topic) == 6,
          produced(s0, s1, "gregor_topic_records_out_total", topic=env.topic))
    check("gregor_topic_bytes_out_total{share topic} += the %d bytes of Records sent" % len(recs),
          len(recs) > 0 and produced(s0, s1, "gregor_topic_bytes_out_total", topic=env.topic) == len(recs),
          produced(s0, s1, "gregor_topic_bytes_out_total", topic=env.topic))
    check("gregor_request_errors_total{ShareFetch,1,UNKNOWN_TOPIC_OR_PARTITION} +1",
          produced(s0, s1, "gregor_request_errors_total", api="ShareFetch", version=1,
                   error="UNKNOWN_TOPIC_OR_PARTITION") == 1)
    sc.close()
    env.c.close()
    env.pc.s.close()


def main():
    global ADMIN
    boot, ADMIN = sys.argv[1], sys.argv[2].rstrip("/")
    t_format(scrape())
    c = kw.Conn(boot, client_id="metrics-test")
    T, U = "metrics-t", "metrics-u"
    err, _ = kw.create_topic(c, T, 2)
    check("create %s with 2 partitions" % T, err == 0, err)
    err, _ = kw.create_topic(c, U, 3)
    check("create %s with 3 partitions" % U, err == 0, err)
    t_produce_fetch(c, T)
    t_errors(c, T)
    t_connections(boot)
    t_cap(c, T, U)
    t_share(boot, c, T)
    t_format(scrape())
    c.close()
    return 1 if kw.FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
