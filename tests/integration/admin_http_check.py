"""Checks of gregord's admin HTTP endpoint for test_admin_http.sh (raw sockets + confluent-kafka).

usage: admin_http_check.py MODE ...
  create BOOT TOPIC N           create TOPIC with N partitions and produce one record (acks=1) to
                                each (start-up has N logs to open, shutdown N written logs to close)
  starting APORT                before gregord starts: wait for the admin port, then GET /health
                                on fresh connections until 200; every answer before must be 503
                                "starting"; /metrics answers 200 meanwhile.
  serving BOOT APORT            status codes, bodies, content types, counters, the Prometheus
                                parser, and hostile clients while a Kafka client produces and
                                fetches (every round trip must stay under MAX_RTT_S).
  offline BOOT APORT TRIGGER    with gregord under the fsync_fault.c shim: an acks=all record while
                                TRIGGER exists fails, its partition goes offline, and /health
                                answers 503 naming the log; TRIGGER is removed afterwards.
  shutdown APORT PID            a request whose last byte arrives after SIGTERM is answered
                                503 "shutting down" while the data is closed.
Prints "ok - ..." / "FAIL - ..." lines; exit status 1 when a check failed.
"""
import os
import random
import signal
import socket
import sys
import threading
import time

from kwire import check
import kwire

PROM_CT = "text/plain; version=0.0.4; charset=utf-8"
MAX_RTT_S = 5.0  # a Kafka produce->fetch round trip; a loop stalled by an HTTP client would take >= 10 s


