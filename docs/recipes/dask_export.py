#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Many iopsample episodes on one grid, computed on a Dask cluster.

    dask_export.py EPISODE_DIR... --grid DURATION [--scheduler ADDRESS]
                   [--workers N] -o FILE.csv

writes the CSV `iopsample export EPISODE_DIR... --grid DURATION -o FILE.csv`
writes: one row per episode and grid cell, the same columns in the same
order, the same values (docs/data-model.md, "Exporting"). Each source file
of each episode is one task: it reads the rows as typed columns (`iopsample
schema --columns SOURCE --dialect dask`) and spreads them over the grid;
each episode is one more task that joins its sources' cells. Only this
process runs `iopsample`; the workers need Python 3 with pandas, numpy and
zstandard, and the episode directories at the same paths (shared storage).

With no --scheduler it starts a LocalCluster of N worker processes (2 by
default) on 127.0.0.1 and shuts it down when done, on every path; with one
(`tcp://host:8786`, as `dask-scheduler` prints) it uses that cluster.

Exit status, as export's: 0; 64 usage (a grid finer than an interval, an
episode named twice); 65 an episode that is running or failed, a row that
is not what the schemas say; 66 an episode that cannot be read; 73 FILE
cannot be created. Needs Dask 2022.12 or later (Debian 12:
python3-distributed, python3-zstandard).
"""
import argparse
import functools
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd

ENVELOPE = ("episode", "source", "available_in_deployment", "seq", "t_mono_ns", "t_wall_ns",
            "interval_ns", "final", "labels")
# How a field combines in a cell, from the schemas' "x-gauge": true (max) and
# "x-cell"; every other field is a count (sum). By the field's own name, which
# for a member of by_device is the member's (by_device.sda.in_flight: max).
RULES = {"nprocs": "max", "in_flight": "max", "dirty_bytes": "max", "nthreads": "max", "memory_bytes": "max", "tree_cpus": "max",
         "memory_peak_bytes": "max", "anon_bytes": "max", "file_bytes": "max",
         "running_pct": "min", "util_pct": "mean", "ipc": "ratio", "cache_miss_rate": "ratio",
         "mem_used_bytes": "max", "tree_mem_bytes": "max", "tree_processes": "max", "power_mw": "max",
         "temperature_c": "max", "gpu_idle": "max", "applications_clocks": "max", "sw_power_cap": "max",
         "hw_slowdown": "max", "sync_boost": "max", "sw_thermal": "max", "hw_thermal": "max",
         "hw_power_brake": "max", "display_clocks": "max", "gpu_util_pct": "mean", "mem_util_pct": "mean",
         "sm_clock_mhz": "mean", "daemon_pid": "max", "link_speed_mbps": "max", "rtt_ns_per_op": "ratio",
         "waiting": "max"}
UNITS = {"h": 3600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


class Refused(Exception):
    """An input export would refuse: the message and the exit status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # raised on a worker, raised again here
        return Refused, (self.status, str(self))


# ---- on the workers: one source file of one episode into its cells ----------


def read_text(path):
    """The file's text; a .zst file's frames one after the other, each whole
    (a file cut inside a frame is damaged, as export says)."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".zst"):
        import zstandard
        text = []
        while data:
            frame = zstandard.ZstdDecompressor().decompressobj()
            try:
                text.append(frame.decompress(data))
            except zstandard.ZstdError as e:
                raise Refused(65, f"{path}: not zstd: {e}") from None
            if not frame.eof:
                raise Refused(65, f"{path}: the zstd stream ends inside a frame")
            data = frame.unused_data
        data = b"".join(text)
    if data and not data.endswith(b"\n"):
        raise Refused(65, f"{path}: the last row is unfinished (no newline)")
    return data.decode()


def read_rows(path, dtypes):
    """The file's rows as a DataFrame of the dialect's dtypes."""
    lines = read_text(path).splitlines()
    rows = []
    for n, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except ValueError as e:
            raise Refused(65, f"{path}:{n}: not a JSON row: {e}") from None
    frame = pd.DataFrame.from_records(rows, columns=list(dtypes))
    try:
        return frame.astype(dtypes)
    except (TypeError, ValueError) as e:
        raise Refused(65, f"{path}: a field is not of its schema's type: {e}") from None


def leaf_paths(value, path=()):
    """The paths to every number of a row field: an array's elements and an
    object's members in turn, as export names them (by_syscall.read.calls)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaf_paths(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaf_paths(v, path + (i,))]
    return [path]


