"""Checks docs/examples/keda-scaledobject.yaml and docs/examples/grafana-dashboard.json
(test_metrics_examples.sh; standard library only, prometheus_client when it is importable).

    python3 metrics_examples_check.py docs REPO
        both files parse (the YAML with a small strict parser for the block subset it uses, the
        JSON with json), their structure is what KEDA and Grafana expect, and every metric name
        their queries use is documented in docs/metrics.md with a type that fits the use
        (name_bucket/_sum/_count only on a histogram);
    python3 metrics_examples_check.py live REPO METRICS_FILE GROUP TOPIC
        the same names exist in a scraped /metrics page (a `# TYPE` line, the same type), the page
        parses with prometheus_client's parser when available, and the share-partition families
        have samples for GROUP/TOPIC.

Prints one line per check, "ok   - ..." or "FAIL - ...", and exits 1 on any failure.
"""
import json
import os
import re
import sys

FAILED = []


def ok(msg):
    print("ok   - " + msg)


def fail(msg):
    FAILED.append(msg)
    print("FAIL - " + msg)


def check(cond, msg):
    (ok if cond else fail)(msg)
    return cond


# ---------------------------------------------------------------- strict YAML subset

class YamlError(Exception):
    pass


def _strip_comment(s):
    """Cut a ' #' comment outside quotes."""
    quote = None
    for i, c in enumerate(s):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
    if quote:
        raise YamlError("unterminated quote in: " + s)
    return s.rstrip()


def _scalar(s, lineno):
    s = s.strip()
    if not s:
        return None
    if s[0] == '"':
        if len(s) < 2 or s[-1] != '"':
            raise YamlError("line %d: bad double-quoted scalar" % lineno)
        return json.loads(s)  # YAML double-quoted escapes are a superset of what we use
    if s[0] == "'":
        if len(s) < 2 or s[-1] != "'":
            raise YamlError("line %d: bad single-quoted scalar" % lineno)
        return s[1:-1].replace("''", "'")
    if s[0] in "[{&*!|>%@`":
        raise YamlError("line %d: flow/anchor/block scalar not supported by the strict check: %s" % (lineno, s))
    if s in ("true", "false"):
        return s == "true"
    if s in ("null", "~"):
        return None
    if re.fullmatch(r"-?[0-9]+", s):
        return int(s)
    if re.fullmatch(r"-?[0-9]+\.[0-9]*", s):
        return float(s)
    return s


def parse_yaml(text):
    """Block mappings, block sequences ("- "), plain and quoted scalars, comments.
    Rejects tabs, duplicate keys, bad indentation and anything else."""
    lines = []
    for n, raw in enumerate(text.split("\n"), 1):
        if "\t" in raw:
            raise YamlError("line %d: tab" % n)
        body = _strip_comment(raw)
        if body.strip() in ("", "---"):
            continue
        lines.append((n, len(body) - len(body.lstrip(" ")), body.strip()))
    pos, doc = _block(lines, 0, 0)
    if pos != len(lines):
        raise YamlError("line %d: unexpected indentation" % lines[pos][0])
    return doc


def _block(lines, i, indent):
    if i >= len(lines):
        raise YamlError("empty block")
    n, ind, body = lines[i]
    if ind != indent:
        raise YamlError("line %d: indentation %d, expected %d" % (n, ind, indent))
    if body.startswith("- ") or body == "-":
        return _seq(lines, i, indent)
    return _map(lines, i, indent)


def _map(lines, i, indent, first=None):
    out = {}
    while i < len(lines):
        n, ind, body = lines[i]
        if first is not None:
            body, ind, first = first, indent, None
        if ind < indent:
            break
        if ind > indent:
            raise YamlError("line %d: unexpected indentation" % n)
        if body.startswith("- "):
            break
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.\-/]*|\"[^\"]*\"):(?: (.*))?", body)
        if not m:
            raise YamlError("line %d: not a 'key: value' line: %s" % (n, body))
        key = m.group(1).strip('"')
        if key in out:
            raise YamlError("line %d: duplicate key %s" % (n, key))
        rest = (m.group(2) or "").strip()
        i += 1
        if rest:
            out[key] = _scalar(rest, n)
        elif i < len(lines) and (lines[i][1] > indent or (lines[i][1] == indent and lines[i][2].startswith("- "))):
            i, out[key] = _block(lines, i, lines[i][1])
        else:
            out[key] = None
    return i, out


