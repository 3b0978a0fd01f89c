#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""block_io's cost on a block-heavy workload: 100 000 O_DIRECT reads of
4 KiB on a loop device over a file in /dev/shm, untraced, under
`iopsample run` with block_io, and under bpftrace counting the same
tracepoints (the tree's bios at block_bio_queue with a size histogram, and
issue-to-completion latency keyed by the request), interleaved REPEATS
times (default 5); the median of each and its ratio to untraced.

    make bench            (or: python3 bench/block_io.py BUILD_DIR [REPEATS])

Needs root and a free loop device (detached at the end however it ends).
bpftrace 0.17 reads block tracepoints through tracefs: mounted here if it
is not. Prints the markdown docs/benchmarks.md holds.
"""
import found
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

READS = 100000
TRACEFS = "/sys/kernel/tracing"
BPFTRACE = """
tracepoint:block:block_bio_queue /pid == cpid/ { @ops = count(); @size = hist(args->nr_sector * 512); }
tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
  @lat = hist((nsecs - @start[args->dev, args->sector]) / 1000); delete(@start[args->dev, args->sector]); }
"""


def timed(argv):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    iopsample = found.iopsample(build)
    blkwork = os.path.join(build, "workloads", "blkwork")
    mounted = not os.path.ismount(TRACEFS)
    if mounted:
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
    work = tempfile.mkdtemp(prefix="iopsample-bench-")
    img = "/dev/shm/iopsample-bench-%d.img" % os.getpid()
    subprocess.run(["truncate", "-s", "64M", img], check=True)
    loop = subprocess.run(["losetup", "-f", "--show", img], check=True, capture_output=True,
                          text=True).stdout.strip()
    try:
        workload = [blkwork, "reads", loop, str(READS)]
        n = [0]
        counted = []

        def episode():
            n[0] += 1
            path = os.path.join(work, "b%d.yaml" % n[0])
            with open(path, "w") as f:
                f.write("episode: {name: b%d, output_dir: %s}\n" % (n[0], work))
                f.write("target: {command: %s, stdout: \"null\"}\n" % json.dumps(workload))
                f.write("sources: {block_io: {devices: [%s]}}\n" % os.path.basename(loop))
            t = timed([iopsample, "run", path, "--quiet"])
            rows = [json.loads(l) for l in open(os.path.join(work, "b%d" % n[0], "block_io.jsonl"))]
            counted.append(sum(r["read_ops"] for r in rows))
            return t

        ways = {
            "untraced": lambda: timed(workload),
            "block_io": episode,
            "bpftrace": lambda: timed(["bpftrace", "-e", BPFTRACE, "-c", " ".join(workload)]),
        }
        times = {k: [] for k in ways}
        for _ in range(repeats):
            for k, run in ways.items():
                times[k].append(run())
        med = {k: statistics.median(v) for k, v in times.items()}
        cpu = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip()
        bt = subprocess.run(["bpftrace", "--version"], capture_output=True, text=True).stdout.strip()
        print("Host: %s, %d CPUs, kernel %s; %s. %s on %s over a file in /dev/shm, median of %d "
              "interleaved runs." % (cpu, os.cpu_count(), os.uname().release, bt,
                                     "%d O_DIRECT 4 KiB reads" % READS, loop, repeats))
        print()
        print("| untraced | iopsample, block_io | bpftrace, the same tracepoints |")
        print("|---|---|---|")
        cell = lambda k: "%.3f s (%.2f×)" % (med[k], med[k] / med["untraced"])
        print("| %.3f s | %s | %s |" % (med["untraced"], cell("block_io"), cell("bpftrace")))
        print()
        over = lambda k: med[k] - med["untraced"]
        print("block_io's overhead (time − untraced) is %.2f× bpftrace's: %.1f µs per read against %.1f µs "
              "(each run's start and end included: iopsample's load and attach, bpftrace's compile)." % (
                  over("block_io") / over("bpftrace"), over("block_io") / READS * 1e6,
                  over("bpftrace") / READS * 1e6))
        print()
        print("block_io counted %s of the %d reads in its %d runs." % (
            ", ".join(str(c) for c in counted), READS, len(counted)))
    finally:
        subprocess.run(["losetup", "-d", loop])
        os.unlink(img)
        if mounted:
            subprocess.run(["umount", TRACEFS])


if __name__ == "__main__":
    main()
