#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Each source's cost per tick against the size of the tree, beside the
least the same reads cost, and perf stat.

    make bench            (or: python3 bench/scale.py BUILD_DIR [SIZES] [SOURCES])

For each size N (default 1, 64 and 512) and each source, one episode of 10 s
at 10 ms with that source alone, its target an idle tree of N processes
(tests/workloads/iowork --sleepers N-1; the 10 s start once all N run). A
source with backends is measured once with each: SOURCES names them
source:backend (proc_io:procfs, proc_io:bpf). Measured side by side in that
run:

  sampler    the source's sampler's on-CPU time per tick, from the
             scheduler's exact clock (/proc/PID/schedstat; for gpu, whose
             reader thread makes the NVML calls, all its threads), once the
             episode is under way (what opening cost, loading an eBPF
             program, is left out: the manifest's cpu_ns over its rows
             holds it too, and is shown as well);
  floor      bench/scale_floor doing the same reads on the same tree and
             files at the same time, in windows of 1.2 s: waiting on a
             10 ms grid half an interval off the sampler's (the two
             rarely read at once), reading what the source reads (its kept files, the
             episode cgroup's lists, the netlink queries, the counter
             group; for a bpf backend, a run of the same task iterator over
             the same tree), and writing one line as long as the source's
             rows.
             Five windows an episode; the one with the median ratio is
             shown (this VM's cost of a wake-up alone varies by a third from
             one second to the next);
  perf stat  `perf stat -I 10` counting the tree's software events for
             1.5 s (once per size: its CPU per interval, from wait4);
  rows       rows kept of the 1000 ticks the grid has within the 10 s, and
             the widest interval_ns among them against the 10 ms
             interval; then the stop after it, on its own (the rows while
             the tree is stopped: N processes exiting at once).

