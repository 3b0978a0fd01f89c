#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What `iopsample report` costs on a long episode (issue 18's budget).

    /usr/bin/python3 bench/report.py BUILD_DIR [SECONDS] [EPISODE_DIR]

One episode of SECONDS (default 600) at 10 ms with proc_io, syscall_io and
perf_event over a shell loop that writes and reads 1 MiB every 10 ms (or an
EPISODE_DIR already recorded). Then, three times each: `iopsample report`
(wall time), the page's size against the episode's rows uncompressed (what
`iopsample cat` prints), and headless Chromium opening it: the page's own
data-render-ms (navigation start to every chart drawn) and Chromium's whole
run. Prints the medians. Not a test: timings on a shared machine are noise
except side by side.
"""
import found
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 600
iops = found.iopsample(build)
work = tempfile.mkdtemp(prefix="iopsample-bench-report.")

if len(sys.argv) > 3:
    ep = os.path.abspath(sys.argv[3])
else:
    loop = ("while :; do head -c 1048576 /dev/zero >%s/f; cat %s/f >/dev/null; sleep 0.01; done" % (work, work))
    with open(os.path.join(work, "long.yaml"), "w") as f:
        f.write("episode: {name: long, output_dir: %s, duration: %ds}\n" % (work, seconds))
        f.write("target: {command: [sh, -c, %s]}\n" % repr(loop).replace("'", '"'))
        f.write("sources:\n  proc_io: {interval: 10ms}\n  syscall_io: {interval: 10ms}\n"
                "  perf_event: {interval: 10ms, events: [task-clock, page-faults, context-switches]}\n")
    subprocess.run([iops, "run", os.path.join(work, "long.yaml"), "--quiet"], check=True)
    ep = os.path.join(work, "long")

rows = raw = 0
for name in sorted(os.listdir(ep)):
    if ".jsonl" in name:
        out = subprocess.run([iops, "cat", os.path.join(ep, name)], capture_output=True, check=True).stdout
        raw += len(out)
        rows += out.count(b"\n")

html = os.path.join(work, "long.html")
write, render, chromium = [], [], []
for _ in range(3):
    t = time.perf_counter()
    subprocess.run([iops, "report", ep, "-o", html], check=True)
    write.append(time.perf_counter() - t)
    t = time.perf_counter()
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                          "--user-data-dir=" + os.path.join(work, "chromium"), "--virtual-time-budget=60000",
                          "--dump-dom", "file://" + html], capture_output=True, text=True).stdout
    chromium.append(time.perf_counter() - t)
    body = re.search(r"<body([^>]*)>", dom).group(1)
    if "data-errors" in body or 'data-rendered="yes"' not in body:
        sys.exit("the page did not draw: " + body)
    render.append(int(re.search(r'data-render-ms="(\d+)"', body).group(1)) / 1000)
charts = re.search(r'data-charts="(\d+)"', body).group(1)
size = os.path.getsize(html)
print("episode %s: %d rows, %.1f MB of rows uncompressed" % (ep, rows, raw / 1e6))
print("report written in %.2f s (median of 3)" % statistics.median(write))
print("page %.1f MB: %.3f of the rows uncompressed (1/%.1f)" % (size / 1e6, size / raw, raw / size))
print("Chromium: %s charts drawn %.2f s after navigation began; whole headless run %.2f s (medians)"
      % (charts, statistics.median(render), statistics.median(chromium)))
