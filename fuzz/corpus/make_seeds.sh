#!/bin/sh
# Regenerate the request seed corpora from the wire captures in tests/data.
#   fuzz/corpus/make_seeds.sh [WIRE_CAPTURES_DIR]
# Each seed is one request frame without its 4-byte length prefix, filed under
# fuzz/corpus/fuzz_req_<api key>/ (and a few under fuzz_request_header/).
# Seeds over 4 KiB are left out and at most 6 distinct seeds are kept per key,
# smallest first, so the checked-in corpus stays small.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../tests/data/wire-captures}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$src"/*/*-request.bin; do
    size=$(wc -c <"$f")
    [ "$size" -le 4100 ] || continue
    key=$(od -An -tu2 --endian=big -j4 -N2 "$f" | tr -d ' ')
    mkdir -p "$tmp/$key"
    tail -c +5 "$f" >"$tmp/$key/$(basename "$(dirname "$f")")-$(basename "$f" .bin)"
done
for d in "$tmp"/*; do
    key=$(basename "$d")
    out=$here/fuzz_req_$key
    rm -rf "$out"
    mkdir -p "$out"
    # distinct contents, smallest first
    ls -S -r "$d" | while read -r name; do
        sum=$(sha1sum <"$d/$name" | cut -c1-16)
        [ -e "$out/$sum" ] || cp "$d/$name" "$out/$sum"
        [ "$(ls "$out" | wc -l)" -lt 6 ] || break
    done
done
rm -rf "$here/fuzz_request_header"
mkdir -p "$here/fuzz_request_header"
for key in 0 3 18 78; do
    [ -d "$here/fuzz_req_$key" ] && cp "$(ls -d "$here/fuzz_req_$key"/* | head -1)" "$here/fuzz_request_header/api_$key"
done
echo "seeds: $(find "$here" -type f ! -name '*.sh' | wc -l) files, $(du -sk "$here" | cut -f1) KiB"
