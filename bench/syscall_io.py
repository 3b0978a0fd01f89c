#!/usr/bin/env python3
"""syscall_io's cost: the traced workload's slowdown over untraced, side by
side with strace on the same syscalls, all in one run.

    make bench            (or: python3 bench/syscall_io.py BUILD_DIR [REPEATS])

For each workload the four ways of running it are interleaved REPEATS times
(default 5) and the median wall time of each is kept; slowdown = median /
median untraced. Prints the markdown table docs/benchmarks.md holds.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SYSCALLS = "read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2"
WORKLOADS = [
    ("(a) I/O-heavy: 200k write(4 KiB)", ["200000", "1"]),
    ("(b) mixed: 500k syscalls, 10% write(4 KiB)", ["500000", "10"]),
]


def timed(argv, **kw):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.monotonic() - t0


def main():
    sys.stdout.reconfigure(line_buffering=True)  # rows appear as they are measured
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    mix = os.path.join(build, "bench", "mix")
    iopsample = os.path.join(build, "iopsample")
    work = tempfile.mkdtemp(prefix="iopsample-bench.")
    strace_v = subprocess.run(["strace", "-V"], capture_output=True, text=True).stdout.split("\n")[0]
    print("Host: %s, %d CPUs, kernel %s; %s; median of %d interleaved runs.\n" % (
        open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
        os.cpu_count(), os.uname().release, strace_v, repeats))
    print("| workload | untraced | iopsample syscall_io | strace -f -c --seccomp-bpf | strace -f |")
    print("|---|---|---|---|---|")
    ratios = []
    try:
        for wi, (title, args) in enumerate(WORKLOADS):
            ways = {
                "untraced": lambda: timed([mix] + args),
                "iopsample": None,
                "strace_bpf": lambda: timed(["strace", "-f", "-c", "--seccomp-bpf", "-e",
                                             "trace=" + SYSCALLS, "-o", "/dev/null", mix] + args),
                "strace": lambda: timed(["strace", "-f", "-e", "trace=" + SYSCALLS, "-o",
                                         "/dev/null", mix] + args),
            }
            times = {k: [] for k in ways}
            for r in range(repeats):
                for k, run in ways.items():
                    if k == "iopsample":
                        cfg = os.path.join(work, "b.yaml")
                        with open(cfg, "w") as f:
                            f.write("episode: {name: b%d-%d, output_dir: %s}\n"
                                    "target: {command: [%s, %s, %s], stdout: \"null\"}\n"
                                    "sources: {syscall_io: {interval: 100ms}}\n"
                                    % (wi, r, work, mix, args[0], args[1]))
                        times[k].append(timed([iopsample, "run", cfg, "--quiet"]))
                    else:
                        times[k].append(run())
            med = {k: statistics.median(v) for k, v in times.items()}
            slow = {k: med[k] / med["untraced"] for k in med}
            cell = lambda k: "%.3f s (%.2f×)" % (med[k], slow[k])
            print("| %s | %.3f s | %s | %s | %s |" % (title, med["untraced"], cell("iopsample"),
                                                     cell("strace_bpf"), cell("strace")))
            ratios.append((title, slow))
    finally:
        shutil.rmtree(work)
    print()
    for title, s in ratios:
        print("- %s: iopsample's slowdown is %.2f× strace --seccomp-bpf's; plain strace's is %.1f× "
              "iopsample's (overhead over untraced: %.1f× less)." % (
                  title.split(":")[0], s["iopsample"] / s["strace_bpf"], s["strace"] / s["iopsample"],
                  (s["strace"] - 1) / (s["iopsample"] - 1)))


if __name__ == "__main__":
    main()
