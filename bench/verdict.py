#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What `iopsample verdict` costs on a long episode (issue 49's budget: a
10-minute episode at 10 ms with every source, within 2 s).

    /usr/bin/python3 bench/verdict.py BUILD_DIR [SECONDS] [EPISODE_DIR]

One episode of SECONDS (default 600) at 10 ms with every source (gpu from
NVML's test double where the host has no GPU: build/fixtures/libfake_nvml.so)
over a shell loop that computes, writes and reads 1 MiB and sleeps; or an
EPISODE_DIR already recorded. Then, three times each, side by side: the
verdict (text to /dev/null), the same with --deployable-only, and export
of the same five sources with --format jsonl (the same rows parsed whole,
by jansson, onto the same grid: what the verdict would cost without
picking its leaves). Prints the medians and the ratio. Not a test:
timings on a shared machine are noise except side by side.
"""
import found
import os
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 600
iops = found.iopsample(build)
work = tempfile.mkdtemp(prefix="iopsample-bench-verdict.")

if len(sys.argv) > 3:
    ep = os.path.abspath(sys.argv[3])
else:
    env = dict(os.environ)
    if subprocess.run([iops, "probe"], capture_output=True, text=True).stdout.find('"gpus"') < 0:
        env["IOPSAMPLE_TEST_NVML"] = os.path.join(build, "fixtures", "libfake_nvml.so")
        env["FAKE_NVML_SCRIPT"] = os.path.join(work, "nvml.script")
        with open(env["FAKE_NVML_SCRIPT"], "w") as f:
            f.write("gpu GPU-00000000-fake-0000-0000-000000000000 Fake_H100 5 16\n"
                    "0 gpu_util 10 90 40\n0 pcie_rx 0 100000 200000\n0 pcie_tx 0\n0 mem_util 5\n"
                    "0 mem_used 1073741824\n0 power 70000\n0 sm_clock 1755\n0 temperature 40\n0 throttle 0\n")
    loop = ("while :; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; head -c 1048576 /dev/zero >%s/f; "
            "cat %s/f >/dev/null; sleep 0.01; done" % (work, work))
    with open(os.path.join(work, "long.yaml"), "w") as f:
        f.write("episode: {name: long, output_dir: %s, duration: %ds}\n" % (work, seconds))
        f.write("target: {command: [sh, -c, %s]}\n" % repr(loop).replace("'", '"'))
        f.write("sources:\n")
        for s in ("proc_io", "syscall_io", "block_io", "diskstats", "taskstats", "cgroup", "gpu"):
            f.write("  %s: {interval: 10ms}\n" % s)
        f.write("  perf_event: {interval: 10ms, events: [task-clock, page-faults, context-switches]}\n")
    subprocess.run([iops, "run", os.path.join(work, "long.yaml"), "--quiet"], check=True, env=env)
    ep = os.path.join(work, "long")

rows = {}
for name in sorted(os.listdir(ep)):
    if ".jsonl" in name:
        out = subprocess.run([iops, "cat", os.path.join(ep, name)], capture_output=True, check=True).stdout
        rows[name.split(".")[0]] = (out.count(b"\n"), len(out))


def timed(args):
    t = time.perf_counter()
    subprocess.run([iops] + args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


runs = {"verdict": [], "deployable": [], "export": []}
for _ in range(3):
    runs["verdict"].append(timed(["verdict", ep]))
    runs["deployable"].append(timed(["verdict", ep, "--deployable-only"]))
    runs["export"].append(timed(["export", ep, "--sources", "taskstats,cgroup,diskstats,gpu,block_io",
                                 "--format", "jsonl", "-o", os.path.join(work, "cells.jsonl")]))
med = {k: statistics.median(v) for k, v in runs.items()}
read = ("taskstats", "cgroup", "diskstats", "gpu", "block_io")
print("episode %s: %s" % (ep, ", ".join("%s %d rows %.1f MB" % (k, n, b / 1e6) for k, (n, b) in rows.items())))
print("the verdict reads %d rows, %.1f MB" % (sum(rows[k][0] for k in read if k in rows),
                                               sum(rows[k][1] for k in read if k in rows) / 1e6))
print("verdict %.2f s, --deployable-only %.2f s, export of the same sources %.2f s (medians of 3; all runs %s)"
      % (med["verdict"], med["deployable"], med["export"], {k: [round(x, 2) for x in v] for k, v in runs.items()}))
print("export / verdict: %.1f x" % (med["export"] / med["verdict"]))