class Conn:
    """A client connection that reads responses one by one (pipelined bytes stay buffered)."""

    def __init__(self, port, timeout=5.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def send(self, raw):
        self.s.sendall(raw)

    def _fill(self):
        d = self.s.recv(65536)
        if not d:
            raise ConnectionResetError("EOF")
        self.buf += d

    def response(self, timeout=5.0, head_only=False):
        """(status, headers{lower: value}, body) or None on EOF/reset/timeout. head_only: a HEAD answer."""
        self.s.settimeout(timeout)
        try:
            while b"\r\n\r\n" not in self.buf:
                self._fill()
            head, _, self.buf = self.buf.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ")[1])
            hdrs = {}
            for ln in lines[1:]:
                k, _, v = ln.partition(":")
                hdrs[k.strip().lower()] = v.strip()
            n = 0 if head_only else int(hdrs.get("content-length", "0"))
            while len(self.buf) < n:
                self._fill()
            body, self.buf = self.buf[:n], self.buf[n:]
            return status, hdrs, body
        except (ConnectionResetError, socket.timeout, BrokenPipeError):
            return None

    def close(self):
        self.s.close()


def read_response(s, timeout=5.0):
    """One response on a plain socket s (used where nothing is pipelined)."""
    c = Conn.__new__(Conn)
    c.s, c.buf = s, b""
    return c.response(timeout)


def request(port, raw, timeout=5.0, head_only=False):
    c = Conn(port, timeout)
    try:
        c.send(raw)
        return c.response(timeout, head_only)
    finally:
        c.close()


def get(port, path, method="GET", extra=""):
    raw = ("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % (method, path, extra)).encode()
    return request(port, raw, head_only=method == "HEAD")


def closed_by_peer(s, timeout):
    """True when the peer closes s (EOF or reset) within timeout seconds, discarding what arrives."""
    s.settimeout(timeout)
    end = time.time() + timeout
    try:
        while time.time() < end:
            d = s.recv(65536)
            if not d:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


# ------------------------------------------------------------------ Kafka traffic
class Traffic(threading.Thread):
    """Produce one record, fetch it back, repeat; records the slowest round trip."""

    def __init__(self, boot, topic):
        super().__init__(daemon=True)
        from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": boot})  # must outlive the futures
        fs = admin.create_topics([NewTopic(topic, 1, 1)])
        for f in fs.values():
            f.result(30)
        self.p = Producer({"bootstrap.servers": boot, "linger.ms": 0, "acks": 1})
        self.c = Consumer({"bootstrap.servers": boot, "group.id": "admin-http-traffic", "enable.auto.commit": False,
                           "fetch.wait.max.ms": 10})
        self.c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        self.topic = topic
        self.stop = threading.Event()
        self.rounds = 0
        self.worst = 0.0
        self.errors = []

    def run(self):
        i = 0
        while not self.stop.is_set():
            t0 = time.time()
            key = b"%d" % i
            self.p.produce(self.topic, key=key, value=b"v" * 100)
            if self.p.flush(10) != 0:
                self.errors.append("produce %d not delivered in 10 s" % i)
                return
            got = False
            while not got and time.time() - t0 < 15:
                m = self.c.poll(0.5)
                if m is not None and not m.error() and m.key() == key:
                    got = True
            if not got:
                self.errors.append("record %d not fetched within 15 s" % i)
                return
            self.worst = max(self.worst, time.time() - t0)
            self.rounds += 1
            i += 1

    def mark(self):
        r, w = self.rounds, self.worst
        self.worst = 0.0
        return r, w

    def finish(self):
        self.stop.set()
        self.join(30)
        self.c.close()


def check_traffic(tr, what, since_rounds):
    rounds, worst = tr.mark()
    check("Kafka produce+fetch unaffected during %s: %d round trips, slowest %.3f s (< %.1f s), no error"
          % (what, rounds - since_rounds, worst, MAX_RTT_S),
          rounds > since_rounds and worst < MAX_RTT_S and not tr.errors, str(tr.errors))
    return rounds


# ------------------------------------------------------------------ modes
def mode_create(boot, topic, n):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": boot})  # must outlive the futures
    fs = admin.create_topics([NewTopic(topic, int(n), 1)], operation_timeout=120)
    for f in fs.values():
        f.result(180)
    # One record in each: written logs make the clean shutdown do real work (index, checkpoint).
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": boot, "linger.ms": 5, "acks": 1})
    errs = []
    for i in range(int(n)):
        p.produce(topic, b"x" * 100, partition=i, on_delivery=lambda e, m: e and errs.append(e))
        p.poll(0)
    left = p.flush(120)
    check("created %s with %s partitions, one record produced to each" % (topic, n), left == 0 and not errs,
          "%d undelivered, errors %s" % (left, errs[:3]))


def mode_starting(aport):
    aport = int(aport)
    seen = []  # (status, body) before the first 200
    metrics_during = None
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            r = get(aport, "/health")
        except OSError:
            time.sleep(0.002)
            continue
        if r is None:
            time.sleep(0.002)
            continue
        if r[0] == 200:
            final = r
            break
        seen.append((r[0], r[2]))
        if metrics_during is None:
            metrics_during = get(aport, "/metrics")
    else:
        final = None
    check("/health answered 503 'starting' while the logs were opened (%d answers)" % len(seen),
          len(seen) >= 1 and all(s == (503, b"starting\n") for s in seen), str(seen[:5]))
    check("then 200 'ok' once serving", final is not None and final[2] == b"ok\n", str(final))
    check("/metrics answers 200 with the process metrics during start-up",
          metrics_during is not None and metrics_during[0] == 200 and b"process_open_fds " in metrics_during[2]
          and b"gregor_build_info{" in metrics_during[2], str(metrics_during)[:200])


def exposition_checks(aport):
    from prometheus_client.parser import text_string_to_metric_families
    r = get(aport, "/metrics")
    check("GET /metrics: 200", r is not None and r[0] == 200, str(r)[:200])
    check("GET /metrics: Content-Type %s" % PROM_CT, r[1].get("content-type") == PROM_CT, str(r[1]))
    text = r[2].decode("utf-8")
    try:
        fams = {f.name: f for f in text_string_to_metric_families(text)}
        parsed = True
    except Exception as e:  # noqa: BLE001 - any parser error fails the check
        fams, parsed = {}, False
        print("# parser: %r" % e)
    check("the whole exposition parses with prometheus_client (%d families)" % len(fams), parsed)
    # prometheus_client strips _total from counter family names.
    need = ["process_cpu_seconds", "process_resident_memory_bytes", "process_virtual_memory_bytes",
            "process_open_fds", "process_max_fds", "process_start_time_seconds", "gregor_build_info",
            "gregor_admin_http_requests"]
    missing = [n for n in need if n not in fams or (not fams[n].samples and n != "gregor_admin_http_requests")]
    check("process_* and gregor_build_info with samples, gregor_admin_http_requests_total present", not missing,
          str(missing))
    if not missing:
        rss = fams["process_resident_memory_bytes"].samples[0].value
        fds = fams["process_open_fds"].samples[0].value
        start = fams["process_start_time_seconds"].samples[0].value
        check("process values plausible (rss %.0f, fds %.0f, start %.0f)" % (rss, fds, start),
              rss > 1e6 and 5 <= fds <= fams["process_max_fds"].samples[0].value and abs(start - time.time()) < 3600)
        check("gregor_build_info{version} 1", fams["gregor_build_info"].samples[0].value == 1 and
              fams["gregor_build_info"].samples[0].labels.get("version", "") != "")
    return fams


def status_checks(aport):
    r = get(aport, "/health")
    check("GET /health while serving: 200 ok", r is not None and r[0] == 200 and r[2] == b"ok\n", str(r))
    r = get(aport, "/health", "HEAD")
    check("HEAD /health: 200, Content-Length 3, no body", r is not None and r[0] == 200 and
          r[1].get("content-length") == "3" and r[2] == b"", str(r))
    r = get(aport, "/nope")
    check("GET /nope: 404", r is not None and r[0] == 404 and r[2] == b"not found\n", str(r))
    r = get(aport, "/metrics", "POST")
    check("POST /metrics: 405 with Allow: GET, HEAD", r is not None and r[0] == 405 and
          r[1].get("allow") == "GET, HEAD", str(r))
    r = get(aport, "/health", "DELETE")
    check("DELETE /health: 405", r is not None and r[0] == 405, str(r))
    r = request(aport, b"GET /health HTTP/1.1\r\n\r\n")
    check("HTTP/1.1 without Host: 400 and the connection closed", r is not None and r[0] == 400 and
          r[1].get("connection") == "close", str(r))
    r = request(aport, b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
    check("a request with a body: 400", r is not None and r[0] == 400, str(r))
    r = request(aport, b"GET /health HTTP/2.0\r\nHost: x\r\n\r\n")
    check("HTTP/2.0 request line: 505", r is not None and r[0] == 505, str(r))
    big = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
    r = request(aport, big)
    check("a 9 KiB request head: 431", r is not None and r[0] == 431, str(r)[:200])
    r = request(aport, b"GET /health HTTP/1.0\r\n\r\n")
    check("HTTP/1.0: 200 and Connection: close", r is not None and r[0] == 200 and
          r[1].get("connection") == "close", str(r))
    r = request(aport, b"GET /metr%69cs?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    check("percent-encoded path /metr%69cs?x=1 is /metrics", r is not None and r[0] == 200 and
          b"process_open_fds" in r[2], str(r)[:100])
    # Keep-alive and pipelining: three requests in one write, three answers in order.
    c = Conn(aport)
    c.send(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
           b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n")
    a = [c.response(), c.response(), c.response(head_only=True)]
    c.close()
    check("three pipelined requests on one connection: 200 ok, 404, then HEAD 200",
          None not in a and [x[0] for x in a] == [200, 404, 200] and a[0][2] == b"ok\n" and a[2][2] == b"", str(a))
    # 200: /health, HEAD, HTTP/1.0, the percent-encoded /metrics, pipelined GET and HEAD
    return {"200": 6, "404": 2, "405": 2, "400": 2, "505": 1, "431": 1}


def counter_checks(aport, before, expected):
    fams = exposition_checks(aport)
    got = {}
    for s in fams.get("gregor_admin_http_requests", type("x", (), {"samples": []})).samples:
        if s.name.endswith("_total"):
            got[s.labels["code"]] = s.value
    diffs = {}
    for code, n in expected.items():
        if got.get(code, 0) - before.get(code, 0) != n:
            diffs[code] = (got.get(code, 0) - before.get(code, 0), n)
    check("gregor_admin_http_requests_total{code} counted every response exactly (%s)" % expected, not diffs,
          str(diffs))
    return got


def hostile(aport, tr):
    since, _ = tr.mark()
    # 1. A trickling client: one byte per second of a valid head; closed at the 10 s head timeout.
    trick = socket.create_connection(("127.0.0.1", aport), timeout=5)
    # 2. A client that never reads: 3000 pipelined /metrics requests and a tiny receive buffer.
    nr = socket.socket()
    nr.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    nr.connect(("127.0.0.1", aport))
    nr.setblocking(False)
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 3000
    sent = 0
    t_nr = time.time()
    head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "
    closed_at = None
    t0 = time.time()
    i = 0
    while time.time() - t0 < 14 and closed_at is None:
        try:
            trick.send(head[i:i + 1] if i < len(head) else b"a")
            i += 1
        except OSError:
            closed_at = time.time() - t0
            break
        try:
            if sent < len(req):
                sent += nr.send(req[sent:sent + 65536])
        except BlockingIOError:
            pass
        except OSError:
            pass
        trick.settimeout(1.0)
        try:
            d = trick.recv(100)
            if not d:
                closed_at = time.time() - t0
        except socket.timeout:
            pass
        except OSError:
            closed_at = time.time() - t0
    trick.close()
    check("a client trickling one byte per second is closed by the head timeout (after %s s)" % (
        "%.1f" % closed_at if closed_at is not None else "never"), closed_at is not None and 8 <= closed_at <= 13)
    nr.setblocking(True)
    # The server stopped writing to it long ago; by now the write timeout has closed it.
    rem = 12 - (time.time() - t_nr)
    if rem > 0:
        time.sleep(rem)
    check("a client that never reads its (large, pipelined) responses is closed by the write timeout",
          closed_by_peer(nr, 10))
    nr.close()
    since = check_traffic(tr, "a trickling client and a non-reading client", since)

    # 3. 100 connections at once: 32 are kept, the others are closed at once.
    time.sleep(0.5)  # the server has seen every earlier connection go
    socks = [socket.create_connection(("127.0.0.1", aport), timeout=5) for _ in range(100)]
    time.sleep(0.5)
    dropped = sum(1 for s in socks if closed_by_peer(s, 0.05))
    check("100 connections at once: %d closed at once (the cap is 32)" % dropped, dropped == 68)
    for s in socks:
        s.close()
    time.sleep(0.3)
    r = get(aport, "/health")
    check("after they went away, /health answers 200 again", r is not None and r[0] == 200, str(r))

    # 4. Garbage: random bytes, a TLS hello.
    rnd = random.Random(9)
    codes = []
    for k in range(20):
        junk = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 3000)))
        if k == 0:
            junk = bytes.fromhex("160301020001") + junk
        r = request(aport, junk if junk[:1] not in (b"\r", b"\n") else b"\x00" + junk)
        codes.append(r[0] if r else None)
    check("20 garbage inputs: each answered 400 (or 431) and closed (%s)" % sorted(set(map(str, codes))),
          all(c in (400, 431) for c in codes))
    check_traffic(tr, "100 connections and garbage", since)
    return {"400": sum(1 for c in codes if c == 400), "431": sum(1 for c in codes if c == 431)}


def mode_serving(boot, aport):
    aport = int(aport)
    tr = Traffic(boot, "admin-http-traffic")
    tr.start()
    t0 = time.time()
    while tr.rounds < 20 and time.time() - t0 < 30 and not tr.errors:  # past the consumer's first fetch
        time.sleep(0.05)
    fams = exposition_checks(aport)
    before = {}
    for s in fams.get("gregor_admin_http_requests").samples if "gregor_admin_http_requests" in fams else []:
        if s.name.endswith("_total"):
            before[s.labels["code"]] = s.value
    expected = status_checks(aport)
    expected["200"] += 1  # exposition_checks' own scrape, counted once it was sent
    counter_checks(aport, before, expected)
    t0 = time.time()
    hostile(aport, tr)
    print("# hostile phase took %.1f s" % (time.time() - t0))
    r = get(aport, "/health")
    check("after the hostile clients: /health 200", r is not None and r[0] == 200, str(r))
    tr.finish()
    check("the Kafka client made %d round trips without an error" % tr.rounds, tr.rounds > 10 and not tr.errors,
          str(tr.errors))


def mode_offline(boot, aport, trigger):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    aport = int(aport)
    admin = AdminClient({"bootstrap.servers": boot})
    for f in admin.create_topics([NewTopic("offline-t", 1, 1)]).values():
        f.result(30)
    res = []
    p = Producer({"bootstrap.servers": boot, "acks": "all", "enable.idempotence": False,
                  "message.send.max.retries": 0, "message.timeout.ms": 20000})
    p.produce("offline-t", b"before", on_delivery=lambda e, m: res.append(e))
    p.flush(20)
    check("an acks=all record is stored while fsync works", res == [None], str(res))
    r = get(aport, "/health")
    check("/health 200 before the fault", r is not None and r[0] == 200, str(r))
    open(trigger, "w").close()
    try:
        res.clear()
        p.produce("offline-t", b"lost", on_delivery=lambda e, m: res.append(e))
        p.flush(20)
        check("with fsync failing, the acks=all produce fails (%s)" % res,
              len(res) == 1 and res[0] is not None and res[0].name() == "KAFKA_STORAGE_ERROR")
        r = get(aport, "/health")
        want = b"log of offline-t-0 is offline (a write or fsync failed; restart after fixing the disk)\n"
        check("/health answers 503 naming the offline log", r is not None and r[0] == 503 and r[2] == want, str(r))
        r = get(aport, "/metrics")
        check("/metrics still answers 200 with a log offline", r is not None and r[0] == 200, str(r)[:100])
    finally:
        os.unlink(trigger)


def mode_shutdown(aport, pid):
    aport, pid = int(aport), int(pid)
    s = socket.create_connection(("127.0.0.1", aport), timeout=10)
    s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # all but the blank line
    time.sleep(0.2)
    os.kill(pid, signal.SIGTERM)
    time.sleep(0.02)  # the loop has stopped: the answer must come from the shutdown slices
    s.sendall(b"\r\n")
    r = read_response(s, 20)
    check("a request completed after SIGTERM is answered 503 'shutting down' while the data closes",
          r is not None and r[0] == 503 and r[2] == b"shutting down\n", str(r))
    s.close()


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "create":
        mode_create(*args)
    elif mode == "starting":
        mode_starting(*args)
    elif mode == "serving":
        mode_serving(*args)
    elif mode == "offline":
        mode_offline(*args)
    elif mode == "shutdown":
        mode_shutdown(*args)
    else:
        sys.exit("unknown mode " + mode)
    sys.exit(1 if kwire.FAILED else 0)


if __name__ == "__main__":
    main()
