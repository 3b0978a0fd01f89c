# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Synthetic episodes: rows at known times with known values, for tests
whose expected tables are worked out by hand (export.sh, compare.sh). The
manifest is a real episode's (template), its sources replaced by those
written here."""
import copy
import json
import os
import subprocess

MS = 1_000_000


def write_episode(template, parent, name, labels, sources, zstd=()):
    """Writes episode name under parent. sources: {source: (interval_ns,
    rows, deployable)}, each row a dict with t (its t_mono_ns), final and
    the source's fields; the sources in zstd are compressed."""
    d = os.path.join(parent, name)
    os.makedirs(d)
    m = copy.deepcopy(template)
    m.update(episode=name, labels=labels, sources={}, status="complete")
    m["config"]["episode"]["labels"] = labels
    for source, (interval, rows, deployable) in sources.items():
        f = source + ".jsonl"
        entry = copy.deepcopy(template["sources"][source])
        entry.update(file=f + (".zst" if source in zstd else ""), rows=len(rows), interval_ns=interval,
                     available_in_deployment=deployable)
        if source == "perf_event":
            entry["ratios"] = {"ipc": {"numerator": "instructions", "denominator": "cycles"},
                               "cache_miss_rate": {"numerator": None, "denominator": None}}
        m["sources"][source] = entry
        with open(os.path.join(d, f), "w") as out:
            prev = 0
            for seq, r in enumerate(rows):
                r = dict(r)
                t, final = r.pop("t"), r.pop("final")
                row = dict(episode=name, source=source, available_in_deployment=deployable, seq=seq,
                           t_mono_ns=t, t_wall_ns=1_700_000_000 * 1000 * MS + t, interval_ns=t - prev,
                           final=final, labels=labels, **r)
                out.write(json.dumps(row) + "\n")
                prev = t
        if source in zstd:
            subprocess.run(["zstd", "-q", "--rm", os.path.join(d, f)], check=True)
    with open(os.path.join(d, "manifest.json"), "w") as out:
        json.dump(m, out)


def proc_io_row(t, wchar, nprocs, rchar=None, final=False, syscr=0, syscw=0):
    """A proc_io row at t."""
    return dict(t=t, final=final, rchar=rchar, wchar=wchar, syscr=syscr, syscw=syscw, read_bytes=0,
                write_bytes=0, cancelled_write_bytes=0, nprocs=nprocs)
