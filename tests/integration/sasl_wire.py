"""SASL on the wire (test_sasl.sh): raw-socket checks of a SASL_PLAINTEXT listener.

  observe BOOT OUT.json   the answers Kafka 4.4.0 and gregord must agree on (differential):
                          unknown mechanism, wrong PLAIN password / unknown user, SCRAM with
                          an unknown user, a request before authentication, SaslHandshake and
                          SaslAuthenticate after authentication, AlterUserScramCredentials
                          misuse and DescribeUserScramCredentials of unknown / repeated users.
                          Needs PLAIN user admin/admin-secret.
  checks BOOT REAUTH_MS   gregord-only checks: v0 handshake with a raw token, the failure
                          delay, SessionLifetimeMs, re-authentication on the same connection,
                          a session that expires without it, SCRAM set up over the wire.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kwire import (TAGS, Conn, Reader, arr, carr, check, cstr, i8, i16, i32, s16, uvarint)  # noqa: E402
import kwire  # noqa: E402

HANDSHAKE, AUTHENTICATE, METADATA, API_VERSIONS, DESCRIBE_SCRAM, ALTER_SCRAM = 17, 36, 3, 18, 50, 51


def cbytes(b):
    return uvarint(len(b) + 1) + b


def closed(c, timeout=3.0):
    """True if the broker closes the connection (without sending anything) within timeout."""
    c.s.settimeout(timeout)
    try:
        return c.s.recv(1) == b""
    except (ConnectionError, OSError):
        return True


def answered_then_closed(c):
    """(an answer came first, then the connection closed)."""
    try:
        c.recv_frame()
        answered = True
    except (ConnectionError, OSError):
        answered = False
    return answered, closed(c)


def describe_eventually(c, users, want_error=0, timeout=10):
    """Kafka's brokers see a credential change once the controller's record reaches them."""
    deadline = time.monotonic() + timeout
    while True:
        got = describe(c, users)
        if all(r[1] == want_error for r in got[1]) or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def handshake(c, mech, ver=1):
    r = c.call(HANDSHAKE, ver, s16(mech), flexible=False)
    return r.i16(), r.arr(lambda r: r.string())


def authenticate(c, token, ver=2):
    """(error, message, auth bytes, session lifetime ms or None)."""
    if ver >= 2:
        r = c.call(AUTHENTICATE, ver, cbytes(token) + TAGS, flexible=True)
        return r.i16(), r.cstr(), r.cbytes(), r.i64()
    r = c.call(AUTHENTICATE, ver, i32(len(token)) + token, flexible=False)
    return r.i16(), r.string(), r.bytes_(), (r.i64() if ver >= 1 else None)


def plain(user, pw, authz=""):
    return ("%s\0%s\0%s" % (authz, user, pw)).encode()


def login_plain(boot, user="admin", pw="admin-secret"):
    c = Conn(boot)
    kwire.api_versions(c)
    e, _ = handshake(c, "PLAIN")
    e2, msg, _, _ = authenticate(c, plain(user, pw))
    assert e == 0 and e2 == 0, (e, e2, msg)
    return c


def metadata_v1(c):
    return c.call(METADATA, 1, arr(None), flexible=False)


# ---------------------------------------------------------------- SCRAM client
HASH = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}
MECH_TYPE = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}


def salted_password(mech, pw, salt, it):
    return hashlib.pbkdf2_hmac(HASH[mech]().name, pw.encode(), salt, it)


def scram_login(c, mech, user, pw, ver=2):
    """Full SCRAM exchange on c after a successful handshake; returns the final
    (error, message, server final, lifetime)."""
    cnonce = base64.b64encode(os.urandom(18)).decode().replace("=", "")
    first_bare = "n=%s,r=%s" % (user.replace("=", "=3D").replace(",", "=2C"), cnonce)
    e, msg, sfirst, life = authenticate(c, ("n,," + first_bare).encode(), ver)
    if e:
        return e, msg, sfirst, life
    attrs = dict(kv.split("=", 1) for kv in sfirst.decode().split(","))
    salt, it = base64.b64decode(attrs["s"]), int(attrs["i"])
    sp = salted_password(mech, pw, salt, it)
    h = HASH[mech]
    ckey = hmac.new(sp, b"Client Key", h).digest()
    without = "c=biws,r=" + attrs["r"]
    auth = ",".join([first_bare, sfirst.decode(), without]).encode()
    sig = hmac.new(h(ckey).digest(), auth, h).digest()
    proof = bytes(a ^ b for a, b in zip(ckey, sig))
    e, msg, sfinal, life = authenticate(c, (without + ",p=" + base64.b64encode(proof).decode()).encode(), ver)
    if e == 0:
        skey = hmac.new(sp, b"Server Key", h).digest()
        want = b"v=" + base64.b64encode(hmac.new(skey, auth, h).digest())
        check("%s: the server signature proves the server knows the credential" % mech, sfinal == want, sfinal)
    return e, msg, sfinal, life


def alter(c, deletions, upsertions):
    """deletions [(name, mech)], upsertions [(name, mech, iterations, salt, salted)] ->
    sorted [(user, error, message)]."""
    body = carr(deletions, lambda d: cstr(d[0]) + i8(d[1]) + TAGS) + \
        carr(upsertions, lambda u: cstr(u[0]) + i8(u[1]) + i32(u[2]) + cbytes(u[3]) + cbytes(u[4]) + TAGS) + TAGS
    r = c.call(ALTER_SCRAM, 0, body)
    r.i32()
    return sorted(r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags())[:3]))


def describe(c, users):
    body = carr(users, lambda u: cstr(u) + TAGS) + TAGS
    r = c.call(DESCRIBE_SCRAM, 0, body)
    r.i32()
    top = (r.i16(), r.cstr())
    res = r.carr(lambda r: (r.cstr(), r.i16(), r.cstr(),
                            sorted(r.carr(lambda r: (r.i8(), r.i32(), r.tags())[:2])), r.tags())[:4])
    return top, sorted(res)


# ---------------------------------------------------------------- observe (differential)
def observe(boot, out):
    obs = {}
    c = Conn(boot)
    obs["handshake_unknown"] = handshake(c, "FOO")
    obs["handshake_unknown_then_closed"] = closed(c)

    c = Conn(boot)
    handshake(c, "PLAIN")
    obs["plain_wrong_password"] = authenticate(c, plain("admin", "nope"))[:2]
    obs["plain_wrong_password_then_closed"] = closed(c)
    c = Conn(boot)
    handshake(c, "PLAIN")
    obs["plain_unknown_user"] = authenticate(c, plain("nobody", "x"))[:2]
    c = Conn(boot)
    handshake(c, "PLAIN")
    obs["plain_other_authzid"] = authenticate(c, plain("admin", "admin-secret", "root"))[:2]
    c = Conn(boot)
    handshake(c, "PLAIN")
    obs["plain_two_tokens"] = authenticate(c, b"admin\0admin-secret")[:2]

    c = Conn(boot)
    handshake(c, "SCRAM-SHA-256")
    obs["scram_unknown_user"] = scram_login(c, "SCRAM-SHA-256", "nobody", "x")[:2]
    c = Conn(boot)
    handshake(c, "SCRAM-SHA-512")
    obs["scram_malformed_first"] = authenticate(c, b"p=tls-unique,,n=x,r=abc")[:2]

    c = Conn(boot)
    c.send(METADATA, 1, arr(None))
    obs["metadata_before_auth_closed"] = closed(c)
    # sasl.server.max.receive.size (524288): a bigger frame before authentication is refused
    # as soon as its size is read (else the broker would wait for the rest of it).
    c = Conn(boot)
    handshake(c, "PLAIN")
    c.send_raw(i32(600000) + b"\0" * 64)
    obs["oversize_frame_before_auth_closed"] = closed(c)
    c = Conn(boot)
    handshake(c, "PLAIN")
    c.send(METADATA, 1, arr(None))
    obs["metadata_before_authenticate"] = answered_then_closed(c)

    c = login_plain(boot)
    obs["handshake_after_auth"] = handshake(c, "PLAIN")
    obs["authenticate_after_auth"] = authenticate(c, plain("admin", "admin-secret"))[:2]
    r = metadata_v1(c)
    obs["metadata_after_auth_brokers"] = len(r.arr(lambda r: (r.i32(), r.string(), r.i32(), r.string())))

    salt, sp = b"0123456789abcdef", b"\x01" * 32
    obs["alter_misuse"] = alter(c, [("ghost", 1), ("", 1), ("dupdel", 1), ("dupdel", 2), ("badmech", 0)],
                                [("few", 1, 100, salt, sp), ("many", 1, 20000, salt, sp), ("zero", 0, 4096, salt, sp),
                                 ("", 2, 4096, salt, sp * 2), ("both", 1, 4096, salt, sp),
                                 ("both", 2, 4096, salt, sp * 2)])
    obs["alter_ok"] = alter(c, [], [("dora", 1, 8192, salt, sp)])
    obs["describe_unknown"] = describe(c, ["nobody"])
    obs["describe_repeated"] = describe(c, ["dora", "dora", "nobody"])
    obs["describe_dora"] = describe_eventually(c, ["dora"])
    obs["alter_delete_dora_512"] = alter(c, [("dora", 2)], [])
    obs["alter_delete_dora_256"] = alter(c, [("dora", 1)], [])
    obs["describe_dora_deleted"] = describe_eventually(c, ["dora"], want_error=91)
    with open(out, "w") as f:
        json.dump(obs, f, indent=1, sort_keys=True)


# ---------------------------------------------------------------- gregord checks
def checks(boot, reauth_ms):
    # v0 handshake: the next frames are bare SASL tokens, answered size-prefixed.
    c = Conn(boot)
    check("v0 handshake PLAIN accepted", handshake(c, "PLAIN", ver=0)[0] == 0)
    c.send_raw(kwire.frame(plain("admin", "admin-secret")))
    check("raw PLAIN token answered with an empty token", c.recv_frame() == b"")
    check("after raw authentication Metadata is served", metadata_v1(c) is not None)
    c = Conn(boot)
    handshake(c, "PLAIN", ver=0)
    c.send_raw(kwire.frame(plain("admin", "wrong")))
    check("raw PLAIN token with a wrong password: closed without an answer", closed(c))

    # The failure is answered after connection.failed.authentication.delay.ms (100).
    c = Conn(boot)
    handshake(c, "PLAIN")
    t0 = time.monotonic()
    e, msg, _, _ = authenticate(c, plain("admin", "nope"))
    waited = (time.monotonic() - t0) * 1000
    check("wrong password: SASL_AUTHENTICATION_FAILED after >= 90 ms (%.0f ms)" % waited, e == 58 and waited >= 90)

    # SessionLifetimeMs and re-authentication on the same connection.
    c = Conn(boot)
    kwire.api_versions(c)
    handshake(c, "PLAIN")
    e, _, _, life = authenticate(c, plain("admin", "admin-secret"))
    check("SaslAuthenticate v2 answers SessionLifetimeMs = connections.max.reauth.ms (%s)" % life,
          e == 0 and life == reauth_ms)
    e1 = handshake(c, "PLAIN")[0]
    e2, _, _, life2 = authenticate(c, plain("admin", "admin-secret"))
    check("re-authentication on the same connection succeeds", (e1, e2, life2) == (0, 0, reauth_ms), (e1, e2, life2))
    check("the re-authenticated connection serves Metadata", metadata_v1(c) is not None)
    time.sleep(1.1)  # Kafka allows one re-authentication a second
    handshake(c, "PLAIN")
    e, msg, _, _ = authenticate(c, plain("alice", "alice-secret"))
    check("re-authentication as another user is refused",
          e == 58 and msg == "Cannot change principals during re-authentication from User.admin: User.alice", msg)
    check("... and the connection closed", closed(c))

    c = login_plain(boot)
    time.sleep(1.1)
    handshake(c, "SCRAM-SHA-256")
    c.send(AUTHENTICATE, 2, cbytes(b"n,,n=admin,r=abc") + TAGS, flexible=True)
    check("re-authentication with another mechanism: closed without an answer", answered_then_closed(c) == (False, True))

    # A session that is not renewed ends at the first request after its lifetime.
    c = login_plain(boot)
    check("before expiry Metadata is served", metadata_v1(c) is not None)
    time.sleep(reauth_ms / 1000.0 + 0.3)
    c.send(METADATA, 1, arr(None))
    check("after connections.max.reauth.ms the next request closes the connection", closed(c))

    # SCRAM over the wire: AlterUserScramCredentials with a salted password, then log in.
    c = login_plain(boot)
    for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        salt = os.urandom(16)
        res = alter(c, [], [("erin", MECH_TYPE[mech], 4096, salt, salted_password(mech, "erin-pw", salt, 4096))])
        check("AlterUserScramCredentials %s for erin" % mech, res == [("erin", 0, None)], res)
        s = Conn(boot)
        handshake(s, mech)
        e, msg, _, life = scram_login(s, mech, "erin", "erin-pw")
        if e == 58:  # Kafka: the credential reaches the broker a moment after the answer
            time.sleep(1)
            s = Conn(boot)
            handshake(s, mech)
            e, msg, _, life = scram_login(s, mech, "erin", "erin-pw")
        check("%s login of erin" % mech, e == 0 and life == reauth_ms, (e, msg))
        check("%s: erin's connection serves Metadata" % mech, metadata_v1(s) is not None)
        s = Conn(boot)
        handshake(s, mech)
        e, msg, _, _ = scram_login(s, mech, "erin", "wrong")
        check("%s wrong password refused with Kafka's message" % mech,
              (e, msg) == (58, "Authentication failed during authentication due to invalid credentials with "
                               "SASL mechanism " + mech), (e, msg))
    s = Conn(boot)
    handshake(s, "SCRAM-SHA-256")
    e, msg = authenticate(s, b"n,,n=erin,r=abc,tokenauth=true")[:2]
    check("delegation-token authentication (tokenauth) refused", e == 58, (e, msg))
    check("describe erin lists both mechanisms with their iterations",
          describe_eventually(c, ["erin"]) == ((0, ""), [("erin", 0, "", [(1, 4096), (2, 4096)])]),
          describe(c, ["erin"]))


def guess(boot, n):
    """n wrong PLAIN logins at once (a guessing client); prints how many were refused with 58."""
    import threading
    refused = []

    def one():
        c = Conn(boot)
        handshake(c, "PLAIN")
        refused.append(authenticate(c, plain("admin", "guess"))[0] == 58)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("refused %d of %d" % (sum(refused), n))


if __name__ == "__main__":
    if sys.argv[1] == "observe":
        observe(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "guess":
        guess(sys.argv[2], int(sys.argv[3]))
    else:
        checks(sys.argv[2], int(sys.argv[3]))
    sys.exit(1 if kwire.FAILED else 0)
