#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The gpu source against a GPU that does known work (tests/gpu/check.sh).

Under iopsample (gpu and proc_io at 10 ms), tests/gpu/torch_job.py makes
its CUDA context, allocates 1 GiB on the GPU, copies 1 GiB host->device and
1 GiB device->host, each step between quiet spells, and writes when each
step ran. Checked against what the job did:

  tree_mem      tree_mem_bytes after the allocation less before it is
                exactly the 1 073 741 824 bytes allocated;
  pcie_rx       pcie_rx_bytes over the rows the host->device copy spans is
                1.0 to 1.15 times the bytes copied (PCIe's own overhead is
                counted too), and pcie_tx over the device->host copy;
  grid          10 ms rows, none missed (the manifest's missed_ticks) and
                none wider than 1.5 intervals (rows whose reading was late,
                the manifest's late_rows, are counted and shown);
  cost          the sampler's CPU (/proc/PID/task/*/schedstat, the
                scheduler's exact clock, over all its threads) per tick while
                the job works, from its CUDA context made to its last step,
                is at most 1 ms; the figure with the context's making (when
                the driver holds NVML's calls) is shown beside it, not held
                to the bound: what the driver costs then is the machine's
                (the same job on three H100s one day: 839, 1080 and 794 us
                a tick over the whole job, docs/benchmarks.md).

Then tests/gpu/verdict_job.py under taskstats, cgroup, diskstats and gpu
at 50 ms, and iopsample verdict of it (tests/e2e/lib/phases.py's rule,
95 % of the windows wholly inside each phase):

  verdict_train     a training loop on synthetic data on the GPU is gpu;
  verdict_pageable  large host-to-device copies from pageable memory are
                    gpu_copy;
  verdict_loader    a DataLoader with one worker reading a cold dataset is
                    disk or cpu (never gpu, gpu_copy or idle).

Prints PASS/FAIL/SKIP lines for tests/run, and the figures measured; with
GPU_CHECK_OUT set, writes them there as JSON too. Standard library only:
the job runs under the python3 that has PyTorch (PYTHON)."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

IOPS = os.environ.get("IOPSAMPLE", "build/iopsample")
HERE = os.path.dirname(os.path.abspath(__file__))
INTERVAL_NS = 10_000_000
GIB = 1 << 30
figures = {}


def say(kind, name, why=""):
    print("%s gpu/%s%s" % (kind, name, ": " + why if why else ""))


def check(name, ok, why):
    say("PASS" if ok else "FAIL", name, "" if ok else why)


def skip_all(why):
    say("SKIP", "check", why)
    sys.exit(0)


def find_sampler(parent, deadline):
    """The gpu sampler (comm iops-gpu) that iopsample's process `parent`
    started: another episode's on the host is not this one's."""
    while time.monotonic() < deadline:
        for d in glob.glob("/proc/[0-9]*"):
            try:
                if open(d + "/comm").read().strip() != "iops-gpu":
                    continue
                with open(d + "/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid == parent:
                    return int(os.path.basename(d))
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.02)
    return None


def schedstat(pid):
    """On-CPU ns of every thread of pid (NVML's and the energy reader's too)."""
    total = 0
    for t in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(t) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended: its time is lost to the sum, not added
    return total


def rows_over(rows, t0, t1):
    """Rows whose interval meets [t0, t1] (t_wall_ns)."""
    return [r for r in rows if r["t_wall_ns"] > t0 and r["t_wall_ns"] - r["interval_ns"] < t1]


def main():
    probe = json.loads(subprocess.run([IOPS, "probe"], capture_output=True, text=True, check=True).stdout)
    gpu = probe["sources"]["gpu"]
    if gpu["status"] != "ok":
        skip_all("no GPU to check against: " + gpu["error"])
    torch_ok = subprocess.run([sys.executable, "-c", "import sys, torch; sys.exit(not torch.cuda.is_available())"],
                              capture_output=True)
    if torch_ok.returncode != 0:
        skip_all("a GPU, but no PyTorch with CUDA in %s" % sys.executable)
    figures["gpus"] = [{k: g[k] for k in ("index", "name", "uuid", "pcie_max_gen", "pcie_max_width")}
                       for g in gpu["gpus"]]
    figures["driver"] = gpu["nvml"].get("driver_version")

    work = tempfile.mkdtemp(prefix="iopsample-gpu-")
    marks = os.path.join(work, "marks.json")
    with open(os.path.join(work, "ep.yaml"), "w") as f:
        json.dump({"episode": {"name": "gpu", "output_dir": work},
                   "target": {"command": [sys.executable, os.path.join(HERE, "torch_job.py"), marks]},
                   "sources": {"gpu": {"interval": "10ms", "devices": [0]},
                               "proc_io": {"interval": "10ms"}}}, f)
    start = time.monotonic()
    run = subprocess.Popen([IOPS, "run", os.path.join(work, "ep.yaml"), "--quiet"])
    sampler = find_sampler(run.pid, start + 60)
    if sampler is None:
        run.kill()
        say("FAIL", "episode", "no gpu sampler of iopsample %d within 60 s" % run.pid)
        sys.exit(1)
    # the sampler's CPU per tick over the job's work, from the moment its
    # CUDA context is made to its last step; and over the whole job, the
    # context's making included (the driver holds NVML's calls meanwhile)
    time.sleep(0.5)
    a0, aw0 = schedstat(sampler), time.time_ns()
    while run.poll() is None and not os.path.exists(marks + ".ready"):
        time.sleep(0.005)
    c0, w0 = schedstat(sampler), time.time_ns()
    c1, w1 = c0, w0
    while run.poll() is None and not os.path.exists(marks):
        c1, w1 = schedstat(sampler), time.time_ns()
        time.sleep(0.01)
    rc = run.wait()
    ep = os.path.join(work, "gpu")
    manifest = json.load(open(os.path.join(ep, "manifest.json")))
    check("episode", rc == 0 and manifest["status"] == "complete" and manifest["sources"]["gpu"]["status"] == "ok",
          "iopsample exited %d, status %s, gpu %s" % (rc, manifest["status"], manifest["sources"]["gpu"]))
    rows = [json.loads(l) for l in open(os.path.join(ep, "gpu.jsonl"))]
    m = json.load(open(marks))
    dev = lambda r: r["by_device"]["0"]

    # the allocation: the gauge at the last tick before it and the first after
    before = [r for r in rows if r["t_wall_ns"] < m["alloc"][0]][-1]
    after = [r for r in rows if m["alloc"][1] < r["t_wall_ns"] < m["h2d"][0]][0]
    grew = dev(after)["tree_mem_bytes"] - dev(before)["tree_mem_bytes"]
    figures["tree_mem_before"] = dev(before)["tree_mem_bytes"]
    figures["tree_mem_grew"] = grew
    figures["tree_processes"] = dev(after)["tree_processes"]
    check("tree_mem", grew == m["bytes"] and dev(after)["tree_processes"] >= 1,
          "tree_mem_bytes rose by %d over the 1 GiB allocation (want %d); tree_processes %s"
          % (grew, m["bytes"], dev(after)["tree_processes"]))

    for name, field, step in (("pcie_rx", "pcie_rx_bytes", "h2d"), ("pcie_tx", "pcie_tx_bytes", "d2h")):
        span = rows_over(rows, *m[step])
        vals = [dev(r)[field] for r in span]
        total = sum(v for v in vals if v is not None)
        ratio = total / m["bytes"]
        figures[name + "_ratio"] = round(ratio, 4)
        figures[step + "_ms"] = round((m[step][1] - m[step][0]) / 1e6, 1)
        check(name, None not in vals and 1.0 <= ratio <= 1.15,
              "%s over the %s copy (%d rows) is %.4f x the bytes copied (want 1.0 to 1.15)%s"
              % (field, step, len(span), ratio, "; some rows null" if None in vals else ""))

    src = manifest["sources"]["gpu"]
    widest = max(r["interval_ns"] for r in rows[1:-1])
    figures["rows"] = len(rows)
    figures["missed_ticks"] = src["missed_ticks"]
    figures["widest_interval_ms"] = round(widest / 1e6, 3)
    figures["late_rows"] = src["late_rows"]
    check("grid", src["missed_ticks"] == 0 and widest <= 1.5 * INTERVAL_NS,
          "missed_ticks %d, widest row %.3f ms at a 10 ms interval" % (src["missed_ticks"], widest / 1e6))

    ticks = len([r for r in rows if w0 < r["t_wall_ns"] <= w1])
    per_tick = (c1 - c0) / max(ticks, 1)
    figures["cpu_per_tick_us"] = round(per_tick / 1e3, 1)
    figures["cost_ticks"] = ticks
    whole = len([r for r in rows if aw0 < r["t_wall_ns"] <= w1])
    figures["cpu_per_tick_with_context_us"] = round((c1 - a0) / max(whole, 1) / 1e3, 1)
    figures["ticks_with_context"] = whole
    energy = [dev(r)["energy_mj"] for r in rows if dev(r)["energy_mj"]]
    figures["energy_mj"] = sum(energy)
    figures["energy_readings"] = len(energy)
    check("cost", ticks > 80 and per_tick <= 1e6,
          "the sampler used %.1f us of CPU a tick over the job's %d ticks of work (want at most 1000)"
          % (per_tick / 1e3, ticks))

    verdict_checks(work)
    print("    figures: " + json.dumps(figures))
    out = os.environ.get("GPU_CHECK_OUT")
    if out:  # the figures, the episode's rows and manifest, the job's marks
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "figures.json"), "w") as f:
            json.dump(figures, f, indent=1)
        for name in ("gpu.jsonl", "manifest.json", "proc_io.jsonl"):
            subprocess.run(["cp", os.path.join(ep, name), out])
        subprocess.run(["cp", marks, out])