def _seq(lines, i, indent):
    out = []
    while i < len(lines):
        n, ind, body = lines[i]
        if ind < indent or not (body.startswith("- ") or body == "-"):
            if ind > indent:
                raise YamlError("line %d: unexpected indentation" % n)
            break
        if ind > indent:
            raise YamlError("line %d: unexpected indentation" % n)
        item = body[2:].strip()
        if re.match(r"([A-Za-z_][A-Za-z0-9_.\-/]*|\"[^\"]*\"):( |$)", item):
            # a mapping that starts on the dash line: its keys sit at indent + 2
            i, val = _map(lines, i, indent + 2, first=item)
            out.append(val)
        elif item:
            out.append(_scalar(item, n))
            i += 1
        else:
            i, val = _block(lines, i + 1, lines[i + 1][1])
            out.append(val)
    return i, out


# ---------------------------------------------------------------- the examples

NAME_RE = re.compile(r"(?<![A-Za-z0-9_:])((?:gregor|process)_[a-z0-9_]+)")
HIST_SUFFIXES = ("_bucket", "_sum", "_count")


def names_in(expr):
    return set(NAME_RE.findall(expr))


def check_keda(repo):
    path = os.path.join(repo, "docs/examples/keda-scaledobject.yaml")
    text = open(path, encoding="utf-8").read()
    try:
        doc = parse_yaml(text)
    except YamlError as e:
        fail("keda-scaledobject.yaml parses (strict subset): %s" % e)
        return set()
    ok("keda-scaledobject.yaml parses (strict subset)")
    try:
        import yaml  # optional second opinion
        check(yaml.safe_load(text) == doc, "keda-scaledobject.yaml: PyYAML %s reads the same document" % yaml.__version__)
    except ImportError:
        pass
    check(doc.get("apiVersion") == "keda.sh/v1alpha1" and doc.get("kind") == "ScaledObject",
          "KEDA: apiVersion keda.sh/v1alpha1, kind ScaledObject")
    spec = doc.get("spec") or {}
    check(isinstance(spec.get("scaleTargetRef"), dict) and spec["scaleTargetRef"].get("name"),
          "KEDA: spec.scaleTargetRef.name set")
    mn, mx = spec.get("minReplicaCount"), spec.get("maxReplicaCount")
    check(isinstance(mn, int) and isinstance(mx, int) and 0 <= mn < mx, "KEDA: 0 <= minReplicaCount < maxReplicaCount")
    check(isinstance(spec.get("cooldownPeriod"), int) and spec["cooldownPeriod"] > 0, "KEDA: cooldownPeriod set")
    beh = (((spec.get("advanced") or {}).get("horizontalPodAutoscalerConfig") or {}).get("behavior") or {})
    up = (beh.get("scaleUp") or {}).get("stabilizationWindowSeconds")
    down = (beh.get("scaleDown") or {}).get("stabilizationWindowSeconds")
    check(isinstance(up, int) and isinstance(down, int) and down > up,
          "KEDA: scale-down stabilization longer than scale-up (smoothing, the seeds' advice)")
    trig = spec.get("triggers") or []
    check(len(trig) == 1 and trig[0].get("type") == "prometheus", "KEDA: one prometheus trigger")
    if not trig:
        return set()
    md = trig[0].get("metadata") or {}
    check("authenticationRef" not in trig[0] and "authModes" not in md, "KEDA: no TriggerAuthentication needed")
    check(all(isinstance(v, str) for v in md.values()), "KEDA: trigger metadata values are all strings")
    check(set(md) >= {"serverAddress", "query", "threshold"}, "KEDA: serverAddress, query, threshold present")
    q = md.get("query", "")
    check("gregor_share_partition_lag" in q and q.startswith("sum("), "KEDA: query is a sum over gregor_share_partition_lag")
    try:
        check(float(md.get("threshold")) > 0, "KEDA: threshold is a positive number")
    except (TypeError, ValueError):
        fail("KEDA: threshold is a number")
    return names_in(q)


