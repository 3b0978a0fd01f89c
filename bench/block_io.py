#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""block_io's cost on a block-heavy workload: 100 000 O_DIRECT reads of
4 KiB on a loop device over a file in /dev/shm, untraced, under
`iopsample run` with block_io, and under bpftrace counting the same
tracepoints (the tree's bios at block_bio_queue with a size histogram, and
issue-to-completion latency keyed by the request), interleaved REPEATS
times (default 5); the median of each and its ratio to untraced.

    make bench            (or: python3 bench/block_io.py BUILD_DIR [REPEATS [BEFORE_BUILD_DIR]])

With BEFORE_BUILD_DIR (another checkout's build), a second part measures a
change's cost per bio where the time is spent: with kernel.bpf_stats_enabled
the kernel times every run of every program, and `bpftool prog show`, polled
while each episode runs, gives each of iopsample's programs' run_time_ns;
their sum over the bios block_io counted is the program time per bio, of
this build and of the other, their episodes interleaved. (Wall time cannot
see it here: a read of the loop device costs some 20 µs, which varies by
more than a program's microsecond from run to run.)

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
import threading
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


def program_time(argv, prefixes=("iops_",)):
    """Runs argv (an iopsample run) while polling bpftool for its programs'
    (those whose names begin with one of prefixes) run counts and times
    (kernel.bpf_stats_enabled): {name: [runs, ns]}."""
    seen, stop = {}, threading.Event()

    def poll():
        while not stop.is_set():
            out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True).stdout
            try:
                for p in json.loads(out):
                    if p.get("name", "").startswith(prefixes) and "run_cnt" in p:
                        seen[p["id"]] = (p["name"], p["run_cnt"], p["run_time_ns"])
            except ValueError:
                pass
            time.sleep(0.05)

    th = threading.Thread(target=poll)
    th.start()
    try:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        stop.set()
        th.join()
    by = {}
    for name, runs, ns in seen.values():
        a = by.setdefault(name, [0, 0])
        a[0] += runs
        a[1] += ns
    return by


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    before = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
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

        def episode(binary=iopsample, count=counted, timer=timed):
            n[0] += 1
            path = os.path.join(work, "b%d.yaml" % n[0])
            with open(path, "w") as f:
                f.write("episode: {name: b%d, output_dir: %s}\n" % (n[0], work))
                f.write("target: {command: %s, stdout: \"null\"}\n" % json.dumps(workload))
                f.write("sources: {block_io: {devices: [%s]}}\n" % os.path.basename(loop))
            t = timer([binary, "run", path, "--quiet"])
            rows = [json.loads(l) for l in open(os.path.join(work, "b%d" % n[0], "block_io.jsonl"))]
            count.append(sum(r["read_ops"] for r in rows))
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
        if before:
            compare_builds(episode, iopsample, os.path.join(before, "iopsample"), before, repeats)
    finally:
        subprocess.run(["losetup", "-d", loop])
        os.unlink(img)
        if mounted:
            subprocess.run(["umount", TRACEFS])


def compare_builds(episode, after, before_bin, before, repeats):
    """Program time per bio, this build against another, interleaved."""
    subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"], check=True)
    per = {"this build": [], "before": []}
    last = {}
    try:
        for _ in range(repeats):
            for k, b in (("before", before_bin), ("this build", after)):
                ops = []
                by = episode(b, ops, program_time)
                per[k].append(sum(ns for _, ns in by.values()) / ops[0])
                last[k] = by
    finally:
        subprocess.run(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"])
    med = {k: statistics.median(v) for k, v in per.items()}
    print()
    print("Program time per bio (kernel.bpf_stats_enabled, every program of the episode over the bios "
          "block_io counted), median of %d interleaved episodes each:" % repeats)
    print()
    print("| build | ns per bio, median (least) | runs | %s |" % " | ".join(sorted(last["this build"])))
    print("|---|---|---|" + "---|" * len(last["this build"]))
    for k, label in (("before", before), ("this build", "this build")):
        by = last[k]
        cells = ["%d × %d ns" % (by[p][0], by[p][1] / max(by[p][0], 1)) if p in by else "–"
                 for p in sorted(last["this build"])]
        print("| %s | %.0f (%.0f) | %s | %s |" % (label, med[k], min(per[k]), ", ".join("%.0f" % x for x in per[k]),
                                               " | ".join(cells)))
    print()
    print("This build's program time per bio is %.2f× the other's (least against least: %.2f×)." % (
        med["this build"] / med["before"], min(per["this build"]) / min(per["before"])))


if __name__ == "__main__":
    main()
