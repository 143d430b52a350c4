#!/usr/bin/env bash
# Byte-exact data interop of libgregor with kcat and the Java clients, per codec
# (none gzip snappy lz4 zstd):
#  - kcat -P -z CODEC writes topic A (keys, null and empty keys, empty and null values,
#    binary values, a ~100 KiB value, headers incl. null / empty / duplicate / non-ASCII);
#  - the Java KafkaProducer (compression.type=CODEC, CodecProduce) writes topic B (2
#    partitions; null key, null value, binary headers, ~100 KiB values);
#  - libgregor (client_codec_dump produce, compression.type=CODEC) writes topic C the same way;
#  - libgregor (client_codec_dump dump) reads A and B, kcat -C and the Java KafkaConsumer
#    (CodecDump, assign + seekToBeginning, no group) read C; every reader's output, in the
#    canonical form "TOPIC PARTITION OFFSET KEY VALUE HEADERS" (hex bytes, "null"), must equal
#    the canonical form of what the test generated (deterministic input), byte for byte;
#  - a raw Fetch of every topic checks that each stored batch carries the codec in its
#    attributes (a producer silently not compressing fails) and holds the expected records.
#   bash tests/interop/test_libgregor_codecs.sh [--ref | --bootstrap H:P] [--keep]
# Env: GR_CODECS_RECORDS (records per codec per producer, default 200, plus a few large ones),
#   GR_CODECS (default "none gzip snappy lz4 zstd").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require kcat java python3
N="${GR_CODECS_RECORDS:-200}"
read -r -a CODECS <<<"${GR_CODECS:-none gzip snappy lz4 zstd}"
DUMP="$GR_BUILD_DIR/client_codec_dump"
[[ -x "$DUMP" ]] || die "client_codec_dump not built in $GR_BUILD_DIR"
JDIR="$GR_SOURCE_DIR/tests/interop/java"
JCP="$JDIR/target/java-interop-1.jar:$JDIR/target/lib/*"
for c in CodecProduce CodecDump; do
  unzip -l "$JDIR/target/java-interop-1.jar" 2>/dev/null | grep "dev/gregor/interop/$c.class" >/dev/null \
    || die "$c missing from $JDIR/target/java-interop-1.jar (rebuild: scripts/install-deps.sh)"
done
start_target

RUN="$RANDOM"
ta() { echo "lgc-$RUN-a-$1"; }   # kcat -> libgregor
tb() { echo "lgc-$RUN-b-$1"; }   # Java -> libgregor
tc() { echo "lgc-$RUN-c-$1"; }   # libgregor -> kcat, Java
G="$GR_TMP/gen"
mkdir -p "$G"

# ---------------------------------------------------------------- inputs and expected outputs
# Per codec: kcat inputs (3 invocations: delimited lines; lines with -Z; whole files with -k),
# the producer inputs of the Java program and of libgregor, and the canonical form expected
# back. Records of one producer to one partition get consecutive offsets from 0 in send order.
python3 - "$G" "$N" "$RUN" "${CODECS[@]}" <<'PY'
import os, random, sys
out, n, run, codecs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
KD, MD = 0x1F, 0x1E   # kcat -K / -D delimiters: never inside kcat keys or values
KCAT_H_AVOID = b"\0,=\n"   # header value bytes kcat -C cannot print unambiguously (topic C)

def hx(b): return "null" if b is None else "x" + b.hex()
def hdrs(hs): return "[" + ",".join("x%s=%s" % (k.encode().hex(), hx(v)) for k, v in hs) + "]"
def canon(topic, part, off, k, v, hs): return "%s %d %d %s %s %s" % (topic, part, off, hx(k), hx(v), hdrs(hs))

def rbytes(r, n, avoid=b""):
    alphabet = [c for c in range(256) if c not in avoid]
    return bytes(r.choice(alphabet) for _ in range(n))

