#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""offcpu's cost where it is paid: in the scheduler, on every context switch
of the host, against the sched_switch program proc_io's bpf backend already
runs there (collectors/common/ebpf/tree.bpf.h).

    python3 bench/offcpu.py BUILD_DIR [REPEATS]

One episode at a time with offcpu and proc_io (backend bpf) both, its
target `perf bench sched pipe` (two processes handing a token back and
forth through pipes: some hundred thousand switches a second, each of them
the tree's). With kernel.bpf_stats_enabled the kernel times every run of
every program; `bpftool prog show`, polled while the episode runs, gives
each of iopsample's programs' run count and time. Each program's time per
run is its time per switch (sched_switch) or per wake-up; the two
sched_switch programs' are set side by side, their ratio per episode, and
the median over REPEATS (default 5) episodes. A switch of a thread outside
the tree costs each program its two lookups, and is among the runs.

Needs root. Prints the markdown docs/benchmarks.md holds.
"""
import found
import os
import statistics
import subprocess
import sys
import tempfile

from block_io import program_time

LOOPS = 400000


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    iopsample = found.iopsample(build)
    work = tempfile.mkdtemp(prefix="iopsample-offcpu-bench.")
    cfg = os.path.join(work, "switches.yaml")
    with open(cfg, "w") as f:
        f.write("episode: {name: switches, output_dir: %s}\n" % work)
        f.write("target: {command: [perf, bench, sched, pipe, -l, '%d']}\n" % LOOPS)
        f.write("sources:\n  offcpu: {interval: 100ms}\n  proc_io: {interval: 100ms, backend: bpf}\n")
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"], check=True)
    per, last = [], None
    try:
        for i in range(repeats):
            by = program_time([iopsample, "run", cfg, "--name", "switches-%d" % i, "--quiet"], ("iops_", "offcpu_"))
            sw, tree = by.get("offcpu_switch"), by.get("iops_tree_switch")
            if not sw or not tree or not sw[0] or not tree[0]:
                raise SystemExit("no run of offcpu_switch or iops_tree_switch: %s" % by)
            per.append((sw[1] / sw[0], tree[1] / tree[0]))
            last = by
    finally:
        subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"])
        subprocess.run(["rm", "-rf", work])
    ratios = sorted(a / b for a, b in per)
    print("Program time per run (kernel.bpf_stats_enabled), `perf bench sched pipe -l %d` as the tree, "
          "offcpu and proc_io (bpf) in one episode; %d episodes:" % (LOOPS, repeats))
    print()
    print("| program (the last episode) | runs | ns a run |")
    print("|---|---:|---:|")
    for name in sorted(last):
        runs, ns = last[name]
        print("| %s | %d | %.0f |" % (name, runs, ns / runs if runs else 0))
    print()
    print("| episode | offcpu_switch ns a switch | iops_tree_switch ns a switch | ratio |")
    print("|---:|---:|---:|---:|")
    for i, (a, b) in enumerate(per):
        print("| %d | %.0f | %.0f | %.2f |" % (i + 1, a, b, a / b))
    print()
    print("offcpu's sched_switch program costs %.2f times proc_io's a switch (median of %d; %.2f to %.2f)"
          % (statistics.median(ratios), repeats, ratios[0], ratios[-1]))


if __name__ == "__main__":
    main()
