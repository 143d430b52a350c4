"""The core both differential drivers share (differential.py, share_differential.py):
run the scenarios against one broker and write the observations, compare two
observation files under an allow-list, and the command line around both.

An allow-list entry is (path glob, rule, one-line reason). Rules:
  ignore      values may differ (both sides must still have the field)
  shape       compare the shape only (uuid zero/non-zero, type, int sign, string length)
  ref_only    the field may exist only in Kafka's observation
  any         any difference below the path (present on one side only included)
  digits      strings equal once every number is replaced by N
  not_behind  both ints >= 0 and gregord's >= Kafka's
Standard library only.
"""
import fnmatch
import json
import re
import sys
import time
import traceback


def observe(boot, out_path, scenarios, fresh, start=None, convert=None):
    """Run fn(ctx) for every (name, fn) of scenarios (fn None: skipped) and write
    {name: observation} to out_path. fresh(old) makes the context (old None at first; after a
    scenario raised, the old context, whose connections may be out of step). start(ctx) gives
    the observations made before the scenarios; convert(observation) makes one JSON-ready."""
    ctx = fresh(None)
    obs = start(ctx) if start else {}
    for name, fn in scenarios:
        if fn is None:
            continue
        t0 = time.time()
        try:
            v = fn(ctx)
            obs[name] = convert(v) if convert else v
        except Exception as e:  # noqa: BLE001 - an exception is an observation too
            traceback.print_exc()
            obs[name] = {"exception": repr(e)}
            ctx = fresh(ctx)
        print("observe %s: %s in %.1f s" % (boot, name, time.time() - t0), file=sys.stderr, flush=True)
    with open(out_path, "w") as f:
        json.dump(obs, f, indent=1, sort_keys=True)


def shape(v):
    if isinstance(v, str) and len(v) == 32 and all(c in "0123456789abcdef" for c in v):
        return "uuid:zero" if v == "0" * 32 else "uuid:non-zero"
    if isinstance(v, str):
        return "str(len %d)" % len(v)
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int:" + ("neg" if v < 0 else "zero" if v == 0 else "pos")
    return type(v).__name__


def walk(a, b, path, out):
    """Collect (path, ref value, gregord value, kind) for every leaf difference."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = "%s/%s" % (path, k)
            if k not in b:
                out.append((p, a[k], None, "missing in gregord"))
            elif k not in a:
                out.append((p, None, b[k], "only in gregord"))
            else:
                walk(a[k], b[k], p, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s/%d" % (path, i), out)
    elif a != b:
        out.append((path, a, b, "differs"))


def classify(d, rules):
    """The reason of the allow-list entry that explains difference d, or None."""
    path, ra, gb, kind = d
    p = path.lstrip("/")
    for glob, rule, reason in rules:
        if not fnmatch.fnmatchcase(p, glob):
            continue
        if rule == "ignore" and kind == "differs":
            return reason
        if rule == "shape" and kind == "differs" and shape(ra) == shape(gb):
            return reason
        if rule == "ref_only" and kind == "missing in gregord":
            return reason
        if rule == "any":
            return reason
        if rule == "digits" and kind == "differs" and isinstance(ra, str) and isinstance(gb, str) and \
                re.sub(r"[0-9]+", "N", ra) == re.sub(r"[0-9]+", "N", gb):
            return reason
        if rule == "not_behind" and kind == "differs" and isinstance(ra, int) and isinstance(gb, int) and \
                0 <= ra <= gb:
            return reason
    return None


def diff(ref_path, gre_path, report_path, names, rules, prepare=None, allowed_values=False):
    """Compare two observation files scenario by scenario (names, in order). prepare(name, a, b)
    may take part of a scenario out of the generic walk: it returns (a, b, diffs, explained).
    Prints "ok   - ..." / "FAIL - ..." per scenario, the unexplained differences and a summary;
    writes every difference (allowed ones too, with their values if allowed_values) to
    report_path. Returns the exit status: 1 on any unexplained difference."""
    ref, gre = json.load(open(ref_path)), json.load(open(gre_path))
    lines, bad_total, allowed_total, scen_ok = [], 0, 0, 0
    for name in names:
        a, b = ref.get(name, {"missing": True}), gre.get(name, {"missing": True})
        diffs, explained = [], []
        if prepare:
            a, b, diffs, explained = prepare(name, a, b)
        for side, obs_ in (("kafka", a), ("gregord", b)):
            if "exception" in obs_ or "missing" in obs_:
                diffs.append(("%s/exception" % name, obs_.get("exception"), None,
                              "the scenario did not complete against %s" % side))
        raw = []
        walk(a, b, name, raw)
        for d in raw:
            reason = classify(d, rules)
            if reason:
                explained.append(d[:3] + ("allowed: " + reason,))
            else:
                diffs.append(d)
        allowed_total += len(explained)
        bad_total += len(diffs)
        if diffs:
            print("FAIL - %s: %d unexplained difference(s) from Apache Kafka (%d allowed)" % (
                name, len(diffs), len(explained)))
        else:
            scen_ok += 1
            print("ok   - %s: gregord observes as Apache Kafka does (%d allowed difference(s))" % (
                name, len(explained)))
        for p, ra, gb, kind in diffs:
            lines.append("DIFF %s [%s]\n     kafka:   %s\n     gregord: %s" % (
                p, kind, json.dumps(ra)[:600], json.dumps(gb)[:600]))
        for p, ra, gb, kind in explained:
            if allowed_values:
                lines.append("allowed %s [%s]\n     kafka:   %s\n     gregord: %s" % (
                    p, kind, json.dumps(ra)[:300], json.dumps(gb)[:300]))
            else:
                lines.append("allowed %s [%s]" % (p, kind))
    text = "\n".join(lines)
    if report_path:
        with open(report_path, "w") as f:
            f.write(text + "\n")
    print("---- unexplained differences")
    print("\n".join(x for x in lines if x.startswith("DIFF")) or "(none)")
    print("diff summary: %d scenario(s) identical, %d unexplained difference(s), %d allowed difference(s)" % (
        scen_ok, bad_total, allowed_total))
    return 1 if bad_total else 0


def print_allow(rules):
    for glob, rule, reason in rules:
        print("| `%s` | %s | %s |" % (glob, rule, reason))


def main(prog, observe_fn, diff_fn, allowlist_fn):
    """observe BOOT OUT | diff REF GREGORD [REPORT] | allowlist."""
    argv = sys.argv
    if len(argv) >= 4 and argv[1] == "observe":
        observe_fn(argv[2], argv[3])
    elif len(argv) >= 4 and argv[1] == "diff":
        sys.exit(diff_fn(argv[2], argv[3], argv[4] if len(argv) > 4 else None))
    elif len(argv) >= 2 and argv[1] == "allowlist":
        allowlist_fn()
    else:
        sys.exit("usage: %s observe BOOT OUT | diff REF GREGORD [REPORT] | allowlist" % prog)
