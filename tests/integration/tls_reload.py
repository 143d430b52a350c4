"""Helpers of test_tls_reload.sh (standard library + kwire.py):
  fp HOST:PORT CA            sha256 (hex) of the certificate a new TLS connection is served
  hold HOST:PORT CA          open a TLS connection, print its certificate's sha256, wait for a
                             line on stdin, then send ApiVersions on the same connection and
                             print "alive <sha256>" when it is answered
  alter HOST:PORT BROKER [--validate] k=v|k ...
                             IncrementalAlterConfigs v0 on BROKER (k=v: SET, k alone: DELETE);
                             prints "<error code> <error message>"
  describe HOST:PORT BROKER KEY
                             DescribeConfigs v1 (with synonyms) of one key:
                             "KEY=VALUE source=S sensitive=B synonyms=S:K=V,..."
"""
import hashlib
import socket
import ssl
import struct
import sys

import kwire


def tls_connect(boot, ca):
    host, port = boot.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False  # the certificates under test differ in their names on purpose
    raw = socket.create_connection((host, int(port)), timeout=10)
    s = ctx.wrap_socket(raw, server_hostname=host)
    return s, hashlib.sha256(s.getpeercert(binary_form=True)).hexdigest()


def api_versions(s):
    s.sendall(kwire.frame(kwire.header(18, 0, 7, False)))
    hdr = b""
    while len(hdr) < 4:
        hdr += s.recv(4 - len(hdr))
    n = struct.unpack(">i", hdr)[0]
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            raise ConnectionError("closed")
        body += chunk
    return struct.unpack(">i", body[:4])[0] == 7


def alter(boot, broker, items, validate):
    cfgs = []
    for it in items:
        k, eq, v = it.partition("=")
        op = 0 if eq else 1
        cfgs.append(kwire.s16(k) + kwire.i8(op) + kwire.s16(v if eq else None))
    body = kwire.arr([kwire.i8(4) + kwire.s16(broker) + kwire.arr(cfgs)]) + kwire.boolean(validate)
    c = kwire.Conn(boot)
    c.send(44, 0, body)
    r = c.recv()
    r.i32()  # throttle
    assert r.i32() == 1
    code, msg = r.i16(), r.string()
    print(code, msg or "")


def describe(boot, broker, key):
    body = kwire.arr([kwire.i8(4) + kwire.s16(broker) + kwire.arr([kwire.s16(key)])]) + kwire.boolean(True)
    c = kwire.Conn(boot)
    c.send(32, 1, body)
    r = c.recv()
    r.i32()
    assert r.i32() == 1
    code, _msg, _rt, _rn = r.i16(), r.string(), r.i8(), r.string()
    if code:
        print("error", code)
        return
    for _ in range(r.i32()):
        name, value, _ro, src, sens = r.string(), r.string(), r.boolean(), r.i8(), r.boolean()
        syn = ["%d:%s=%s" % (s2, n2, v2) for n2, v2, s2 in [(r.string(), r.string(), r.i8()) for _ in range(r.i32())]]
        print("%s=%s source=%d sensitive=%s synonyms=%s" % (name, value, src, sens, ",".join(syn)))


def main():
    cmd = sys.argv[1]
    if cmd == "fp":
        s, fp = tls_connect(sys.argv[2], sys.argv[3])
        s.close()
        print(fp)
    elif cmd == "hold":
        s, fp = tls_connect(sys.argv[2], sys.argv[3])
        print(fp, flush=True)
        sys.stdin.readline()
        print(("alive " if api_versions(s) else "wrong-answer ") + fp, flush=True)
    elif cmd == "describe":
        describe(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "alter":
        validate = "--validate" in sys.argv[4:]
        alter(sys.argv[2], sys.argv[3], [a for a in sys.argv[4:] if a != "--validate"], validate)


if __name__ == "__main__":
    main()
