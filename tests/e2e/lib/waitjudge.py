# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Judging waits and offcpu on phasework's phases (tests/e2e/waits.sh): the
two sources' classes per 100 ms window, read from their rows, and each
phase's windows (phases.py) held to what the phase does."""
import json
import os

import phases

CLASSES = ["running", "runnable", "disk", "paging", "network", "remote_fs", "fuse", "lock", "ipc", "child",
           "sleep", "other"]
# A phase's windows that must hold, and by how much the sampled source may
# stray from the exact one, of the window's thread time (issue "waits")
SHARE = 0.95
RIGHT = 0.90
AGREE = 0.10
# Windows this close to a phase's edge are not judged: a thread's wait
# that spans the edge is charged where it ends in neither source's grid
EDGE_NS = 150_000_000
GRID_NS = 100_000_000


def cells(ep):
    """{(t_start, t_end): {"waits": {class: ns}, "offcpu": {...}}} on a
    100 ms grid. Each row's time is spread over the windows its interval
    covers, in proportion: a tick late by 20 ms (a loaded host) makes a
    30 ms waits row that starts in one window and ends in the next, and
    charging it all to either would part the sources by a fifth of a
    thread there whatever the classes (export's grid keeps each row whole
    in the window it ends in)."""
    got = {}
    for src in ("waits", "offcpu"):
        with open(os.path.join(ep, src + ".jsonl")) as f:
            for line in f:
                r = json.loads(line)
                v = {c: r.get(c + "_ns") for c in CLASSES}
                end, span = r["t_mono_ns"], r["interval_ns"]
                if any(x is None for x in v.values()) or span <= 0:
                    continue
                start = end - span
                w = start // GRID_NS * GRID_NS
                while w < end:
                    part = (min(end, w + GRID_NS) - max(start, w)) / span
                    cell = got.setdefault((w, w + GRID_NS), {}).setdefault(src, dict.fromkeys(CLASSES, 0.0))
                    for c in CLASSES:
                        cell[c] += v[c] * part
                    w += GRID_NS
    return got


def windows(grid, start, end):
    return [(k, v) for k, v in sorted(grid.items())
            if k[0] >= start + EDGE_NS and k[1] <= end - EDGE_NS and "waits" in v and "offcpu" in v]


def total(c):
    return sum(c.values())


# Phases whose threads switch some ten thousand times a second (a working
# set paging in a page at a time): there the scheduler's own counts, which
# waits reads (schedstat), and the switches' and wake-ups' timestamps,
# which offcpu reads, part by some 10 % of the time between running and
# runnable (measured here: bpftrace's wake-up-to-switch-in sum 217 ms in
# 2 s where the kernel's run_delay counted 27 ms, and offcpu 16 % where
# waits 1 %): the two are compared on a CPU or queued for one, together.
def classes(c, merge):
    if not merge:
        return c
    out = {k: v for k, v in c.items() if k not in ("running", "runnable")}
    out["running+runnable"] = c["running"] + c["runnable"]
    return out


def hold(ph, grid, expected, merge=()):
    """expected: {phase: class or None}. For each phase named: in SHARE of
    its windows offcpu puts RIGHT of the thread time in the class (None:
    not judged), and waits agrees with offcpu within AGREE of the thread
    time in every class (running and runnable together for the phases in
    merge). Lines, and what did not hold."""
    lines, bad = [], []
    for name, start, end, _ in ph:
        if name not in expected:
            continue
        ws = windows(grid, start, end)
        want = expected[name]
        right = agree = 0
        worst = []
        for k, v in ws:
            t = total(v["offcpu"]) or 1
            if want is None or v["offcpu"][want] >= RIGHT * t:
                right += 1
            w, o = classes(v["waits"], name in merge), classes(v["offcpu"], name in merge)
            off = max(abs(w[c] - o[c]) for c in o) / t
            if off <= AGREE:
                agree += 1
            else:
                worst.append((round(k[0] / 1e9, 1), {c: (round(w[c] / t, 2), round(o[c] / t, 2))
                                                    for c in o if w[c] or o[c]}))
        lines.append("%s: %s %d/%d, agree %d/%d" % (name, want or "-", right, len(ws), agree, len(ws)))
        if not ws or right < SHARE * len(ws):
            bad.append("%s: offcpu's %s at %d%% in %d of %d windows" % (name, want, RIGHT * 100, right, len(ws)))
        if not ws or agree < SHARE * len(ws):
            bad.append("%s: waits and offcpu agree within %d%% in %d of %d windows; e.g. %s" % (
                name, AGREE * 100, agree, len(ws), worst[:2]))
    return lines, bad


def largest_off_cpu(ph, grid, expected):
    """expected: {phase: class}: offcpu's largest class off the CPU, in
    SHARE of the phase's windows (a fault's and an I/O's kernel CPU is
    running time: the disk and memory phases are not RIGHT of it)."""
    lines, bad = [], []
    for name, start, end, _ in ph:
        if name not in expected:
            continue
        ws = windows(grid, start, end)
        off = [c for c in CLASSES if c not in ("running", "runnable")]
        right = sum(1 for _, v in ws if max(off, key=lambda c: v["offcpu"][c]) == expected[name])
        lines.append("%s: %s largest off the CPU %d/%d" % (name, expected[name], right, len(ws)))
        if not ws or right < SHARE * len(ws):
            bad.append("%s: %s largest in %d of %d windows" % (name, expected[name], right, len(ws)))
    return lines, bad


def labels(iops, ep, ph, expected, words, *args):
    """The verdict's label per phase (phases.judge), and for an idle one
    its evidence naming what the threads waited on (words: {phase: word})."""
    v = phases.verdict(iops, ep, *args)
    out = phases.judge(v, ph, expected, "verdict%s" % (" " + " ".join(args) if args else ""))
    bad = []
    for name, start, end, _ in ph:
        if name in words:
            ws = phases.inside(v, start, end)
            missing = [w["evidence"][:160] for w in ws if words[name] not in w["evidence"]]
            if len(ws) - len(missing) < phases.SHARE * len(ws):
                bad.append("%s: '%s' missing from %d of %d windows' evidence: %s" % (
                    name, words[name], len(missing), len(ws), missing[:1]))
    if bad:
        raise AssertionError("; ".join(bad))
    return out, v