def value(r, i, avoid=b""):
    """Mixed sizes and content: text, binary, repetitive."""
    kind = i % 4
    if kind == 0: return ("value-%05d-" % i).encode() + bytes(r.choice(b"abcdefghij") for _ in range(r.randint(0, 60)))
    if kind == 1: return rbytes(r, r.randint(1, 300), avoid)
    if kind == 2: return rbytes(r, 16, avoid) * r.randint(1, 200)
    return rbytes(r, r.randint(300, 3000), avoid)

def big_repetitive(r, avoid=b""):   # ~100 KiB, every byte value, compressible by every codec
    block = bytes(c for c in range(256) if c not in avoid) + rbytes(r, 768, avoid)
    return block * 100

# ---- kcat (topic A, one partition)
H1 = [("trace", b"abc-123"), ("empty", b""), ("nullh", None), ("dup", b"1"), ("dup", b"2"),
      ("utf-\u00fc", "\u00fcn\u00ef".encode())]
H3 = [("bin", b"\x01\x02\xff\xfe"), ("k", b"v")]
def harg(hs): return b"".join(b"-H\0" + k.encode() + (b"" if v is None else b"=" + v) + b"\0" for k, v in hs)

# ---- Java / libgregor (topics B and C, two partitions)
def records(r, i_max, kcat_safe_headers):
    recs = []
    for i in range(i_max):
        k = None if i % 10 == 0 else b"" if i % 10 == 1 else ("key-%05d" % i).encode() + rbytes(r, i % 3)
        v = None if i % 17 == 0 else b"" if i % 13 == 0 else value(r, i)
        hs = []
        if i % 5:
            pool = [("trace", ("t-%d" % i).encode()), ("empty", b""), ("nullh", None), ("dup", b"1"),
                    ("dup", b"2"), ("utf-\u00fc", "\u00fcn\u00ef".encode())]
            if kcat_safe_headers:   # kcat %h prints name=value,... with printf: no NUL, ',', '=', newline
                pool.append(("bin", rbytes(r, r.randint(1, 40), KCAT_H_AVOID)))
            else:
                pool.append(("bin", rbytes(r, r.randint(1, 40))))
            hs = [r.choice(pool) for _ in range(r.randint(1, 4))]
        recs.append((i % 2, k, v, hs))
    recs.append((0, b"big-random", rbytes(r, 100 * 1024), [("size", b"100KiB")]))
    recs.append((1, b"big-repetitive", big_repetitive(r), []))
    recs.append((0, None, None, []))
    recs.append((1, b"all-bytes", bytes(range(256)) * 4, [("all", bytes(range(256)) if not kcat_safe_headers
                                                           else bytes(c for c in range(256) if c not in KCAT_H_AVOID))]))
    return recs

for z in codecs:
    r = random.Random("codecs-%s" % z)
    ta, tb, tc = ("lgc-%s-%s-%s" % (run, x, z) for x in "abc")
    exp_a = []
    # invocation 1: delimited lines with the headers H1
    buf = bytearray()
    for i in range(n):
        m = i % 7
        k = None if m == 0 else b"" if m == 1 else ("k%05d-" % i).encode() + rbytes(r, i % 4, bytes([KD, MD]))
        v = value(r, i, bytes([KD, MD]))
        if m == 2 and k: v = b""                      # empty value
        if k is None and not v: v = b"x"              # an empty line would be skipped by kcat
        buf += (b"" if k is None else k + bytes([KD])) + v + bytes([MD])
        exp_a.append((k, v, H1))
    open(os.path.join(out, "kcat-1-" + z), "wb").write(buf)
    open(os.path.join(out, "kcat-1-" + z + ".h"), "wb").write(harg(H1))
    # invocation 2: -Z, no headers: an empty key or value is sent as null
    buf = bytearray()
    for i in range(20):
        k = ("z%03d" % i).encode()
        v = b"" if i % 3 == 0 else ("zv-%d" % i).encode()
        if i % 4 == 1: k = b""
        if not k and not v: v = b"zv"              # both empty: not what this invocation checks
        buf += k + bytes([KD]) + v + bytes([MD])
        exp_a.append((k or None, v or None, []))
    open(os.path.join(out, "kcat-2-" + z), "wb").write(buf)
    # invocation 3: whole files as values (any byte), fixed key, headers H3
    files = [bytes(range(256)) * 4, big_repetitive(r), value(r, 3) + bytes(range(256))]
    for j, data in enumerate(files):
        open(os.path.join(out, "kcat-3-%s-%d" % (z, j)), "wb").write(data)
        exp_a.append((b"file-key", data, H3))
    open(os.path.join(out, "kcat-3-" + z + ".h"), "wb").write(harg(H3))
    with open(os.path.join(out, "expect-a-" + z), "w") as f:
        for off, (k, v, hs) in enumerate(exp_a):
            print(canon(ta, 0, off, k, v, hs), file=f)
    # Java -> B, libgregor -> C
    for topic, name, safe in ((tb, "b", False), (tc, "c", True)):
        recs = records(r, n, safe)
        offs = [0, 0]
        with open(os.path.join(out, "in-%s-%s" % (name, z)), "w") as fin, \
             open(os.path.join(out, "expect-%s-%s" % (name, z)), "w") as fexp:
            for p, k, v, hs in recs:
                print("%s %d %s %s %s" % (topic, p, hx(k), hx(v), hdrs(hs)), file=fin)
                print(canon(topic, p, offs[p], k, v, hs), file=fexp)
                offs[p] += 1
