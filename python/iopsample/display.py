# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What %iops shows, apart from running it: iops-profiler's table, each
source's view, and the two histograms, each as text and as HTML or a
picture. Every figure comes from one episode's totals (`iopsample export
--episodes`, export's rules over the whole episode), never from adding rows
up here."""
import html

HIST_BUCKETS = 32


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return ("%d %s" % (n, unit)) if unit == "B" else "%.2f %s" % (n, unit)
        n /= 1024.0


def _num(v):
    return "null" if v is None else "{:,}".format(v) if isinstance(v, int) else "%.4g" % v


def _ok(manifest, source):
    entry = manifest["sources"].get(source)
    return entry is not None and entry.get("status") == "ok"


def iops_table(manifest, totals, elapsed_s, everything=False):
    """iops-profiler's figures: {"rows": [(label, value text)], "note": str}.

    By default what the code did to regular files (syscall_io's by_kind.file):
    the kernel's own messaging, sockets and pipes, is left out. everything
    counts every descriptor, or falls back to proc_io when syscall_io did
    not run."""
    if _ok(manifest, "syscall_io"):
        if everything:
            pre, note = "syscall_io.", "Everything the process did, on every descriptor (syscall_io)."
        else:
            pre, note = ("syscall_io.by_kind.file.",
                         "Files only: reads and writes of regular files (syscall_io's by_kind.file); the "
                         "kernel's own sockets and pipes are left out (--all counts them).")
        r_ops, w_ops = totals[pre + "read_calls"], totals[pre + "write_calls"]
        r_b, w_b = totals[pre + "read_bytes"], totals[pre + "write_bytes"]
    elif _ok(manifest, "proc_io"):
        why = manifest["sources"].get("syscall_io", {}).get("error") or "not asked for"
        note = ("Everything the process did, sockets and pipes included (proc_io's syscr, syscw, rchar, "
                "wchar): syscall_io did not run (%s)." % why)
        r_ops, w_ops, r_b, w_b = (totals["proc_io." + f] for f in ("syscr", "syscw", "rchar", "wchar"))
    else:
        return {"rows": [("Execution Time", "%.4f seconds" % elapsed_s)],
                "note": "No I/O figures: neither syscall_io nor proc_io ran."}
    if manifest["sources"].get("syscall_io", {}).get("backend") == "ptrace":
        note += (" syscall_io traced the code with ptrace (%s): each counted call "
                 "stopped it twice, so it ran slower than it does alone, and the Execution Time and rates "
                 "are its time under the tracer." % (manifest["sources"]["syscall_io"].get("backend_reason")
                                                     or "no reason given"))
    ops, nbytes = r_ops + w_ops, r_b + w_b
    rate = (lambda x: x / elapsed_s) if elapsed_s > 0 else (lambda x: 0.0)
    rows = [("Execution Time", "%.4f seconds" % elapsed_s),
            ("Read Operations", _num(r_ops)),
            ("Write Operations", _num(w_ops)),
            ("Total Operations", _num(ops)),
            ("Bytes Read", "%s (%s bytes)" % (_fmt_bytes(r_b), _num(r_b))),
            ("Bytes Written", "%s (%s bytes)" % (_fmt_bytes(w_b), _num(w_b))),
            ("Total Bytes", "%s (%s bytes)" % (_fmt_bytes(nbytes), _num(nbytes))),
            ("IOPS", "%.2f operations/second" % rate(ops)),
            ("Throughput", "%s/second" % _fmt_bytes(rate(nbytes)))]
    return {"rows": rows, "note": note}


def source_views(manifest, totals):
    """Each source: (name, "deployable" or "oracle", [(field, total text)]
    or the one line of why it did not run). Top-level fields only, as
    totals over the episode; nested ones are in ep.frame()."""
    out = []
    for source, entry in manifest["sources"].items():
        kind = "deployable" if entry.get("available_in_deployment") else "oracle"
        if entry.get("status") != "ok":
            out.append((source, kind, "%s: %s" % (entry.get("status"), entry.get("error") or "no reason given")))
            continue
        pre = source + "."
        fields = [(k[len(pre):], v) for k, v in totals.items()
                  if k.startswith(pre) and "." not in k[len(pre):] and not isinstance(v, (str, bool))
                  and k[len(pre):] not in ("interval_ns", "rows", "missed_ticks")]
        out.append((source, kind, [(f, _num(v)) for f, v in fields]))
    return out


def verdict_line(totals, cannot_tell=()):
    """The cell's verdict in one line, from `iopsample verdict`'s totals:
    the label with the most time, its share, the others' above 1 %, and
    the evidence; then the labels the sources could not tell apart."""
    if totals.get("verdict") is None:  # an episode with no rows: no windows
        return "Verdict: none (%s)" % (totals.get("evidence") or "no rows")
    share = totals["share"]
    others = ", ".join("%s %.0f %%" % (k, 100 * v) for k, v in sorted(share.items(), key=lambda kv: -kv[1])
                       if k != totals["verdict"] and v >= 0.01)
    line = "Verdict: %s, %.0f %% of the time%s: %s" % (totals["verdict"], 100 * share[totals["verdict"]],
                                                        " (%s)" % others if others else "", totals["evidence"])
    if cannot_tell:
        line += (" [%d limit%s of the sources that ran: some labels cannot be told apart here; "
                 "Episode.verdict().attrs['cannot_tell'] says which]" % (len(cannot_tell), "s"[:len(cannot_tell) > 1]))
    return line


def text(table, views, verdict=None):
    """The plain-text rendering, for a terminal."""
    width = max(len(label) for label, _ in table["rows"]) + 2
    lines = ["IOPS Profile (iopsample)", "=" * 60]
    if verdict:
        lines += [verdict, "-" * 60]
    lines += ["%-*s %s" % (width, label + ":", value) for label, value in table["rows"]]
    lines += ["-" * 60, table["note"], ""]
    for source, kind, seen in views:
        if isinstance(seen, str):
            lines.append("%s (%s): %s" % (source, kind, seen))
            continue
        lines.append("%s (%s):" % (source, kind))
        fw = max([len(f) for f, _ in seen] + [1])
        lines += ["  %-*s %15s" % (fw, f, v) for f, v in seen]
    return "\n".join(lines)


_STYLE = ("<style>.iops-t{border-collapse:collapse;font-family:monospace;font-size:13px;margin:4px 12px 4px 0}"
          ".iops-t td,.iops-t th{padding:3px 10px;border:1px solid #ddd;text-align:left}"
          ".iops-t td.n{text-align:right}.iops-t th{background:#f5f5f5}"
          ".iops-note{font-size:12px;color:#555;max-width:48em}"
          ".iops-box{display:flex;flex-wrap:wrap;align-items:flex-start}</style>")


def html_view(table, views, verdict=None):
    """The HTML rendering: the verdict, the table, and each source's view beside it."""
    e = html.escape
    main = "".join("<tr><td>%s</td><td class=n>%s</td></tr>" % (e(a), e(b)) for a, b in table["rows"])
    parts = ["<table class=iops-t><tr><th colspan=2>IOPS Profile (iopsample)</th></tr>%s</table>" % main]
    for source, kind, seen in views:
        head = "<tr><th colspan=2>%s <small>(%s)</small></th></tr>" % (e(source), e(kind))
        if isinstance(seen, str):
            body = "<tr><td colspan=2>%s</td></tr>" % e(seen)
        else:
            body = "".join("<tr><td>%s</td><td class=n>%s</td></tr>" % (e(f), e(v)) for f, v in seen)
        parts.append("<table class=iops-t>%s%s</table>" % (head, body))
    head = "<p class=iops-verdict>%s</p>" % e(verdict) if verdict else ""
    return "%s%s<div class=iops-box>%s</div><div class=iops-note>%s</div>" % (
        _STYLE, head, "".join(parts), e(table["note"]))


def size_histograms(totals, everything=False):
    """syscall_io's size histograms over the episode, counting what the
    table counts: {"read": [32 counts], "write": [...], "what": words}, of
    regular files alone (file_read_size_hist, file_write_size_hist), or of
    every descriptor with everything (read_size_hist, write_size_hist); None
    when syscall_io did not run. An episode of an iopsample before the
    file histograms gives every descriptor's, and says so."""
    def hists(prefix):
        out = {}
        for side in ("read", "write"):
            key = "syscall_io.%s%s_size_hist." % (prefix, side)
            counts = [totals.get(key + str(i)) for i in range(HIST_BUCKETS)]
            if any(c is None for c in counts):
                return None
            out[side] = counts
        return out
    files = None if everything else hists("file_")
    if files is not None:
        return dict(files, what="regular files only (--all: every descriptor)")
    every = hists("")
    if every is None:
        return None
    return dict(every, what="every descriptor" + ("" if everything else
                                                  " (this episode has no files-only histograms)"))


def bucket_bounds(i):
    """Bucket i's byte counts [lo, hi] (docs/data-model.md: 0 is 0 bytes,
    i is 2^(i-1) to 2^i - 1, 31 is 1 GiB or more)."""
    if i == 0:
        return 0, 0
    return 2 ** (i - 1), (2 ** i - 1 if i < HIST_BUCKETS - 1 else None)


def histogram_figure(hists):
    """iops-profiler's two charts from the log2 buckets: operations by
    size, and the bytes they moved (a band between the bucket's bounds:
    the rows count operations per bucket, not bytes), for reads, writes
    and all, on log-scale axes. A matplotlib Figure (no pyplot state)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    fig = Figure(figsize=(13, 4.5))
    ax_ops, ax_bytes = fig.subplots(1, 2)
    used = [i for i in range(1, HIST_BUCKETS) if hists["read"][i] or hists["write"][i]]
    zero = hists["read"][0] + hists["write"][0]
    series = (("all", [r + w for r, w in zip(hists["read"], hists["write"])], "-"),
              ("reads", hists["read"], "--"), ("writes", hists["write"], ":"))
    if used:
        lo_i, hi_i = max(1, used[0] - 1), min(HIST_BUCKETS - 1, used[-1] + 1)
        xs = list(range(lo_i, hi_i + 1))
        starts = [bucket_bounds(i)[0] for i in xs]
        for label, counts, style in series:
            ax_ops.step(starts, [counts[i] for i in xs], where="post", linestyle=style, label=label, linewidth=2)
            low = [counts[i] * bucket_bounds(i)[0] for i in xs]
            high = [counts[i] * (bucket_bounds(i)[1] or bucket_bounds(i)[0]) for i in xs]
            ax_bytes.step(starts, low, where="post", linestyle=style, label=label, linewidth=2)
            ax_bytes.fill_between(starts, low, high, step="post", alpha=0.15)
        for ax in (ax_ops, ax_bytes):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _fmt_bytes(int(x)).replace(".00", "")))
            ax.grid(True, alpha=0.3)
            ax.legend()
            ax.set_xlabel("bytes per operation (log2 buckets)")
    title = "operations by size" + (" (and %d of 0 bytes)" % zero if zero else "")
    ax_ops.set_title(title)
    ax_ops.set_ylabel("operations")
    ax_bytes.set_title("bytes moved by size (between the bucket's bounds)")
    ax_bytes.set_ylabel("bytes")
    fig.suptitle("syscall_io's size histograms: %s" % hists.get("what", "every descriptor"), fontsize=10)
    fig.tight_layout()
    return fig
