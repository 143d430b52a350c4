#!/usr/bin/env python3
"""Differential test of DescribeClientQuotas (48) and AlterClientQuotas (49): the same
good and bad requests against Apache Kafka 4.4.0 and gregord (test_quota_differential.sh),
observations compared by kdiff. Kafka answers the entries of an AlterClientQuotas and of a
DescribeClientQuotas in its hash maps' order: both sides are sorted by entity before the
comparison (the entity pairs inside an entry keep their order: gregord reproduces Java's).

  quota_differential.py observe BOOT OUT | diff KAFKA.json GREGORD.json [REPORT] | allowlist
Standard library only.
"""
import time

import kdiff
import kwire
import quota_wire as q

U, C, I = "user", "client-id", "ip"
PB, CB, RP, CC = "producer_byte_rate", "consumer_byte_rate", "request_percentage", "connection_creation_rate"


def norm_alter(res):
    out = [{"error": e, "message": m, "entity": [list(p) for p in ent]} for e, m, ent in res[0]]
    return sorted(out, key=lambda x: repr(sorted(map(tuple, x["entity"]))))


def norm_describe(res):
    err, msg, entries, _ = res
    if entries is None:
        return {"error": err, "message": msg, "entries": None}
    ents = [{"entity": sorted([list(p) for p in ent]), "values": vals} for ent, vals in entries]
    return {"error": err, "message": msg, "entries": sorted(ents, key=lambda x: repr(x["entity"]))}


DIRTY = [False]


def alter(c, entries, validate_only=False, ver=1):
    DIRTY[0] = True
    return norm_alter(q.alter(c, entries, validate_only, ver))


def describe(c, comps, strict=False, ver=1):
    # Kafka's broker answers DescribeClientQuotas from its metadata image, which the
    # controller's records reach a moment after the AlterClientQuotas answer.
    if DIRTY[0]:
        time.sleep(1.0)
        DIRTY[0] = False
    return norm_describe(q.describe(c, comps, strict, ver))


def s_set_and_describe(c):
    return {
        "alter": alter(c, [
            ([(U, "alice")], [(PB, 1024, False), (CB, 2048, False), (RP, 12.5, False)]),
            ([(U, None)], [(PB, 500, False)]),
            ([(C, None)], [(CB, 700, False)]),
            ([(U, "alice"), (C, "app")], [(PB, 10, False)]),
            ([(C, "app"), (U, None)], [(RP, 1.5, False)]),
            ([(U, None), (C, None)], [(CB, 3, False)]),
            ([(I, None)], [(CC, 5, False)]),
            ([(I, "127.0.0.1")], [(CC, 50, False)]),
            ([(C, "x"), (U, "bob")], [(PB, 1e12, False)]),
        ]),
        "all": describe(c, []),
        "all_strict": describe(c, [], True),
        "user_alice": describe(c, [(U, 0, "alice")]),
        "user_alice_strict": describe(c, [(U, 0, "alice")], True),
        "user_default": describe(c, [(U, 1, None)]),
        "user_default_strict": describe(c, [(U, 1, None)], True),
        "user_any_client_any": describe(c, [(U, 2, None), (C, 2, None)]),
        "client_any_strict": describe(c, [(C, 2, None)], True),
        "client_default": describe(c, [(C, 1, None)]),
        "ips": describe(c, [(I, 2, None)]),
        "ip_default": describe(c, [(I, 1, None)], True),
        "nobody": describe(c, [(U, 0, "nobody")]),
        "v0_all": describe(c, [], ver=0),
    }


def s_remove(c):
    return {
        "remove": alter(c, [([(U, "alice")], [(PB, 0, True), (CB, 0, True)]),
                            ([(U, "carol")], [(PB, 0, True)]),     # nothing there
                            ([(U, "alice")] * 0 + [(C, "app"), (U, "alice")], [("foo", 0, True)])]),
        "after": describe(c, [(U, 0, "alice")]),
        "remove_all": alter(c, [([(U, "alice")], [(RP, 0, True)])]),
        "gone": describe(c, [(U, 0, "alice")], True),
    }


def s_validate_only(c):
    return {
        "alter": alter(c, [([(U, "dave")], [(PB, 4096, False)]), ([(U, "erin")], [(PB, 1.5, False)])], True),
        "not_stored": describe(c, [(U, 0, "dave")]),
    }