def verdict_checks(work):
    sys.path.insert(0, os.path.join(HERE, "..", "e2e", "lib"))
    import phases

    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(work, "verdict.yaml"), "w") as f:
        json.dump({"episode": {"name": "verdict", "output_dir": work},
                   "target": {"command": [sys.executable, os.path.join(HERE, "verdict_job.py"), "3", data],
                              "stdout": "file"},
                   "sources": {"gpu": {"interval": "50ms", "devices": [0]}, "taskstats": {"interval": "50ms"},
                               "cgroup": {"interval": "50ms"}, "diskstats": {"interval": "50ms"}}}, f)
    rc = subprocess.run([IOPS, "run", os.path.join(work, "verdict.yaml"), "--quiet"]).returncode
    ep = os.path.join(work, "verdict")
    if rc != 0:
        check("verdict_train", False, "iopsample run exited %d" % rc)
        return
    v = phases.verdict(IOPS, ep)
    ph = phases.phases(ep)
    figures["verdict"] = {}
    for name, want in (("train", {"gpu"}), ("pageable", {"gpu_copy"}), ("loader", {"disk", "cpu"})):
        p = [x for x in ph if x[0] == name][0]
        ws = phases.inside(v, p[1], p[2])
        right = [w for w in ws if w["verdict"] in want]
        figures["verdict"][name] = {"windows": len(ws), "right": len(right), "labels": sorted(
            {w["verdict"] for w in ws}), "evidence": ws[len(ws) // 2]["evidence"] if ws else None}
        if name == "pageable":
            figures["verdict"][name]["bytes_per_s"] = p[3]["bytes"] / ((p[2] - p[1]) / 1e9)
        check("verdict_" + name, ws and len(right) >= phases.SHARE * len(ws),
              "%d of %d windows %s: %s" % (len(right), len(ws), "/".join(sorted(want)),
                                           [(w["verdict"], w["evidence"][:80]) for w in ws if w not in right][:3]))


if __name__ == "__main__":
    main()