PY

# canonical sort: topic, partition, offset
csort() { LC_ALL=C sort -t ' ' -k1,1 -k2,2n -k3,3n; }
# compare NAME EXPECTED_FILE GOT_FILE
compare() {
  local name="$1" want="$2" got="$3" nw ng
  csort <"$want" >"$want.sorted"
  nw=$(wc -l <"$want"); ng=$(wc -l <"$got")
  if cmp -s "$want.sorted" "$got"; then
    ok "$name: $ng records byte-identical"
  else
    fail "$name: differs from what was sent (expected $nw records, got $ng; first difference:)"
    diff "$want.sorted" "$got" | head -n 4 | cut -c1-300 || true
  fi
}

# ---------------------------------------------------------------- producers
topics=""
for z in "${CODECS[@]}"; do topics+="${topics:+,}$(ta "$z"):1,$(tb "$z"):2,$(tc "$z"):2"; done
jargs=()
for z in "${CODECS[@]}"; do jargs+=("$z=$G/in-b-$z"); done
out="$(gr_timeout 300 java -Xmx512m -cp "$JCP" dev.gregor.interop.CodecProduce "$BOOTSTRAP" "$topics" "${jargs[@]}" \
  2>"$GR_TMP/java-produce.err")" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "CodecProduce did not finish: $(grep -v '^\s*at ' "$GR_TMP/java-produce.err" | tail -n 5)"

for z in "${CODECS[@]}"; do
  t="$(ta "$z")"
  kc=(kcat -P -b "$BOOTSTRAP" -t "$t" -p 0 -z "$z" -X enable.idempotence=true -X message.timeout.ms=60000 -q)
  mapfile -d '' h1 <"$G/kcat-1-$z.h"
  mapfile -d '' h3 <"$G/kcat-3-$z.h"
  if gr_timeout 120 "${kc[@]}" -K '\x1f' -D '\x1e' "${h1[@]}" -l "$G/kcat-1-$z" 2>"$GR_TMP/kcat-p-$z.err" \
     && gr_timeout 120 "${kc[@]}" -K '\x1f' -D '\x1e' -Z -l "$G/kcat-2-$z" 2>>"$GR_TMP/kcat-p-$z.err" \
     && gr_timeout 120 "${kc[@]}" -k file-key "${h3[@]}" "$G/kcat-3-$z-0" "$G/kcat-3-$z-1" "$G/kcat-3-$z-2" \
          2>>"$GR_TMP/kcat-p-$z.err"; then
    ok "kcat -P -z $z: $(wc -l <"$G/expect-a-$z") records produced"
  else
    fail "kcat -P -z $z failed: $(tail -n 3 "$GR_TMP/kcat-p-$z.err")"
  fi
  if res="$(gr_timeout 120 "$DUMP" produce -b "$BOOTSTRAP" -X compression.type="$z" -f "$G/in-c-$z" 2>&1)"; then
    ok "libgregor producer compression.type=$z: $res"
  else
    fail "libgregor producer compression.type=$z: $res"
  fi
