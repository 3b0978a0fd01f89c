#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What the Python package costs.

    make bench            (or: /usr/bin/python3 bench/python.py BUILD_DIR [SECONDS])

1. iopsample.profile(): the time from entering the block to its first
   statement (start: iopsample reads its config, probes and opens every
   source, then says READY=1) and from its last statement to the end of
   the block (stop: the stop request, the final rows, the manifest), with
   proc_io and syscall_io at 10 ms (each backend, as root; ptrace
   otherwise), against the floor of starting the binary at all
   (`iopsample --version`), eleven times each, interleaved.
2. Episode.frame(source) on docs/at-scale.md's episode (15 s at 1 ms of
   proc_io, syscall_io and perf_event, zstd, about 44 500 rows), against
   pandas' own read_json(lines=True) of the same file (which leaves the
   nested objects whole, where frame() flattens them), five times each,
   interleaved. Prints the medians and their ratios.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

import found
from export import big_episode

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import iopsample  # noqa: E402

SOURCES = ["proc_io", "syscall_io", "perf_event"]


def median_ms(xs):
    return statistics.median(xs) * 1000


def profile_costs(iopsample_bin, work, backends, runs=11):
    """{backend: (start, stop)} and the floor, medians in ms, interleaved."""
    times = {b: ([], []) for b in backends}
    floor = []
    for i in range(runs):
        t0 = time.perf_counter()
        subprocess.run([iopsample_bin, "--version"], stdout=subprocess.DEVNULL, check=True)
        floor.append(time.perf_counter() - t0)
        for b in backends:
            t0 = time.perf_counter()
            with iopsample.profile(sources={"proc_io": {}, "syscall_io": {"backend": b}}, interval="10ms",
                                   output_dir=work, name="%s-%d" % (b, i)):
                t1 = time.perf_counter()
                t2 = time.perf_counter()
            t3 = time.perf_counter()
            times[b][0].append(t1 - t0)
            times[b][1].append(t3 - t2)
    return {b: (median_ms(s), median_ms(e)) for b, (s, e) in times.items()}, median_ms(floor)


def frame_costs(d, runs=5):
    ep = iopsample.Episode(d)
    out = {}
    for s in SOURCES:
        path = os.path.join(d, ep.manifest["sources"][s]["file"])
        ours, theirs = [], []
        for _ in range(runs):
            t = time.perf_counter()
            f = ep.frame(s)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            g = pd.read_json(path, lines=True, compression="zstd" if path.endswith(".zst") else None)
            theirs.append(time.perf_counter() - t)
        out[s] = (len(f), f.shape[1], g.shape[1], median_ms(ours), median_ms(theirs))
    return out


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    os.environ["IOPSAMPLE"] = found.iopsample(build)
    with tempfile.TemporaryDirectory() as work:
        backends = ["ebpf", "ptrace"] if os.geteuid() == 0 else ["ptrace"]
        costs, floor = profile_costs(os.environ["IOPSAMPLE"], os.path.join(work, "profiles"), backends)
        print("profile(), proc_io and syscall_io at 10 ms, median of 11; starting the binary: %.1f ms" % floor)
        for b, (s, e) in costs.items():
            print("  syscall_io %s: start %.1f ms (%.1fx starting the binary), stop %.1f ms (%.1fx)" % (
                b, s, s / floor, e, e / floor))
        d = big_episode(os.environ["IOPSAMPLE"], build, work, seconds, "python")
        rows = 0
        print("frame() against pandas.read_json(lines=True), median of 5:")
        print("  | source | rows | frame() columns | read_json columns | frame() | read_json | ratio |")
        for src, (n, fc, gc, ours, theirs) in frame_costs(d).items():
            rows += n
            print("  | %s | %d | %d | %d | %.0f ms | %.0f ms | %.2fx |" % (src, n, fc, gc, ours, theirs, ours / theirs))
        print("  %d rows in all" % rows)


if __name__ == "__main__":
    main()