def pick(value, path):
    for step in path:
        value = value[step]
    return value


def spans(frame, interval):
    """The time each row covers, (t0, t1]: a row ends at the point of the
    source's interval at or before its t_mono_ns (a late row covers the points
    it missed); the final row, taken off the grid, at its t_mono_ns."""
    t = frame["t_mono_ns"].to_numpy(np.int64)
    point = np.where(frame["final"].to_numpy(bool), t, t - t % interval)
    t1 = np.maximum.accumulate(point)
    t0 = np.concatenate(([0], t1[:-1]))
    return t0, t1


def pieces(t0, t1, grid):
    """Each (row, cell) a row reaches, in row order: the row, the cell k, the
    time the row has covered up to the cell's end, and the overlap (a row of
    no length is a point at its end, in the cell that ends at or after it)."""
    point = t1 == t0
    k1 = np.maximum((t1 + grid - 1) // grid - 1, 0)
    k0 = np.where(point, k1, t0 // grid)
    n = k1 - k0 + 1
    row = np.repeat(np.arange(len(t0)), n)
    k = k0[row] + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
    end = np.minimum(t1[row], (k + 1) * grid)
    covered = end - t0[row]
    overlap = np.where(point[row], 1, end - np.maximum(t0[row], k * grid))
    return row, k, covered, overlap, k == k1[row]


def sum_cells(values, nulls, t0, t1, row, k, covered, starts):
    """A count's cells: each row's share of its value in proportion to the time
    it overlaps, floor(value x covered / length) less what earlier cells got,
    so that a row's parts add up to it exactly; unknown where a null row
    overlaps the cell."""
    length = (t1 - t0)[row]
    whole = (length == 0) | (covered == length)
    v = values[row]
    if int(np.abs(values).max(initial=0)) * int(length.max(initial=1)) >= 2**63:
        v, covered, length = v.astype(object), covered.astype(object), length.astype(object)
    upto = np.where(whole, v, v * covered // np.where(length == 0, 1, length))
    first = np.concatenate(([True], row[1:] != row[:-1]))
    given = np.where(first, 0, np.roll(upto, 1))
    sums = np.add.reduceat(upto - given, starts)
    unknown = np.logical_or.reduceat(nulls[row], starts)
    return [None if u else int(s) for s, u in zip(sums, unknown)]


def source_cells(path, source, interval, grid, dtypes, ratios):
    """The cells the source's rows reach: ({k: {column: value}}, the columns in
    shape order with their field's place in the schema, the last row's end)."""
    frame = read_rows(path, dtypes)
    if frame.empty:
        return {}, [], 0
    first = frame.iloc[0]
    fields = [f for f in dtypes if f not in ENVELOPE]
    leaves = []  # (name, field, path, rule, the field's place in the schema)
    for rank, field in enumerate(fields):
        for p in leaf_paths(first[field]):
            name = ".".join(str(s) for s in (field,) + p)
            key = next((s for s in reversed((field,) + p) if isinstance(s, str)))
            leaves.append((name, field, p, RULES.get(key, "sum"), rank))
    t0, t1 = spans(frame, interval)
    row, k, covered, overlap, ends_here = pieces(t0, t1, grid)
    starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
    cell_k = k[starts]
    bounds = list(zip(starts, list(starts[1:]) + [len(k)]))
    out = {c: {} for c in cell_k.tolist()}
    sums = {}  # a count's cells, by name: a ratio's inputs
    for name, field, p, rule, _ in leaves:
        column = f"{source}.{name}"
        try:
            raw = [pick(v, p) for v in frame[field]] if p else frame[field].tolist()
        except (KeyError, IndexError, TypeError):
            raise Refused(65, f"{path}: {column}: a row without it (export learns a "
                              f"source's fields from its first row)") from None
        # pandas 1.5 gives a nullable column's values as numpy scalars
        raw = [None if v is None or v is pd.NA or v != v else
               v.item() if isinstance(v, np.generic) else v for v in raw]
        if rule == "sum":
            nulls = np.array([v is None for v in raw])
            values = np.array([0 if v is None else v for v in raw], dtype=np.int64)
            cells = sum_cells(values, nulls, t0, t1, row, k, covered, starts)
        elif rule == "max":  # the highest level sampled (at a row's end) in the cell
            cells = [max((raw[r] for r in row[a:b][ends_here[a:b]] if raw[r] is not None),
                         default=None) for a, b in bounds]
        elif rule == "min":  # the lowest over the rows that overlap the cell
            cells = [min((raw[r] for r in row[a:b] if raw[r] is not None), default=None)
                     for a, b in bounds]
        elif rule == "mean":  # weighted by overlap, added up in row order
            cells = []
            for a, b in bounds:
                part = [(raw[r], float(w)) for r, w in zip(row[a:b], overlap[a:b])]
                cells.append(None if any(v is None for v, _ in part) else
                             sum(float(v) * w for v, w in part) / sum(w for _, w in part))
        else:
            cells = None  # a ratio: from the sums, below
        if rule == "sum":
            sums[name] = cells
        for c, value in zip(cell_k.tolist(), cells or []):
            out[c][column] = value
    for name, _, _, rule, _ in leaves:
        if rule != "ratio":  # recomputed from the cell's sums of the fields the manifest names
            continue
        wiring = (ratios or {}).get(name, {})
        num, den = sums.get(wiring.get("numerator")), sums.get(wiring.get("denominator"))
        for i, c in enumerate(cell_k.tolist()):
            n, d = (num[i], den[i]) if num and den else (None, None)
            out[c][f"{source}.{name}"] = None if n is None or not d else float(n) / float(d)
    return out, [(f"{source}.{name}", rank) for name, _, _, _, rank in leaves], int(t1[-1])


def episode_cells(name, labels, grid, *parts):
    """The episode's table: cell 0 to the one where its last row ends, every
    source's columns side by side."""
    columns = [c for p in parts for c in p[1]]
    if not any(cells for cells, _, _ in parts):
        return [], columns
    t_last = max(end for _, _, end in parts)
    table = []
    for k in range(max(max(cells) for cells, _, _ in parts if cells) + 1):
        row = {"episode": name, "t_start_ns": k * grid, "t_end_ns": min((k + 1) * grid, t_last)}
        row.update({f"label.{key}": v for key, v in labels.items()})
        for cells, _, _ in parts:
            row.update(cells.get(k, {}))
        table.append(row)
    return table, columns


# ---- here: the episodes, the cluster, the table ------------------------------


def natural(a, b):
    """export's order of a source's columns with one place in the schema:
    dotted names, numbers compared as numbers (read_size_hist.10 after .9)."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i].isdigit() and b[j].isdigit():
            ea, eb = i, j
            while ea < len(a) and a[ea].isdigit():
                ea += 1
            while eb < len(b) and b[eb].isdigit():
                eb += 1
            if int(a[i:ea]) != int(b[j:eb]):
                return -1 if int(a[i:ea]) < int(b[j:eb]) else 1
            i, j = ea, eb
            continue
        if a[i] != b[j]:
            return -1 if a[i].encode() < b[j].encode() else 1
        i, j = i + 1, j + 1
    return (len(a) - i > 0) - (len(b) - j > 0)


def duration(text):
    m = re.fullmatch(r"(\d*(?:\.\d+)?)(ns|us|ms|s|m|h)", text)
    ns = Fraction(m.group(1)) * UNITS[m.group(2)] if m and m.group(1) else None
    if ns is None or ns.denominator != 1 or ns <= 0:
        raise Refused(64, f"--grid {text}: not a duration (a number and ns, us, ms, s, m or h)")
    return int(ns)


def manifest(directory):
    try:
        with open(os.path.join(directory, "manifest.json")) as f:
            m = json.load(f)
    except OSError as e:
        raise Refused(66, f"{directory}: {e.strerror}") from None
    except ValueError as e:
        raise Refused(65, f"{directory}/manifest.json: {e}") from None
    if m.get("status") not in ("complete", "interrupted"):
        raise Refused(65, f"{directory}: episode {m.get('episode')} is {m.get('status')}: "
                          "export refuses it")
    return m


IOPSAMPLE = "iopsample"  # set by main(): found_iopsample()


def found_iopsample():
    """The iopsample to run: $IOPSAMPLE, else the one on PATH, else the build
    beside this recipe (../../build/iopsample); Refused(69) naming where it
    looked when there is none."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "iopsample")
    for path in (os.environ.get("IOPSAMPLE"), shutil.which("iopsample"), os.path.normpath(here)):
        if path and os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    raise Refused(69, "no iopsample: $IOPSAMPLE is %s, none on PATH, none at %s" % (
        repr(os.environ["IOPSAMPLE"]) if "IOPSAMPLE" in os.environ else "unset", os.path.normpath(here)))


def dtypes(source, directories):
    """`iopsample schema --columns SOURCE --dialect dask`: the source's fields
    in export's order, each with its pandas dtype."""
    got = subprocess.run([IOPSAMPLE, "schema", "--columns", source, "--dialect", "dask",
                          *directories], capture_output=True, text=True)
    if got.returncode:
        raise Refused(got.returncode, got.stderr.strip())
    return json.loads(got.stdout)


def csv_field(v):
    """A cell as export writes it: empty for none, integers as integers, real
    numbers in their shortest exact form with a point or an exponent, text
    quoted only when it holds a comma, a quote or a line break."""
    if v is None or v is pd.NA or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        for precision in (15, 16, 17):
            text = "%.*g" % (precision, v)
            if float(text) == v:
                break
        return text if "." in text or "e" in text else text + ".0"
    return '"%s"' % v.replace('"', '""') if re.search('[,"\r\n]', v) else v


def export(client, episodes, grid, output):
    """Submits a task per source file and one per episode, gathers the
    episodes' tables and writes them in the episodes' order."""
    sources = sorted({s for _, m in episodes for s, v in m["sources"].items() if v["file"]})
    types = {s: dtypes(s, [d for d, m in episodes if m["sources"].get(s, {}).get("file")])
             for s in sources}
    futures = []
    for directory, m in episodes:
        parts = [client.submit(source_cells, os.path.join(directory, v["file"]), s,
                               v["interval_ns"], grid, types[s], v.get("ratios"), pure=False)
                 for s, v in sorted(m["sources"].items()) if v["file"]]
        futures.append(client.submit(episode_cells, m["episode"], m.get("labels") or {}, grid,
                                     *parts, pure=False))
    tables = client.gather(futures)
    labels = sorted({f"label.{k}" for _, m in episodes for k in (m.get("labels") or {})})
    place = {}  # column: (source, its field's place in the schema)
    for _, columns in tables:
        for column, rank in columns:
            place.setdefault(column, (column.split(".")[0], rank))

    def order(a, b):
        return (place[a] > place[b]) - (place[a] < place[b]) or natural(a, b)
    header = ["episode", "t_start_ns", "t_end_ns"] + labels + \
        sorted(place, key=functools.cmp_to_key(order))
    with open(output, "w", newline="") as f:
        f.write(",".join(csv_field(c) for c in header) + "\n")
        for table, _ in tables:
            for row in table:
                f.write(",".join(csv_field(row.get(c)) for c in header) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("episodes", nargs="+", metavar="EPISODE_DIR")
    p.add_argument("--grid", required=True, metavar="DURATION")
    p.add_argument("--scheduler", metavar="ADDRESS")
    p.add_argument("--workers", type=int, default=2, metavar="N")
    p.add_argument("-o", required=True, metavar="FILE.csv", dest="output")
    args = p.parse_args()
    # a stop signal unwinds as an exception does: the cluster is shut down
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, _: sys.exit(128 + n))
    global IOPSAMPLE
    try:
        IOPSAMPLE = found_iopsample()
        grid = duration(args.grid)
        episodes = [(d, manifest(d)) for d in args.episodes]
        seen = {}
        for d, m in episodes:
            if m["episode"] in seen:
                raise Refused(64, f"episode {m['episode']} twice: {seen[m['episode']]} and {d}")
            seen[m["episode"]] = d
            for s, v in m["sources"].items():
                if v["file"] and grid < v["interval_ns"]:
                    raise Refused(64, f"--grid {args.grid} is finer than {s}'s interval "
                                      f"({v['interval_ns']} ns) in {d}")
        partial = os.path.join(os.path.dirname(os.path.abspath(args.output)),
                               f".{os.path.basename(args.output)}.{os.getpid()}")
        try:
            open(partial, "w").close()
        except OSError as e:
            raise Refused(73, f"-o {args.output}: {e.strerror}") from None
        try:
            from dask.distributed import Client, LocalCluster
            if args.scheduler:
                with Client(args.scheduler) as client:
                    export(client, episodes, grid, partial)
            else:
                # a failure reaches this process as the task's exception; the
                # cluster's own ERROR logs of it are its teardown racing the
                # failed task (a connection reset), not a second message
                with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  worker_dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL) as cluster, \
                        Client(cluster) as client:
                    export(client, episodes, grid, partial)
            os.rename(partial, args.output)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    except Refused as e:
        print(f"dask_export.py: {e}", file=sys.stderr)
        return e.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