done

# ---------------------------------------------------------------- libgregor reads kcat's and Java's records
ab=()
for z in "${CODECS[@]}"; do ab+=("$(ta "$z")" "$(tb "$z")"); done
if gr_timeout 180 "$DUMP" dump -b "$BOOTSTRAP" -w 120 "${ab[@]}" >"$GR_TMP/lg-dump.raw" 2>"$GR_TMP/lg-dump.err"; then
  ok "libgregor consumer read ${#ab[@]} topics to their end"
else
  fail "libgregor consumer: $(tail -n 3 "$GR_TMP/lg-dump.err")"
fi
csort <"$GR_TMP/lg-dump.raw" >"$GR_TMP/lg-dump.txt"
for z in "${CODECS[@]}"; do
  grep "^$(ta "$z") " "$GR_TMP/lg-dump.txt" >"$GR_TMP/got-a-$z" || true
  grep "^$(tb "$z") " "$GR_TMP/lg-dump.txt" >"$GR_TMP/got-b-$z" || true
  compare "kcat -z $z -> libgregor consumer" "$G/expect-a-$z" "$GR_TMP/got-a-$z"
  compare "Java producer $z -> libgregor consumer" "$G/expect-b-$z" "$GR_TMP/got-b-$z"
done

# ---------------------------------------------------------------- kcat and Java read libgregor's records
# kcat -C prints, per record, "TOPIC PARTITION OFFSET KEYLEN VALUELEN\n" then the key and value
# bytes, then the headers as name=value,... and a newline; kcat_canon turns that into the canonical form.
kcat_canon() {
  python3 -c '
import sys
data = sys.stdin.buffer.read(); p = 0
def hx(b): return "null" if b is None else "x" + b.hex()
while p < len(data):
    e = data.index(b"\n", p); t, part, off, kl, vl = data[p:e].decode().split(" "); p = e + 1
    kl, vl = int(kl), int(vl)
    k = None if kl < 0 else data[p:p + kl]; p += max(kl, 0)
    v = None if vl < 0 else data[p:p + vl]; p += max(vl, 0)
    e = data.index(b"\n", p); hs = data[p:e]; p = e + 1
    hl = []
    for h in (hs.split(b",") if hs else []):
        name, val = h.split(b"=", 1)
        hl.append("x%s=%s" % (name.hex(), "null" if val == b"NULL" else hx(val)))
    print("%s %s %s %s %s [%s]" % (t, part, off, hx(k), hx(v), ",".join(hl)))
'
}
cs=()
for z in "${CODECS[@]}"; do cs+=("$(tc "$z")"); done
if gr_timeout 180 java -Xmx512m -cp "$JCP" dev.gregor.interop.CodecDump "$BOOTSTRAP" 120 "${cs[@]}" \
     >"$GR_TMP/java-dump.raw" 2>"$GR_TMP/java-dump.err"; then
  ok "Java KafkaConsumer read ${#cs[@]} topics to their end"
else
  fail "Java KafkaConsumer (CodecDump): $(grep -v '^\s*at ' "$GR_TMP/java-dump.err" | tail -n 3)"
fi
csort <"$GR_TMP/java-dump.raw" >"$GR_TMP/java-dump.txt"
for z in "${CODECS[@]}"; do
  t="$(tc "$z")"
  cnt=$(wc -l <"$G/expect-c-$z")
  gr_timeout 120 kcat -C -b "$BOOTSTRAP" -t "$t" -o beginning -c "$cnt" -e -q \
    -f '%t %p %o %K %S\n%k%s%h\n' 2>"$GR_TMP/kcat-c-$z.err" | kcat_canon | csort >"$GR_TMP/got-kcat-c-$z" \
    || fail "kcat -C $t: $(tail -n 3 "$GR_TMP/kcat-c-$z.err")"
  compare "libgregor producer $z -> kcat" "$G/expect-c-$z" "$GR_TMP/got-kcat-c-$z"
  grep "^$t " "$GR_TMP/java-dump.txt" >"$GR_TMP/got-java-c-$z" || true
  compare "libgregor producer $z -> Java consumer" "$G/expect-c-$z" "$GR_TMP/got-java-c-$z"
