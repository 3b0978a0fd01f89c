# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The ground truth of a job whose bottleneck is injected phase by phase
(tests/workloads/phasework.c, torch_phases.py): each phase on the
episode's time, and how many of the verdict's windows wholly inside it
carry its label."""
import json
import os
import subprocess

# A window is wholly inside a phase when it starts at or after the
# phase's start and ends at or before its end; the job's clock and the
# origin are a few microseconds apart (its first instruction comes just
# after the release), which no window edge is this close to.
SHARE = 0.95


def phases(ep_dir):
    """[(name, start_ns, end_ns, line)] from the target's stdout, on the
    episode's time (its t0_wall_ns against the manifest's origin)."""
    with open(os.path.join(ep_dir, "manifest.json")) as f:
        m = json.load(f)
    with open(os.path.join(ep_dir, "target.stdout")) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    off = lines[0]["t0_wall_ns"] - m["t_wall_start_ns"]
    return [(p["phase"], p["start_ns"] + off, p["end_ns"] + off, p) for p in lines[1:]]


def verdict(iops, ep_dir, *args):
    """`iopsample verdict --format json` of one episode."""
    out = subprocess.run([iops, "verdict", ep_dir, "--format", "json"] + list(args), capture_output=True,
                         text=True)
    if out.returncode:
        raise AssertionError("verdict %s: exit %d: %s" % (" ".join(args), out.returncode, out.stderr.strip()))
    return json.loads(out.stdout.splitlines()[0])


def inside(v, start, end):
    return [w for w in v["windows"] if w["t_mono_ns"] - w["interval_ns"] >= start and w["t_mono_ns"] <= end]


def held(v, ph, expected):
    """For each phase named in expected ({phase: label}): (name, label,
    right, windows, the wrong ones); the phases in order, a name used
    twice judged each time."""
    out = []
    for name, start, end, _ in ph:
        if name not in expected:
            continue
        ws = inside(v, start, end)
        wrong = [(round(w["t_mono_ns"] / 1e9, 2), w["verdict"], w["evidence"][:100]) for w in ws
                 if w["verdict"] != expected[name]]
        out.append((name, expected[name], len(ws) - len(wrong), len(ws), wrong))
    return out


def judge(v, ph, expected, what):
    """Every phase holds SHARE of its windows; a line per phase. Raises
    AssertionError naming the phases that do not."""
    lines, bad = [], []
    for name, label, right, n, wrong in held(v, ph, expected):
        lines.append("%s %s %d/%d" % (name, label, right, n))
        if n == 0 or right < SHARE * n:
            bad.append("%s: %d of %d windows %s; wrong: %s" % (name, right, n, label, wrong[:3]))
    if bad:
        raise AssertionError("%s: %s" % (what, "; ".join(bad)))
    return "%s: %s" % (what, ", ".join(lines))
