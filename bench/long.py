#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What the verdict, summary and report cost on a day-long episode, and the
verdict on a 10-minute one (issue 58: a day at 10 ms in 64 MB or less, a
report of 10 MB or less that Chromium renders; the 10 minutes in 2 s).

    /usr/bin/python3 bench/long.py BUILD_DIR [HOURS]

A short episode is recorded (taskstats, cgroup and diskstats at 10 ms over
a shell loop that computes, writes and syncs 4 MiB and sleeps) and
stretched (tests/e2e/lib/stretch.py: its rows repeated on the same grid)
to HOURS (default 24) and to 10 minutes; the commands run on each, one at a
time, their peak RSS read from wait4(2). Prints the figures. Not a test:
timings on a shared machine are noise except side by side. Needs GNU time
(Debian's time package) for the peak RSS."""
import found
import os
import shutil
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
hours = float(sys.argv[2]) if len(sys.argv) > 2 else 24
iops = found.iopsample(build)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e", "lib"))
import stretch  # noqa: E402

work = tempfile.mkdtemp(prefix="iopsample-bench-long.")


def run(args, out=subprocess.DEVNULL):
    """Seconds and peak RSS (MiB) of one command, as GNU time reads them
    from wait4(2) (started from here, the child's peak would count this
    Python's pages it had before its exec)."""
    fd, stats = tempfile.mkstemp(dir=work)
    os.close(fd)
    p = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%e %M"] + args, stdout=out, stderr=subprocess.PIPE)
    if p.returncode:
        raise SystemExit("%s: exit status %d: %s" % (" ".join(args), p.returncode, p.stderr.decode().strip()))
    took, kib = open(stats).read().split()[-2:]
    os.unlink(stats)
    return float(took), int(kib) / 1024


loop = ("for r in 1 2 3; do i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; "
        "head -c 4194304 /dev/zero > %s/f; sync %s/f; sleep 0.3; done" % (work, work))
with open(os.path.join(work, "short.yaml"), "w") as f:
    f.write("episode: {name: short, output_dir: %s}\n" % work)
    f.write("target: {command: [sh, -c, %s]}\n" % repr(loop).replace("'", '"'))
    f.write("sources:\n  taskstats: {interval: 10ms}\n  cgroup: {interval: 10ms}\n  diskstats: {interval: 10ms}\n")
subprocess.run([iops, "run", os.path.join(work, "short.yaml"), "--quiet"], check=True)
short = os.path.join(work, "short")

print("iopsample %s on %s CPUs" % (subprocess.run([iops, "--version"], capture_output=True, text=True).stdout.strip(),
                                   os.cpu_count()))
for name, seconds in (("ten-minutes", 600), ("day", hours * 3600)):
    t0 = time.monotonic()
    ep = stretch.stretch(iops, short, work, name, seconds)
    size = sum(os.path.getsize(os.path.join(ep, x)) for x in os.listdir(ep))
    print("\n%s: %.0f s at 10 ms, 3 sources, %d rows each, %.0f MB of zstd files (made in %.0f s)" % (
        name, seconds, int(seconds * 100), size / 1e6, time.monotonic() - t0))
    verdicts = [run([iops, "verdict", ep, "--format", "json", "-o", os.path.join(work, name + ".json")])
                for _ in range(3 if seconds <= 600 else 1)]
    took = sorted(v[0] for v in verdicts)[len(verdicts) // 2]
    print("  verdict --format json: %.2f s (median of %d), peak RSS %.1f MiB, %.0f MB written" % (
        took, len(verdicts), max(v[1] for v in verdicts), os.path.getsize(os.path.join(work, name + ".json")) / 1e6))
    os.unlink(os.path.join(work, name + ".json"))
    took, rss = run([iops, "summary", ep])
    print("  summary: %.1f s, peak RSS %.1f MiB" % (took, rss))
    page = os.path.join(work, name + ".html")
    took, rss = run([iops, "report", ep, "-o", page])
    print("  report: %.1f s, peak RSS %.1f MiB, the page %.2f MB" % (took, rss, os.path.getsize(page) / 1e6))
    chromium = shutil.which("chromium")
    if chromium:
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                              "--user-data-dir=%s/chromium" % work, "--virtual-time-budget=60000", "--dump-dom",
                              "file://" + page], capture_output=True, text=True, timeout=600).stdout
        print("  Chromium rendered it: %s" % ('data-rendered="yes"' in dom))
    shutil.rmtree(ep)
shutil.rmtree(work)
