#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What docs/recipes/dask_export.py costs, against `iopsample export`.

    make bench      (or: /usr/bin/python3 bench/dask_export.py BUILD_DIR [EPISODES] [SECONDS])

EPISODES (default 12) episodes of the iowork workload under proc_io,
syscall_io and perf_event at 10 ms for SECONDS (default 3) each, half
zstd. Then, interleaved, five times each, the same table (--grid 50ms):
`iopsample export`; the recipe starting its own LocalCluster of 1 and of 2
workers (what a user's run costs, start-up included); and the recipe on a
cluster of 1 and of 2 workers started beforehand (--scheduler: the work
alone). Every CSV is checked equal to export's. Prints the median of each
and its ratio to export's, as docs/benchmarks.md holds them.
"""
import found
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

RECIPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "recipes",
                      "dask_export.py")
CLUSTER = """
import logging, sys, threading
from dask.distributed import LocalCluster
if __name__ == "__main__":
    with LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address="127.0.0.1:0",
                      worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as c:
        print(c.scheduler_address, flush=True)
        sys.stdin.read()  # until the bench closes it
"""


def timed(argv, env):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    iopsample = found.iopsample(build)
    env = dict(os.environ, PATH=build + ":" + os.environ["PATH"])
    with tempfile.TemporaryDirectory() as work:
        dirs = []
        for i in range(n):
            cfg = os.path.join(work, "e%d.yaml" % i)
            with open(cfg, "w") as f:
                f.write("episode: {name: e%02d, duration: %ds, output_dir: %s/episodes, labels: {i: '%d'}}\n"
                        "target: {command: [%s, --threads, '2', --children, '1', --rounds, '1000000', "
                        "--pause-ms, '5']}\n"
                        "sources:\n  proc_io: {interval: 10ms}\n  syscall_io: {interval: 10ms}\n"
                        "  perf_event: {interval: 10ms, events: [page-faults, context-switches, task-clock]}\n"
                        "output: {compression: %s}\n"
                        % (i, seconds, work, i, os.path.join(build, "workloads", "iowork"),
                           "zstd" if i % 2 else "none"))
            subprocess.run([iopsample, "run", cfg, "--quiet"], check=True)
            dirs.append(os.path.join(work, "episodes", "e%02d" % i))
        rows = sum(v["rows"] for d in dirs
                   for v in json.load(open(os.path.join(d, "manifest.json")))["sources"].values())
        clusters = {}
        for w in (1, 2):
            p = subprocess.Popen([sys.executable, "-c", CLUSTER, str(w)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, start_new_session=True)
            clusters[w] = (p, p.stdout.readline().strip())
        out = lambda name: os.path.join(work, name + ".csv")
        ways = {
            "iopsample export": [iopsample, "export", *dirs, "--grid", "50ms", "-o", out("export")],
            "recipe, own LocalCluster of 1 worker": [sys.executable, RECIPE, *dirs, "--grid", "50ms",
                                                     "--workers", "1", "-o", out("own1")],
            "recipe, own LocalCluster of 2 workers": [sys.executable, RECIPE, *dirs, "--grid", "50ms",
                                                      "--workers", "2", "-o", out("own2")],
            "recipe, running cluster of 1 worker": [sys.executable, RECIPE, *dirs, "--grid", "50ms",
                                                    "--scheduler", clusters[1][1], "-o", out("run1")],
            "recipe, running cluster of 2 workers": [sys.executable, RECIPE, *dirs, "--grid", "50ms",
                                                     "--scheduler", clusters[2][1], "-o", out("run2")],
        }
        times = {k: [] for k in ways}
        try:
            for _ in range(5):
                for k, argv in ways.items():
                    times[k].append(timed(argv, env))
        finally:
            for p, _ in clusters.values():
                p.stdin.close()
                p.wait()
        want = open(out("export"), "rb").read()
        for name in ("own1", "own2", "run1", "run2"):
            assert open(out(name), "rb").read() == want, name + ": not export's CSV"
        cells = want.count(b"\n") - 1
        cpu = subprocess.run(["grep", "-m1", "model name", "/proc/cpuinfo"], capture_output=True,
                             text=True).stdout.split(":")[-1].strip()
        print("Host: %s, %d CPUs. %d episodes of %d s, 3 sources at 10 ms (%d rows, half of the "
              "episodes zstd), --grid 50ms: %d cells; every CSV equal to export's, byte for "
              "byte. Median of 5 interleaved runs.\n"
              % (cpu, os.cpu_count(), n, seconds, rows, cells))
        print("| way | wall time | against export |")
        print("|---|---|---|")
        base = statistics.median(times["iopsample export"])
        for k, v in times.items():
            m = statistics.median(v)
            print("| %s | %.3f s | %.1f× |" % (k, m, m / base))


if __name__ == "__main__":
    main()
