#!/usr/bin/env python3
"""The cgroup source's cost per tick against the size of the tree.

    make bench            (or: python3 bench/cgroup_scale.py BUILD_DIR [REPEATS] [SECONDS])

An idle target of 1 or 512 processes (tests/workloads/iowork --sleep-ms with
--sleepers) runs SECONDS (default 5) with the cgroup source alone at 10 ms;
the sampler's CPU time (the manifest's cpu_ns) over its rows is the cost of
a tick. The two sizes alternate, REPEATS times (default 3), in one run:
medians, and the median of the per-pair ratios (512 over 1). The source
reads a fixed set of files whatever the tree; only cgroup.procs grows with
it: the kernel walks every task to list them, so nprocs is the pids
controller's count of tasks, which it keeps as they come and go. Prints the markdown table docs/benchmarks.md holds.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def episode(build, work, name, procs, seconds):
    cfg = os.path.join(work, name + ".yaml")
    with open(cfg, "w") as f:
        f.write("episode: {name: %s, output_dir: %s, duration: %ds}\n" % (name, work, seconds))
        f.write("target: {command: [%s/workloads/iowork, --sleep-ms, \"%d\", --sleepers, \"%d\"], stdout: null}\n"
                % (build, seconds * 1000 + 5000, procs - 1))
        f.write("sources: {cgroup: {interval: 10ms}}\n")
    subprocess.run([os.path.join(build, "iopsample"), "run", cfg, "--quiet"], check=True)
    m = json.load(open(os.path.join(work, name, "manifest.json")))
    s = m["sources"]["cgroup"]
    procs_seen = max(json.loads(l)["nprocs"] or 0 for l in open(os.path.join(work, name, "cgroup.jsonl")))
    return s["cpu_ns"] / s["rows"], s["rows"], s["missed_ticks"], procs_seen


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    work = tempfile.mkdtemp(prefix="iopsample-bench-cgroup-")
    per = {1: [], 512: []}
    rows = {1: [], 512: []}
    seen = {}
    ratios = []
    for r in range(repeats):
        one = episode(build, work, "one%d" % r, 1, seconds)
        many = episode(build, work, "many%d" % r, 512, seconds)
        for n, res in ((1, one), (512, many)):
            per[n].append(res[0])
            rows[n].append("%d (%d missed)" % (res[1], res[2]))
            seen[n] = res[3]
        ratios.append(many[0] / one[0])
    print("| processes in the tree | sampler CPU per 10 ms tick (median) | rows (missed ticks), each run | tasks the cgroup counted (nprocs) |")
    print("|---|---|---|---|")
    for n in (1, 512):
        print("| %d | %.1f µs | %s | %d |" % (n, statistics.median(per[n]) / 1000, ", ".join(rows[n]), seen[n]))
    print()
    print("512 over 1, each pair's ratio: %s; median %.2f×" % (", ".join("%.2f" % x for x in ratios), statistics.median(ratios)))


if __name__ == "__main__":
    main()