Then a tree that starts at once: for each source alone at 10 ms, an
episode whose target is a shell loop starting 512 sleeps in the background
(`sleep 3 &` 512 times, then wait), beside `perf stat -I 10` running the
same loop: the widest row of the start (its first 2 s) and of the stop
(the rows after it), against perf stat's widest interval on the same
start (its -I lines' timestamps).

Prints the markdown tables docs/benchmarks.md holds, and exits 1 when a
source costs more than 1.5 times its floor (proc_io's procfs backend 1.15
times at 512, waits' 1.2 times), loses a tick at 512 (a bpf backend: at 4096 either, or
spends more than 1 ms a tick there), or has a row wider than 2 intervals
while the 512 processes start.
"""
import found
import glob
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SOURCES = ["proc_io:procfs", "proc_io:bpf", "taskstats:netlink", "taskstats:bpf", "cgroup", "diskstats", "perf_event", "syscall_io",
           "block_io", "gpu", "waits:procfs", "waits:bpf", "net"]
# the task iterator each bpf backend runs a tick, in its object file
ITERATORS = {"proc_io": "pio_walk", "taskstats": "ts_walk", "waits": "waits_walk"}


def split(spec):
    """source:backend -> (source, backend or None)."""
    src, _, backend = spec.partition(":")
    return src, backend or None


def seconds_for(n):
    """The episode: its steady 10 s, and before them the time its N
    processes take to start and the floor's windows take beyond the 10 s
    where the floor cannot keep the grid (past 4096, a saturated reader's
    windows take as long again as the start)."""
    return SECONDS + n // 300 * (2 if n > 4096 else 1)
# Where no GPU is, gpu runs on NVML's test double (tests/fixtures/fake_nvml.c),
# one GPU whose values change every call: what iopsample itself costs
# around NVML's calls, which on a real GPU come on top (bench/nvml_calls.py).
FAKE_GPU = """gpu GPU-00000000-fake-0000-0000-000000000000 Fake 5 16
0 pcie_tx 1000 2000 3000 4000 5000 6000
0 pcie_rx 0 100 200 300 400
0 energy 5000 5100 5700 6900
0 gpu_util 10 20 30
0 mem_util 1 2 3
0 mem_used 1073741824
0 power 70000 71000
0 sm_clock 1755 1980
0 temperature 33 34
0 throttle 0 1
0 proc 1 1000
"""


def gpu_env(build, work):
    """The environment gpu runs in: this host's NVML, else the test double."""
    p = json.loads(subprocess.run([found.iopsample(build), "probe"], capture_output=True, text=True).stdout)
    if p["sources"]["gpu"]["status"] == "ok":
        return dict(os.environ)
    script = os.path.join(work, "nvml.script")
    with open(script, "w") as f:
        f.write(FAKE_GPU)
    return dict(os.environ, IOPSAMPLE_TEST_NVML=os.path.join(build, "fixtures", "libfake_nvml.so"),
                FAKE_NVML_SCRIPT=script)
SECONDS = 10
INTERVAL_NS = 10_000_000
FLOOR_TICKS = 120  # a window: 1.2 s
WINDOWS = 5  # windows an episode: the median ratio is shown
PERF_EVENTS = ["task-clock", "page-faults", "context-switches", "cpu-migrations"]


def schedstat(pid, threads=False):
    """On-CPU ns of pid's main thread, or of all its threads."""
    if not threads:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    total = 0
    for t in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(t) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def find_comm(comm, deadline):
    while time.monotonic() < deadline:
        for d in glob.glob("/proc/[0-9]*/comm"):
            try:
                if open(d).read().strip() == comm:
                    return int(d.split("/")[2])
            except OSError:
                pass
        time.sleep(0.05)
    raise SystemExit("no process %s" % comm)


def tree_of(root):
    """root and every descendant, parents first."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        out.append(pid)
        for t in glob.glob("/proc/%d/task/*/children" % pid):
            try:
                todo += [int(x) for x in open(t).read().split()]
            except OSError:
                pass
    return out


def mean_row_len(path):
    lines = []
    with open(path, "rb") as f:
        for line in f:
            if line.endswith(b"\n"):
                lines.append(len(line))
            if len(lines) == 50:
                break
    return max(2, sum(lines) // max(1, len(lines)))


def sampler_files(pid, manifest, src):
    """What the sampler reads each tick of what it keeps open under /proc
    and /sys: net's /proc/PID/mountinfo it reads only when the kernel says
    a mount came or went (its wait on it is its own cost), its mountstats
    only while it follows an NFS mount (the manifest's mounts, read once:
    an NFS mount gone since stays in them, and the floor then reads what
    the sampler no longer does; the idle tree here has none)."""
    nfs = any(m.get("fstype", "").startswith("nfs")
              for m in (manifest["sources"].get(src, {}).get("mounts") or {}).values())
    out = []
    for fd in glob.glob("/proc/%d/fd/*" % pid):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if not re.match(r"^/(proc|sys)/", target) or target.endswith("/mountinfo"):
            continue
        if src == "net" and target.endswith("/mountstats") and not nfs:
            continue
        out.append(target)
    return sorted(out)


def episode_cgroup(manifest):
    return next((c["path"] for c in (manifest.get("cgroup") or {}).get("cgroups", []) if c["version"] == 2), None)


def floor_cmd(build, work, spec, row_len, keeper, manifest, sampler, n):
    """scale_floor doing the reads src does; it prints its on-CPU ns per tick."""
    ticks = FLOOR_TICKS if n < 16384 else FLOOR_TICKS // 3  # a window of 16384 procfs reads a tick is long
    cmd = [os.path.join(build, "bench", "scale_floor"), str(ticks), os.path.join(work, "floor.out"), str(row_len)]
    v2 = episode_cgroup(manifest)
    src, backend = split(spec)
    if backend == "bpf":
        return cmd + ["iter", os.path.join(build, "bpf", src + ".bpf.o"), ITERATORS[src], str(keeper)]
    if src == "proc_io":
        return cmd + ["proc", str(keeper), os.path.join(v2, "cgroup.procs")]
    if src == "taskstats":
        return cmd + ["taskstats", os.path.join(v2, "cgroup.threads")]
    if src == "waits":
        return cmd + ["threads", os.path.join(v2, "cgroup.threads")]
    if src in ("cgroup", "diskstats", "net"):
        return cmd + ["files"] + sampler_files(sampler, manifest, src)
    if src == "perf_event":
        counted = [e["event"] for e in manifest["sources"]["perf_event"]["events"] if e["counted"]]
        return cmd + ["perf", str(n)] + counted
    if src == "gpu":
        return cmd + ["nvml", manifest["sources"]["gpu"]["nvml"]["library"]]
    return cmd + ["wait"]  # the eBPF sources read mapped memory: no system call


def off_grid(rows_path):
    """A CLOCK_MONOTONIC time half an interval off the sampler's grid: its
    last row's t_wall_ns taken to the monotonic clock (a row is taken some
    microseconds after its tick), plus half an interval."""
    with open(rows_path, "rb") as f:
        f.seek(max(0, os.path.getsize(rows_path) - 65536))
        last = [l for l in f.read().split(b"\n")[:-1] if l.startswith(b"{")][-1]  # whole lines only
    mono_minus_wall = time.clock_gettime_ns(time.CLOCK_MONOTONIC) - time.time_ns()
    return json.loads(last)["t_wall_ns"] + mono_minus_wall + INTERVAL_NS // 2


def side_by_side(cmd, sampler, threads, env=None, grid=None):
    """The floor's and the sampler's CPU per tick over the same window: the
    floor runs while the sampler samples, its ticks half an interval off
    the sampler's (grid) so that the two rarely read at once (a tick that
    takes over half an interval still overlaps)."""
    env = dict(env or os.environ, SCALE_FLOOR_GRID_NS=str(grid or ""))
    t0, c0 = time.monotonic(), schedstat(sampler, threads)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        raise SystemExit("%s: exit %d: %s" % (" ".join(cmd[:5]), p.returncode, p.stderr.strip()[-300:]))
    fl = int(p.stdout)
    t1, c1 = time.monotonic(), schedstat(sampler, threads)
    return (c1 - c0) / ((t1 - t0) * 1e9 / INTERVAL_NS), fl


def perf_stat(pids, seconds=1.5):
    """perf stat -I 10 on the tree: its CPU per interval (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(["perf", "stat", "-I", "10", "-x", ",", "-e", ",".join(PERF_EVENTS),
                          "-p", ",".join(str(x) for x in pids), "-o", os.devnull],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    p.send_signal(signal.SIGINT)
    err = p.communicate()[1]
    if p.returncode not in (0, -signal.SIGINT, 130):
        # (perf stat -p of 16384 processes stopped here at "Too many
        # events are opened": no figure for that size, the rest goes on)
        print("perf stat: exit %d: %s" % (p.returncode, err.strip()[-300:]), file=sys.stderr)
        return None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1e9 / (seconds * 1e9 / INTERVAL_NS)


def source_yaml(spec):
    src, backend = split(spec)
    return "{%s: {interval: 10ms%s}}" % (src, ", backend: " + backend if backend else "")


def wait_for_tree(manifest, n, deadline):
    """Until the episode's cgroup holds the n processes (the keeper is not
    in it)."""
    v2 = episode_cgroup(manifest)
    while v2 and time.monotonic() < deadline:
        with open(os.path.join(v2, "cgroup.procs")) as f:
            if sum(1 for _ in f) >= n:
                return
        time.sleep(0.1)


def episode(build, work, name, spec, n, want_perf):
    src, _ = split(spec)
    out = os.path.join(work, name)
    cfg = out + ".yaml"
    secs = seconds_for(n)
    with open(cfg, "w") as f:
        f.write("episode: {name: %s, output_dir: %s, duration: %ds}\n" % (name, work, secs))
        f.write("target: {command: [%s/workloads/iowork, --sleep-ms, \"%d\", --sleepers, \"%d\"], stdout: null}\n"
                % (build, secs * 1000 + 5000, n - 1))
        f.write("sources: %s\n" % source_yaml(spec))
    env = gpu_env(build, work) if src == "gpu" else None
    run = subprocess.Popen([found.iopsample(build), "run", cfg, "--quiet"], env=env)
    start = time.monotonic()
    sampler = find_comm("iops-" + src, start + 5)
    keeper = find_comm("iops-keeper", start + 5)
    time.sleep(max(0, start + 1.2 - time.monotonic()))
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    wait_for_tree(manifest, n, start + secs - SECONDS)
    print("%s at %d: %d processes after %.1f s" % (spec, n, n, time.monotonic() - start), file=sys.stderr)
    settle = time.monotonic()
    row_len = mean_row_len(os.path.join(out, src + ".jsonl"))
    cmd = floor_cmd(build, work, spec, row_len, keeper, manifest, sampler, n)
    # a floor that cannot keep the grid at thousands of processes takes
    # longer a window: three of them there
    grid = off_grid(os.path.join(out, src + ".jsonl"))
    pairs = [side_by_side(cmd, sampler, src == "gpu", env, grid) for _ in range(WINDOWS if n < 4096 else 3)]
    ratios = sorted(a / b for a, b in pairs)
    mid = pairs[[a / b for a, b in pairs].index(ratios[len(ratios) // 2])]
    ps = perf_stat(tree_of(keeper)[1:]) if want_perf and shutil.which("perf") else None
    if run.wait() != 0:
        raise SystemExit("%s: iopsample exited %d" % (name, run.returncode))
    m = json.load(open(os.path.join(out, "manifest.json")))["sources"][src]
    rows = [json.loads(l) for l in open(os.path.join(out, src + ".jsonl"))]
    # the grid's ticks within the duration once the tree runs, and the stop
    # after it (the tree stopped: N processes exiting at once on two cores)
    origin = rows[0]["t_mono_ns"] - rows[0]["interval_ns"]
    end = origin + secs * 1_000_000_000
    begin = end - int((start + secs - settle) * 1e9) if secs > SECONDS else origin
    during = [r for r in rows if r["t_mono_ns"] <= end + INTERVAL_NS // 2]
    stop = rows[len(during):]
    during = [r for r in during if r["t_mono_ns"] - r["interval_ns"] >= begin]
    return {"steady": mid[0], "with_open": m["cpu_ns"] / m["rows"], "floor": mid[1], "perf": ps,
            "rows": len(during), "missed": sum(max(0, round(r["interval_ns"] / INTERVAL_NS) - 1) for r in during),
            "widest": max(r["interval_ns"] for r in during), "stop": stop, "missed_all": m["missed_ticks"],
            "wide": {x["seq"]: x for x in m.get("wide_rows", {"rows": []})["rows"]},
            "row_len": row_len, "expected": (end - begin) // INTERVAL_NS}


START_N = 512
START_LOOP = "i=0; while [ $i -lt %d ]; do sleep 3 & i=$((i + 1)); done; wait" % START_N


def start_episode(build, work, spec):
    """The widest rows while 512 processes start, and while they exit."""
    src, _ = split(spec)
    name = "start_" + spec.replace(":", "_")
    cfg = os.path.join(work, name + ".yaml")
    with open(cfg, "w") as f:
        f.write("episode: {name: %s, output_dir: %s}\n" % (name, work))
        f.write("target: {command: %s, stdout: null}\n" % json.dumps(START_LOOP))
        f.write("sources: %s\n" % source_yaml(spec))
    subprocess.run([found.iopsample(build), "run", cfg, "--quiet"], check=True,
                   env=gpu_env(build, work) if src == "gpu" else None)
    rows = [json.loads(l) for l in open(os.path.join(work, name, src + ".jsonl"))]
    start = [r for r in rows if r["t_mono_ns"] <= 2_000_000_000]
    stop = [r for r in rows if r["t_mono_ns"] > 2_000_000_000 + INTERVAL_NS]
    return {"start": max(r["interval_ns"] for r in start), "stop": max((r["interval_ns"] for r in stop), default=0),
            "missed": json.load(open(os.path.join(work, name, "manifest.json")))["sources"][src]["missed_ticks"]}


def perf_start():
    """perf stat -I 10 over the same start: its widest interval in its first 2 s
    (None where perf is not installed)."""
    if not shutil.which("perf"):
        return None
    p = subprocess.run(["perf", "stat", "-I", "10", "-x", ",", "-e", "task-clock", "--", "sh", "-c", START_LOOP],
                       capture_output=True, text=True)
    stamps = set()
    for line in p.stderr.splitlines():
        try:
            stamps.add(float(line.split(",")[0]))
        except ValueError:
            pass  # perf's comments and warnings
    stamps = sorted(stamps)
    gaps = [b - a for a, b in zip([0.0] + stamps, stamps) if b <= 2.0]
    return max(gaps) * 1e9 if gaps else None


def print_scale(res, sources, sizes, bad):
    print("| source | processes | sampler per tick | floor (same reads) | sampler / floor "
          "| with opening (cpu_ns / rows) | `perf stat -I 10` | rows of the steady 10 s | widest interval "
          "| the stop: rows, widest, the manifest's why (its sampler busy) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for src in sources:
        for n in sizes:
            r = res[(n, src)]
            perf = next((res[(n, s)]["perf"] for s in sources if res[(n, s)]["perf"]), None)
            ratio = r["steady"] / r["floor"]
            widest = max(r["stop"], key=lambda x: x["interval_ns"], default=None)
            named = r["wide"].get(widest["seq"]) if widest else None
            print("| %s | %d | %.0f µs | %.0f µs | %.2f× | %.0f µs | %s | %d, %d missed | %.1f ms | %d, %.1f ms, %s |" % (
                src, n, r["steady"] / 1000, r["floor"] / 1000, ratio, r["with_open"] / 1000,
                "%.0f µs" % (perf / 1000) if perf else "—", r["rows"], r["missed"], r["widest"] / 1e6,
                len(r["stop"]), widest["interval_ns"] / 1e6 if widest else 0,
                "%s (%.1f ms)" % (named["why"], named["busy_ns"] / 1e6) if named else
                "no row" if not widest else
                "not wide" if widest["interval_ns"] <= 3 * INTERVAL_NS else "NOT NAMED"))
            if widest and widest["interval_ns"] > 3 * INTERVAL_NS and not named:
                bad.append("%s at %d: the stop's row %d of %.1f ms is not in the manifest's wide_rows" % (
                    src, n, widest["seq"], widest["interval_ns"] / 1e6))
            bpf = split(src)[1] == "bpf"
            limit = 1.15 if src == "proc_io:procfs" and n == 512 else 1.2 if src == "waits:procfs" and n == 512 else 1.5
            if ratio > limit:
                bad.append("%s at %d: %.2f× its floor" % (src, n, ratio))
            if (n == 512 or (bpf and n == 4096)) and (
                    r["rows"] < r["expected"] - 1 or r["missed"] or r["widest"] > 2 * INTERVAL_NS):
                bad.append("%s at %d: %d rows of %d, widest interval %.1f ms" % (
                    src, n, r["rows"], r["expected"], r["widest"] / 1e6))
            if bpf and n == 4096 and r["steady"] > 1e6:
                bad.append("%s at 4096: %.0f µs a tick" % (src, r["steady"] / 1000))


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    # SIZES "start": only the tree that starts at once
    sizes = [] if sys.argv[2:3] == ["start"] else [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 64, 512]
    sources = sys.argv[3].split(",") if len(sys.argv) > 3 else SOURCES
    work = tempfile.mkdtemp(prefix="iopsample-bench-scale-")
    # a procfs reader keeps three files a process open: 16384 processes
    # need more than a default hard limit; root may raise it to fs.nr_open
    try:
        nr_open = int(open("/proc/sys/fs/nr_open").read())
        resource.setrlimit(resource.RLIMIT_NOFILE, (nr_open, nr_open))
    except (OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)
    res = {}
    for n in sizes:
        for i, src in enumerate(sources):
            res[(n, src)] = episode(build, work, "%s_%d" % (src.replace(":", "_"), n), src, n, i == 0)
            print("done: %s at %d: %s" % (src, n, {k: v for k, v in res[(n, src)].items() if k != "stop"}),
                  file=sys.stderr)
    bad = []
    if sizes:
        print_scale(res, sources, sizes, bad)
        print()
    print("| source | widest row while %d processes start | `perf stat -I 10`'s widest, same start | widest row while they exit | missed ticks |" % START_N)
    print("|---|---|---|---|---|")
    for src in sources:
        st, ps = start_episode(build, work, src), perf_start()
        print("| %s | %.1f ms | %s | %.1f ms | %d |" % (src, st["start"] / 1e6, "%.1f ms" % (ps / 1e6) if ps else "—",
                                                  st["stop"] / 1e6, st["missed"]))
        if st["start"] > 2 * INTERVAL_NS:
            bad.append("%s: a row of %.1f ms while %d processes start" % (src, st["start"] / 1e6, START_N))
    if bad:
        print("\nover the bar: " + "; ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
