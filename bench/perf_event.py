#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""perf_event's cost per sample against perf stat -I 10, side by side in one run.

    make bench            (or: python3 bench/perf_event.py BUILD_DIR [REPEATS] [SECONDS])

A spinning target (tests/workloads/perfwork) runs; `perf stat -I 10 -p PID`
and `iopsample run` with perf_event on `target.pid` at 10 ms attach to it at
the same time, with the same events, for SECONDS (default 3). CPU time is
each process's own rusage (os.wait4): perf stat's process, and iopsample's
perf_event sampler (the manifest's cpu_ns) as well as the whole of
iopsample (supervisor and sampler). Divided by the samples each took: perf
stat's intervals, iopsample's rows. REPEATS runs (default 3): medians, and
the median of the per-run ratios (each run's two figures are paired).
Meanwhile bench/scale_floor waits on the same 10 ms grid doing nothing: what
any sampler pays to wake up here, shown so each tool's own work per tick can
be read off. Prints the markdown table docs/benchmarks.md holds.
"""
import found
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

DEFAULT_EVENTS = ["cycles", "instructions", "cache-references", "cache-misses", "branches",
                  "branch-misses", "page-faults", "context-switches"]
SOFTWARE_EVENTS = ["page-faults", "context-switches", "task-clock", "cpu-migrations",
                   "minor-faults", "major-faults"]
# (target, its extra threads, events)
CASES = [("1 thread, default events", "0", DEFAULT_EVENTS),
         ("4 threads, default events", "3", DEFAULT_EVENTS),
         ("1 thread, 6 software events", "0", SOFTWARE_EVENTS)]


def cpu(ru):
    return ru.ru_utime + ru.ru_stime


def on_cpu_ns(pid):
    """ns the process's threads have run, exact (the scheduler's own clock)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            total += int(f.read().split()[0])
    return total


def sampler_of(pid):
    for _ in range(200):
        for line in subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(pid)],
                                   capture_output=True, text=True).stdout.splitlines():
            cpid, comm = line.split()
            if comm == "iops-perf_event":
                return int(cpid)
        time.sleep(0.01)
    raise SystemExit("no perf_event sampler under pid %d" % pid)


def one_run(build, work, name, threads, events, seconds):
    target = subprocess.Popen([os.path.join(build, "workloads", "perfwork"), "--threads", threads,
                               "--pages", "0", "--spin", str(10**13)], stdout=subprocess.DEVNULL)
    time.sleep(0.2)  # its threads exist
    csv = os.path.join(work, name + ".csv")
    perf = subprocess.Popen(["perf", "stat", "-I", "10", "-x,", "-o", csv, "-e", ",".join(events),
                             "-p", str(target.pid)], stderr=subprocess.DEVNULL)
    cfg = os.path.join(work, name + ".yaml")
    with open(cfg, "w") as f:
        f.write("episode: {name: %s, output_dir: %s, duration: %ds}\n"
                "target: {pid: %d}\n"
                "sources: {perf_event: {interval: 10ms, events: [%s]}}\n"
                % (name, work, seconds, target.pid, ", ".join(events)))
    ours = subprocess.Popen([found.iopsample(build), "run", cfg, "--quiet"])
    # the steady state, without either's start and end: both processes'
    # on-CPU time over the same window in the middle of the run
    sampler = sampler_of(ours.pid)
    floor = subprocess.Popen([os.path.join(build, "bench", "scale_floor"), str(100 * (seconds - 2)),
                              os.devnull, "2", "wait"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    t0, s0, p0 = time.monotonic(), on_cpu_ns(sampler), on_cpu_ns(perf.pid)
    time.sleep(seconds - 1)
    t1, s1, p1 = time.monotonic(), on_cpu_ns(sampler), on_cpu_ns(perf.pid)
    ticks = (t1 - t0) / 0.010
    floor_us = int(floor.communicate()[0]) / 1e3
    _, status, ours_ru = os.wait4(ours.pid, 0)
    perf.send_signal(signal.SIGINT)
    _, _, perf_ru = os.wait4(perf.pid, 0)
    target.kill()
    target.wait()
    if status != 0:
        raise SystemExit("iopsample exited with %d" % status)

    with open(os.path.join(work, name, "manifest.json")) as f:
        src = json.load(f)["sources"]["perf_event"]
    stamps = {line.split(",")[0] for line in open(csv) if line[:1] not in ("#", "\n")}
    counted = sum(e["counted"] for e in src["events"])
    return {
        "floor_us": floor_us,
        "steady_perf_us": (p1 - p0) / 1e3 / ticks,
        "steady_sampler_us": (s1 - s0) / 1e3 / ticks,
        "perf_us": 1e6 * cpu(perf_ru) / len(stamps),
        "sampler_us": src["cpu_ns"] / 1e3 / src["rows"],
        "iopsample_us": 1e6 * cpu(ours_ru) / src["rows"],
        "rows": src["rows"], "intervals": len(stamps), "counted": counted,
    }


def main():
    sys.stdout.reconfigure(line_buffering=True)
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    work = tempfile.mkdtemp(prefix="iopsample-bench.")
    perf_v = subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip()
    print("Host: %s, %d CPUs, kernel %s; %s; %d s at 10 ms, median of %d runs.\n" % (
        open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
        os.cpu_count(), os.uname().release, perf_v, seconds, repeats))
    print("| target | events counted | perf stat -I 10: CPU per interval | iopsample perf_event sampler: CPU per row | ratio | all of iopsample: CPU per row |")
    print("|---|---|---|---|---|---|")
    try:
        for ci, (title, threads, events) in enumerate(CASES):
            runs = [one_run(build, work, "p%d-%d" % (ci, r), threads, events, seconds)
                    for r in range(repeats)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            # both watched the same target at the same time: the ratio is paired per run
            ratio = statistics.median(r["sampler_us"] / r["perf_us"] for r in runs)
            steady = statistics.median(r["steady_sampler_us"] / r["steady_perf_us"] for r in runs)
            print("| %s, whole run (%d/%d rows/intervals) | %d of %d | %.1f µs | %.1f µs | %.2f | %.1f µs |" % (
                title, med["rows"], med["intervals"], med["counted"], len(events), med["perf_us"],
                med["sampler_us"], ratio, med["iopsample_us"]))
            over = statistics.median((r["steady_sampler_us"] - r["floor_us"]) /
                                     (r["steady_perf_us"] - r["floor_us"]) for r in runs)
            print("| %s, steady state | %d of %d | %.1f µs | %.1f µs | %.2f | |" % (
                title, med["counted"], len(events), med["steady_perf_us"],
                med["steady_sampler_us"], steady))
            print("| %s, steady state over the wake-up floor (%.1f µs) | %d of %d | %.1f µs | %.1f µs | %.2f | |" % (
                title, med["floor_us"], med["counted"], len(events),
                med["steady_perf_us"] - med["floor_us"], med["steady_sampler_us"] - med["floor_us"], over))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