def s_alter_errors(c):
    cases = {
        "fractional_long": ([(U, "e1")], [(PB, 1.5, False)]),
        "fractional_ok_double": ([(U, "e2")], [(RP, 0.25, False)]),
        "zero": ([(U, "e3")], [(CB, 0, False)]),
        "negative": ([(U, "e4")], [(RP, -1, False)]),
        "unknown_key": ([(U, "e5")], [("foo_rate", 1, False)]),
        "ip_key_on_user": ([(U, "e6")], [(CC, 1, False)]),
        "user_key_on_ip": ([(I, "10.0.0.1")], [(PB, 1, False)]),
        "int_too_large": ([(I, "10.0.0.2")], [(CC, 3e9, False)]),
        "long_too_large": ([(C, "e7")], [(PB, 1e19, False)]),
        "infinite_double": ([(C, "e8")], [(RP, float("inf"), False)]),
        "nan": ([(C, "e8")], [(PB, float("nan"), False)]),
        "minus_infinity": ([(C, "e8")], [(CB, float("-inf"), False)]),
        "controller_mutation_rate": ([(U, "e9")], [("controller_mutation_rate", 2.5, False)]),
        "empty_entity": ([], [(PB, 1, False)]),
        "unknown_type": ([("group", "g")], [(PB, 1, False)]),
        "unknown_and_user": ([(U, "e10"), ("topic", "t")], [(PB, 1, False)]),
        "empty_user": ([(U, "")], [(PB, 1, False)]),
        "empty_client": ([(C, "")], [(PB, 1, False)]),
        "ip_with_user": ([(I, "10.0.0.3"), (U, "e11")], [(CC, 1, False)]),
        "ip_with_client": ([(C, "e12"), (I, None)], [(PB, 1, False)]),
        "ip_literal_v6": ([(I, "::1")], [(CC, 3, False)]),
        "ip_unresolvable": ([(I, "no-such-host.invalid")], [(CC, 3, False)]),
        "type_twice": ([(U, "e13"), (U, "e14")], [(PB, 8, False)]),
        "two_bad_values": ([(U, "e15")], [(CB, -5, False), (PB, 1.5, False), ("zzz", 1, False)]),
        "no_ops": ([(U, "e16")], []),
    }
    out = {}
    for name, entry in cases.items():
        out[name] = alter(c, [entry])
    out["v0_fractional"] = alter(c, [([(U, "e1")], [(PB, 1.5, False)])], ver=0)
    out["duplicate_key"] = alter(c, [([(U, "d1")], [(PB, 1, False), (PB, 2, False)])])
    out["duplicate_entity"] = alter(c, [([(U, "d2")], [(PB, 1, False)]), ([(U, "d2")], [(PB, 2, False)])])
    out["duplicate_entity_stored"] = describe(c, [(U, 0, "d2")])
    out["three_entries_one_bad"] = alter(c, [([(U, "m1")], [(PB, 1, False)]), ([(U, "m2")], [(PB, -1, False)]),
                                             ([(C, "m3")], [(CB, 9, False)])])
    out["stored_after"] = describe(c, [(U, 2, None)], True)
    out["empty_request"] = alter(c, [])
    return out


def s_describe_errors(c):
    cases = {
        "exact_null": [(U, 0, None)],
        "default_with_match": [(U, 1, "x")],
        "specified_with_match": [(C, 2, "x")],
        "unknown_match_type": [(U, 7, None)],
        "unsupported_type": [("group", 2, None)],
        "empty_type": [("", 2, None)],
        "type_twice": [(U, 2, None), (U, 1, None)],
        "ip_with_user": [(I, 2, None), (U, 2, None)],
        "ip_with_client": [(C, 1, None), (I, 0, "1.2.3.4")],
        "bad_type_after_good": [(U, 2, None), ("topic", 2, None)],
    }
    return {name: describe(c, comps) for name, comps in cases.items()}


SCENARIOS = [
    ("set_and_describe", s_set_and_describe),
    ("remove", s_remove),
    ("validate_only", s_validate_only),
    ("alter_errors", s_alter_errors),
    ("describe_errors", s_describe_errors),
]

ALLOW = [
]


def observe(boot, out_path):
    kdiff.observe(boot, out_path, SCENARIOS, lambda old: kwire.Conn(boot, client_id="quota-diff"))


def diff(ref_path, gre_path, report_path):
    return kdiff.diff(ref_path, gre_path, report_path, [n for n, _ in SCENARIOS], ALLOW, allowed_values=True)


if __name__ == "__main__":
    kdiff.main("quota_differential.py", observe, diff, lambda: kdiff.print_allow(ALLOW))
