#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""How well zstd output compresses realistic rows, as iopsample writes them.

    make bench            (or: python3 bench/compression.py BUILD_DIR [SECONDS])

A target like the quickstart's (dd writes 2 MiB with fsync, cat reads it
back, a pause; repeated for SECONDS, default 20) runs under all three
sources with the default events and two labels, at 100 ms and at 10 ms,
with `output.compression: zstd` at level 3: a flush at every row and a
frame every 100 rows or 10 s. For each file: rows, bytes per row as JSON,
bytes per row in the .zst, the ratio; and, for reference, the ratio
`zstd -3` gets from the same rows compressed in one go, without a flush per
row. Prints the markdown table docs/benchmarks.md holds.
"""
import found
import json
import os
import subprocess
import sys
import tempfile

SOURCES = ["proc_io", "syscall_io", "perf_event"]


def episode(iopsample, work, name, interval, seconds):
    cfg = os.path.join(work, name + ".yaml")
    loop = ('f=$(mktemp); end=$(($(date +%%s) + %d)); while [ $(date +%%s) -lt $end ]; do '
            'dd if=/dev/zero of="$f" bs=64k count=32 conv=fsync status=none; '
            'cat "$f" >/dev/null; sleep 0.2; done; rm -f "$f"' % seconds)
    with open(cfg, "w") as f:
        f.write("episode: {name: %s, labels: {dataset: bench-v1, workload: dd-cat}}\n"
                "target: {command: %s}\n"
                "sources:\n"
                "  proc_io: {interval: %s}\n"
                "  syscall_io: {interval: %s}\n"
                "  perf_event: {interval: %s}\n"
                "output: {compression: zstd, zstd_level: 3}\n"
                % (name, json.dumps(loop), interval, interval, interval))
    subprocess.run([iopsample, "run", cfg, "--output-dir", work, "--quiet"], check=True)
    return os.path.join(work, name)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    iopsample = found.iopsample(build)
    print("| interval | source | rows | JSON B/row | .zst B/row | ratio | zstd -3 in one go |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for interval in ("100ms", "10ms"):
            d = episode(iopsample, work, "c" + interval, interval, seconds)
            raw_all = z_all = 0
            for s in SOURCES:
                path = os.path.join(d, s + ".jsonl.zst")
                raw = subprocess.run([iopsample, "cat", path], capture_output=True, check=True).stdout
                z = os.path.getsize(path)
                once = len(subprocess.run(["zstd", "-3", "-c"], input=raw, capture_output=True,
                                          check=True).stdout)
                rows = raw.count(b"\n")
                raw_all += len(raw)
                z_all += z
                print("| %s | %s | %d | %.0f | %.1f | %.1f× | %.1f× |" % (
                    interval, s, rows, len(raw) / rows, z / rows, len(raw) / z, len(raw) / once))
            print("| %s | all three | | | | **%.1f×** | |" % (interval, raw_all / z_all))


if __name__ == "__main__":
    main()