done

# ---------------------------------------------------------------- stored batches carry the codec
# A raw Fetch (v11) of every partition: each batch's attributes (bits 0-2) must name the codec
# and the batches must hold the expected number of records per partition.
checks=()
for z in "${CODECS[@]}"; do
  for x in a b c; do checks+=("$z" "lgc-$RUN-$x-$z" "$G/expect-$x-$z"); done
done
out="$(PYTHONPATH="$GR_SOURCE_DIR/tests/integration" gr_timeout 120 python3 - "$BOOTSTRAP" "${checks[@]}" \
  2>"$GR_TMP/codec-check.err" <<'PY'
import struct, sys
from produce_fetch_wire import Conn, parse_fetch, s16
CODEC = dict(none=0, gzip=1, snappy=2, lz4=3, zstd=4)
boot, args = sys.argv[1], sys.argv[2:]
c = Conn(boot)

def fetch(topic, part, offset):
    body = struct.pack(">iiiibii", -1, 0, 1, 50 << 20, 0, 0, -1)
    body += struct.pack(">i", 1) + s16(topic) + struct.pack(">i", 1)
    body += struct.pack(">iiqqi", part, -1, offset, -1, 8 << 20)
    body += struct.pack(">i", 0) + s16("")
    return parse_fetch(c.call(1, 11, body))["parts"][0]

for i in range(0, len(args), 3):
    z, topic, expect = args[i:i + 3]
    want = {}
    for line in open(expect):
        p = int(line.split(" ")[1]); want[p] = want.get(p, 0) + 1
    bad, batches, got = [], 0, {}
    for part in sorted(want):
        off = 0
        while off < want[part]:
            r = fetch(topic, part, off)
            recs, pos = r["records"] or b"", 0
            if r["err"] or not recs:
                bad.append("partition %d offset %d: error %d, %d bytes" % (part, off, r["err"], len(recs))); break
            while pos + 61 <= len(recs):
                base, blen = struct.unpack_from(">qi", recs, pos)
                if pos + 12 + blen > len(recs): break
                magic = recs[pos + 16]; attrs = struct.unpack_from(">h", recs, pos + 21)[0]
                last_delta = struct.unpack_from(">i", recs, pos + 23)[0]
                count = struct.unpack_from(">i", recs, pos + 57)[0]
                batches += 1
                if magic != 2 or attrs & 7 != CODEC[z]:
                    bad.append("batch at offset %d: magic %d, codec %d" % (base, magic, attrs & 7))
                got[part] = got.get(part, 0) + count
                off = base + last_delta + 1
                pos += 12 + blen
            if pos == 0:
                bad.append("partition %d offset %d: no whole batch in %d bytes" % (part, off, len(recs))); break
    ok = not bad and got == want
    print(("ok   - " if ok else "FAIL - ") + "%s: %d stored batches, each with codec %s (id %d) in its attributes, "
          "records per partition %s%s" % (topic, batches, z, CODEC[z], got,
                                         "" if ok else " (want %s): %s" % (want, "; ".join(bad[:3]))))
print("done")
PY
)" || true
echo "$out"
GR_PASSED=$((GR_PASSED + $(grep -c '^ok ' <<<"$out" || true)))
GR_FAILED=$((GR_FAILED + $(grep -c '^FAIL ' <<<"$out" || true)))
grep -qx 'done' <<<"$out" || fail "codec check did not finish: $(tail -n 3 "$GR_TMP/codec-check.err")"
stop_target
[[ "$GR_TARGET" != gregord || "$GR_GREGORD_EXIT" == 0 ]] \
  && ok "broker stopped cleanly on SIGTERM" || fail "gregord exit status $GR_GREGORD_EXIT after SIGTERM"
gr_finish
