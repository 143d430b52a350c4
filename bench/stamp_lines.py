#!/usr/bin/env python3
"""stamp_lines.py OUT: copies nothing; reads standard input in chunks and writes to OUT one line
"LINES FIRST LAST": the number of newline-terminated lines read and the wall-clock times
(time.time(), seconds) at which the first and the last of them arrived (chunk resolution,
64 KiB reads: a few microseconds at the consumers' speeds). A consumer's output piped through
it gives the first-record -> last-record window of bench/cgroup.sh without a per-line cost."""
import os
import sys
import time


def main(out_path):
    fd, n, first, last = sys.stdin.fileno(), 0, 0.0, 0.0
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        k = chunk.count(b"\n")
        if k:
            last = time.time()
            if not n:
                first = last
            n += k
    with open(out_path, "w") as f:
        f.write("%d %.6f %.6f\n" % (n, first, last))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
