#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What `iopsample export` costs, against the join a user would write.

    make bench            (or: /usr/bin/python3 bench/export.py BUILD_DIR [SECONDS])

One episode of the iowork workload (2 threads, a child) under all three
sources at 1 ms for SECONDS (default 10), zstd. Then, interleaved, five
times each: `iopsample export` on its 1 ms grid and on a 100 ms grid,
`export --episodes`, and the hand-written pandas join the export replaces
(read each source's rows with `iopsample cat`, flatten them with
json_normalize, bucket by t_mono_ns // grid, sum, merge on the bucket) on
the 100 ms grid, which does less than export (no split of straddling rows,
no gauge or ratio rules). Prints the median of each and its ratio to
export's 100 ms run.
"""
import found
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

SOURCES = ["proc_io", "syscall_io", "perf_event"]


def pandas_join(iopsample, d, grid):
    frames = []
    for s in SOURCES:
        out = subprocess.run([iopsample, "cat", os.path.join(d, s + ".jsonl.zst")],
                             capture_output=True, text=True, check=True).stdout
        rows = [json.loads(line) for line in out.splitlines()]
        df = pd.json_normalize(rows, sep=".").drop(columns=["episode", "source", "seq", "t_wall_ns", "final", "interval_ns", "available_in_deployment"], errors="ignore")
        df = df[[c for c in df.columns if not c.startswith("labels.")]]
        df["cell"] = df.pop("t_mono_ns") // grid
        df = df.apply(pd.to_numeric, errors="coerce").groupby("cell").sum(min_count=1)
        frames.append(df.add_prefix(s + "."))
    table = frames[0]
    for f in frames[1:]:
        table = table.join(f, how="outer")
    return table


def big_episode(iopsample, build, work, seconds, bench):
    """iowork (2 threads, a child) under SOURCES at 1 ms for seconds, zstd,
    into work/episodes/big, labelled bench: bench; its directory."""
    iowork = os.path.abspath(os.path.join(build, "workloads", "iowork"))
    cfg = os.path.join(work, "big.yaml")
    with open(cfg, "w") as f:
        f.write("episode: {name: big, duration: %ds, labels: {bench: %s}}\n"
                "target: {command: [%s, --threads, '2', --children, '1', --rounds, '1000000', --pause-ms, '5']}\n"
                "sources:\n"
                "  proc_io: {interval: 1ms}\n"
                "  syscall_io: {interval: 1ms}\n"
                "  perf_event: {interval: 1ms, events: [page-faults, context-switches, task-clock]}\n"
                "output: {compression: zstd}\n" % (seconds, bench, iowork))
    subprocess.run([iopsample, "run", cfg, "--quiet"])  # stopped by duration: exit 143
    return os.path.join(work, "episodes", "big")


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    iopsample = found.iopsample(build)
    with tempfile.TemporaryDirectory() as work:
        d = big_episode(iopsample, build, work, seconds, "export")
        rows = sum(json.load(open(os.path.join(d, "manifest.json")))["sources"][s]["rows"] for s in SOURCES)
        runs = {
            "export, 1 ms grid": [iopsample, "export", d, "-o", os.path.join(work, "g1.csv")],
            "export, 100 ms grid": [iopsample, "export", d, "--grid", "100ms", "-o", os.path.join(work, "g100.csv")],
            "export --episodes": [iopsample, "export", "--episodes", d, "-o", os.path.join(work, "e.csv")],
            "pandas join, 100 ms": None,
        }
        times = {k: [] for k in runs}
        for _ in range(5):
            for name, argv in runs.items():
                t = time.perf_counter()
                if argv:
                    subprocess.run(argv, check=True)
                else:
                    pandas_join(iopsample, d, 100_000_000)
                times[name].append(time.perf_counter() - t)
        base = statistics.median(times["export, 100 ms grid"])
        print("%d rows in three files; median of 5, interleaved" % rows)
        print("| run | median | / export, 100 ms grid |")
        print("|---|---|---|")
        for name, ts in times.items():
            m = statistics.median(ts)
            print("| %s | %.0f ms | %.2f× |" % (name, m * 1000, m / base))


if __name__ == "__main__":
    main()