def check_grafana(repo):
    path = os.path.join(repo, "docs/examples/grafana-dashboard.json")
    try:
        d = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        fail("grafana-dashboard.json parses: %s" % e)
        return set()
    ok("grafana-dashboard.json parses")
    check(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 36, "Grafana: schemaVersion >= 36")
    tv = {v.get("name"): v for v in (d.get("templating") or {}).get("list", [])}
    check(tv.get("datasource", {}).get("type") == "datasource" and tv["datasource"].get("query") == "prometheus",
          "Grafana: a Prometheus data-source variable")
    check({"group", "topic"} <= set(tv), "Grafana: group and topic variables")
    names, exprs, ids = set(), 0, set()
    for p in d.get("panels", []):
        ids.add(p.get("id"))
        if p.get("type") == "row":
            continue
        ds = p.get("datasource") or {}
        check(ds.get("uid") == "${datasource}", "Grafana panel '%s' uses the data-source variable" % p.get("title"))
        for t in p.get("targets", []):
            exprs += 1
            names |= names_in(t.get("expr", ""))
    for v in tv.values():
        q = v.get("query")
        names |= names_in(q.get("query", "") if isinstance(q, dict) else str(q or ""))
    check(len(ids) == len(d.get("panels", [])), "Grafana: panel ids unique")
    titles = " | ".join(p.get("title", "") for p in d.get("panels", [])).lower()
    for want in ("lag", "acknowledgement", "redeliver", "in flight", "w:", "ceiling", "state write", "request",
                 "bytes in", "fsync", "cpu", "resident", "file descriptors"):
        check(want in titles, "Grafana: a panel about '%s'" % want)
    check(exprs >= 20, "Grafana: %d query expressions" % exprs)
    return names


def documented(repo):
    """name -> type from the tables of docs/metrics.md."""
    out = {}
    for line in open(os.path.join(repo, "docs/metrics.md"), encoding="utf-8"):
        m = re.match(r"\|\s*`((?:gregor|process)_[a-z0-9_]+)`\s*\|\s*(counter|gauge|histogram)\s*\|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def resolve(name, types):
    """The family a name used in a query belongs to, and whether the use fits its type."""
    if name in types:
        return name, types[name] != "histogram"  # a bare histogram name is not a series
    for suf in HIST_SUFFIXES:
        if name.endswith(suf) and types.get(name[: -len(suf)]) == "histogram":
            return name[: -len(suf)], True
    return None, False


def check_names(used, types, where):
    bad = []
    for n in sorted(used):
        fam, fits = resolve(n, types)
        if fam is None or not fits:
            bad.append(n)
    check(not bad, "%d metric names used by the examples are in %s%s"
          % (len(used), where, (": missing or misused " + ", ".join(bad)) if bad else ""))


def live_types(path):
    types = {}
    text = open(path, encoding="utf-8").read()
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)$", line)
        if m:
            types[m.group(1)] = m.group(2)
    return text, types


def main(argv):
    if len(argv) < 3 or argv[1] not in ("docs", "live"):
        print(__doc__, file=sys.stderr)
        return 2
    repo = argv[2]
    used = check_keda(repo) | check_grafana(repo)
    check(len(used) >= 25, "the examples use %d distinct metric names" % len(used))
    doc_types = documented(repo)
    check(len(doc_types) >= 48, "docs/metrics.md documents %d metrics" % len(doc_types))
    check_names(used, doc_types, "docs/metrics.md")
    if argv[1] == "live":
        metrics_file, group, topic = argv[3], argv[4], argv[5]
        if not os.path.isfile(metrics_file):
            fail("no scraped /metrics page at " + metrics_file)
            return 1
        text, types = live_types(metrics_file)
        check(len(types) > 0, "/metrics has %d families" % len(types))
        check_names(used, types, "the live /metrics")
        differ = sorted(n for n in used if n in doc_types and n in types and doc_types[n] != types[n])
        check(not differ, "types in /metrics match docs/metrics.md" + (": " + ", ".join(differ) if differ else ""))
        undocumented = sorted(n for n in types if n not in doc_types)
        check(not undocumented, "every family in /metrics is documented" +
              (": missing " + ", ".join(undocumented) if undocumented else ""))
        sel = 'group="%s",topic="%s"' % (group, topic)
        for fam in ("gregor_share_partition_lag", "gregor_share_records_acquired_total",
                    "gregor_share_in_flight_seconds_count", "gregor_share_record_lock_limit"):
            check(re.search(r"^%s\{[^}]*%s" % (re.escape(fam), re.escape(sel).replace(",", ".*")), text, re.M)
                  is not None, "/metrics has a %s sample for %s" % (fam, sel))
        try:
            from prometheus_client.parser import text_string_to_metric_families
            fams = list(text_string_to_metric_families(text))
            ok("prometheus_client parses the page (%d families)" % len(fams))
        except ImportError:
            print("skip - prometheus_client not importable here (the venv has it)")
        except Exception as e:  # noqa: BLE001 - any parser error is a failure
            fail("prometheus_client parses the page: %s" % e)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
