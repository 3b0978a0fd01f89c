#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What `iopsample compare` costs, against `iopsample export` on the same
episode and grid, measured side by side in one run.

    make bench            (or: /usr/bin/python3 bench/compare.py BUILD_DIR [SECONDS])

The episode of docs/at-scale.md's cost figure, as bench/export.py makes it:
the iowork workload (2 threads, a child) under proc_io, syscall_io and
perf_event at 1 ms for SECONDS (default 15), zstd. Then, interleaved, five times each: `export
--grid 50ms` to CSV, and `compare --grid 50ms`, text and JSON (which runs
export itself, to JSON Lines, and reads the cells back). Prints the median
of each and its ratio to export's.
"""
import export
import found
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SOURCES = ["proc_io", "syscall_io", "perf_event"]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    iopsample = found.iopsample(build)
    with tempfile.TemporaryDirectory() as work:
        d = export.big_episode(iopsample, build, work, seconds, "compare")
        rows = sum(json.load(open(os.path.join(d, "manifest.json")))["sources"][s]["rows"] for s in SOURCES)
        runs = {
            "export --grid 50ms (csv)": [iopsample, "export", d, "--grid", "50ms", "-o", os.path.join(work, "g.csv")],
            "compare --grid 50ms (text)": [iopsample, "compare", d, "--grid", "50ms", "-o", os.path.join(work, "c.txt")],
            "compare --grid 50ms --format json": [iopsample, "compare", d, "--grid", "50ms", "--format", "json",
                                                  "-o", os.path.join(work, "c.json")],
        }
        times = {k: [] for k in runs}
        for _ in range(5):
            for name, argv in runs.items():
                t = time.perf_counter()
                subprocess.run(argv, check=True)
                times[name].append(time.perf_counter() - t)
        cells = sum(1 for _ in open(os.path.join(work, "g.csv"))) - 1
        pairs = len(json.load(open(os.path.join(work, "c.json")))["pairs"])
        base = statistics.median(times["export --grid 50ms (csv)"])
        print("%d rows in three files, %d cells, %d pairs; median of 5, interleaved" % (rows, cells, pairs))
        print("| run | median | / export |")
        print("|---|---|---|")
        for name, ts in times.items():
            m = statistics.median(ts)
            print("| %s | %.0f ms | %.2f× |" % (name, m * 1000, m / base))


if __name__ == "__main__":
    main()
