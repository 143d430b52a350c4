#!/usr/bin/env python3
"""TLS checks with confluent-kafka (librdkafka) and raw sockets against gregord's SSL listeners.

  tls_clients.py clients SSL_BOOT CA ADV_HOST:ADV_PORT   produce + consume 200 records over SSL,
                                                          Metadata answers the SSL listener's endpoint
  tls_clients.py mtls MTLS_BOOT CA CERT KEY               with a client certificate: accepted;
                                                          without: refused
  tls_clients.py plaintext-to-tls PORT                    an ApiVersions request in clear text to a TLS
                                                          port: the connection is closed
  tls_clients.py stall PORT SECONDS                       half a ClientHello, then silence: prints how
                                                          long until gregord closed the socket
Prints ok/FAIL lines; exit 1 on any FAIL.
"""
import socket
import struct
import sys
import time

FAILED = 0


def check(desc, cond, detail=""):
    global FAILED
    print(("ok - %s" if cond else "FAIL - %s " + str(detail)) % desc)
    sys.stdout.flush()
    if not cond:
        FAILED += 1


def ssl_conf(boot, ca, **extra):
    c = {"bootstrap.servers": boot, "security.protocol": "ssl", "ssl.ca.location": ca,
         "ssl.endpoint.identification.algorithm": "https"}
    c.update(extra)
    return c


def clients(boot, ca, adv):
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient(ssl_conf(boot, ca))
    md = admin.list_topics(timeout=10)
    eps = sorted("%s:%d" % (b.host, b.port) for b in md.brokers.values())
    check("Metadata over SSL answers the SSL listener's advertised endpoint %s" % adv, eps == [adv], eps)
    fs = admin.create_topics([NewTopic("tls-py", num_partitions=2, replication_factor=1)])
    fs["tls-py"].result(10)
    p = Producer(ssl_conf(boot, ca, **{"acks": "all", "linger.ms": 5, "enable.idempotence": True}))
    errs = []
    n = 200
    for i in range(n):
        # values of 1..20 KB, so responses span several TLS records
        p.produce("tls-py", key=b"k%d" % i, value=(b"v%05d-" % i) * (1 + (i % 20) * 150),
                  on_delivery=lambda e, m: errs.append(e) if e else None)
    left = p.flush(20)
    check("confluent-kafka produced %d records over SSL (acks=all, idempotent)" % n, left == 0 and not errs,
          (left, errs[:3]))
    c = Consumer(ssl_conf(boot, ca, **{"group.id": "tls-g", "auto.offset.reset": "earliest",
                                       "enable.auto.commit": False}))
    # gregord has no classic consumer groups: partitions are assigned, not subscribed
    c.assign([TopicPartition("tls-py", p, 0) for p in (0, 1)])
    got = {}
    deadline = time.time() + 30
    while len(got) < n and time.time() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        got[m.key()] = m.value()
    c.close()
    want = {b"k%d" % i: (b"v%05d-" % i) * (1 + (i % 20) * 150) for i in range(n)}
    check("confluent-kafka consumed the same %d records over SSL (keys and values)" % n, got == want,
          "%d of %d" % (len(got), n))


def mtls(boot, ca, cert, key):
    from confluent_kafka.admin import AdminClient
    a = AdminClient(ssl_conf(boot, ca, **{"ssl.certificate.location": cert, "ssl.key.location": key}))
    try:
        md = a.list_topics(timeout=10)
        check("mTLS: a client with a certificate from the trusted CA is served", len(md.brokers) == 1)
    except Exception as e:  # noqa: BLE001
        check("mTLS: a client with a certificate from the trusted CA is served", False, e)
    errs = []
    b = AdminClient(ssl_conf(boot, ca, **{"error_cb": lambda e: errs.append(str(e))}))
    try:
        b.list_topics(timeout=2)
        check("mTLS: a client without a certificate is refused", False, "metadata answered")
    except Exception as e:  # noqa: BLE001
        check("mTLS: a client without a certificate is refused (%s)" % str(e)[:60], True)


def plaintext_to_tls(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    body = struct.pack(">hhih", 18, 3, 7, 4) + b"test" + b"\x00"
    s.sendall(struct.pack(">i", len(body)) + body)
    t0 = time.time()
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout) as e:
        data += b"<%s>" % type(e).__name__.encode()
    closed = time.time() - t0 < 9
    # OpenSSL may answer a TLS alert record (type 21) before closing; never a Kafka response.
    check("a clear-text ApiVersions to the TLS port is not answered and the connection is closed",
          closed and (data == b"" or data[:1] == b"\x15" or data.startswith(b"<")), data[:20])


def stall(port, limit):
    s = socket.create_connection(("127.0.0.1", port), timeout=limit + 10)
    # A TLS record header announcing a 512-byte handshake message, then 10 bytes of it.
    s.sendall(b"\x16\x03\x01\x02\x00" + b"\x01\x00\x01\xfc\x03\x03" + b"\x00" * 4)
    t0 = time.time()
    try:
        while s.recv(4096):
            pass
    except (ConnectionResetError, socket.timeout):
        pass
    print("# stalled handshake closed by gregord after %.1f s" % (time.time() - t0))
    took = time.time() - t0
    check("a stalled TLS handshake is closed after the handshake bound (%.1f s, bound %d s)" % (took, limit),
          limit - 0.5 <= took <= limit + 5, took)


def main():
    cmd = sys.argv[1]
    if cmd == "clients":
        clients(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "mtls":
        mtls(*sys.argv[2:6])
    elif cmd == "plaintext-to-tls":
        plaintext_to_tls(int(sys.argv[2]))
    elif cmd == "stall":
        stall(int(sys.argv[2]), float(sys.argv[3]))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
