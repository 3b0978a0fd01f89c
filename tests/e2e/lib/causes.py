# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""block_io's causes judged (tests/e2e/causes.sh, the kernel matrix's
`causes`): the sums every row must hold, the ledger across sources, and each
case against what tests/workloads/cachework says it did."""
import json

from epi import expect

CAUSES = ("direct", "demand", "readahead", "mmap", "writeback", "sync", "swap", "metadata")
DIRS = ("read", "write")


def cause(ep, c, d):
    return sum(r["by_cause"][c]["%s_bytes" % d] for r in ep.rows["block_io"])


def rows_hold(ep, most_unattributed=0.01, inferred_ok=False):
    """In every row, top level and per device: tree + other + unattributed =
    all_*, bytes; the causes sum to the tree's bytes and bios. A row with a
    bio whose end no program saw (the manifest's ends_inferred: the kernel
    skipped the completion's program, so all_* missed the request too)
    holds those bytes beside all_*: none is allowed unless inferred_ok, and
    those rows are left out then, the others held. Returns the episode's
    unattributed share of all_* bytes, which must be at most
    most_unattributed."""
    src = ep.manifest["sources"]["block_io"]
    inferred = src["ends_inferred"]
    expect(inferred_ok or inferred["bios"] == 0, "ends inferred: %s (recursion_misses %s)" % (
        inferred, src["recursion_misses"]))
    for r in ep.rows["block_io"]:
        where = "block_io row %d" % r["seq"]
        for d in DIRS:
            for k in ("bytes", "ops"):
                s = sum(r["by_cause"][c]["%s_%s" % (d, k)] for c in CAUSES)
                expect(s == r["%s_%s" % (d, k)], "%s: causes' %s_%s %d, the tree's %d" % (where, d, k, s, r["%s_%s" % (d, k)]))
        if r["seq"] in inferred["rows"]:
            continue
        for scope, f in [("", r)] + [(" " + n, d) for n, d in r["by_device"].items()]:
            for d in DIRS:
                parts = f["%s_bytes" % d] + f["other_%s_bytes" % d] + f["unattributed_%s_bytes" % d]
                expect(parts == f["all_%s_bytes" % d], "%s%s: tree %d + other %d + unattributed %d != all_%s_bytes %d "
                       "(ends inferred in rows %s)" % (
                           where, scope, f["%s_bytes" % d], f["other_%s_bytes" % d], f["unattributed_%s_bytes" % d], d,
                           f["all_%s_bytes" % d], inferred["rows"]))
    everything = ep.total("block_io", "all_read_bytes") + ep.total("block_io", "all_write_bytes")
    unplaced = ep.total("block_io", "unattributed_read_bytes") + ep.total("block_io", "unattributed_write_bytes")
    expect(unplaced <= most_unattributed * everything, "unattributed %d of %d bytes" % (unplaced, everything))
    return unplaced / everything if everything else 0.0


def diskstats_placed(ep, dirs):
    """Every byte diskstats counted is block_io's all_*, so placed (with,
    where the kernel skipped a completion's program, the bytes of the
    tree's bios whose end was inferred, which the request all_* missed
    held): device by device, and in the totals where both leave the same
    devices out
    (a stack on a partition of a selected disk, the manifest's
    partly_under: diskstats cannot tell its clones from the disk's own
    requests, and counts them twice)."""
    dev = lambda src, name, f: sum(r["by_device"][name][f] for r in ep.rows[src])
    names = list(ep.rows["block_io"][0]["by_device"])

    def missed(f, d):
        """What a row with an inferred end (rows_hold) holds beside all_*:
        the tree's bios whose request all_* missed with its completion's
        program, which diskstats counted."""
        parts = lambda x: x["%s_bytes" % d] + x["other_%s_bytes" % d] + x["unattributed_%s_bytes" % d]
        return sum(max(0, parts(f(r)) - f(r)["all_%s_bytes" % d]) for r in ep.rows["block_io"])
    for d in dirs:
        for n in names:
            ds, al = dev("diskstats", n, "%s_bytes" % d), dev("block_io", n, "all_%s_bytes" % d)
            m = missed(lambda r: r["by_device"][n], d)
            expect(ds == al + m, "%s: diskstats %s_bytes %d, block_io all_%s_bytes %d (+ %d of ends inferred)" % (
                n, d, ds, d, al, m))
        devs = ep.manifest["sources"]["diskstats"]["devices"]
        counted = lambda src: [x["name"] for x in ep.manifest["sources"][src]["devices"] if x["in_totals"]]
        if counted("diskstats") == counted("block_io") and not any("partly_under" in x for x in devs):
            ds, al = ep.total("diskstats", "%s_bytes" % d), ep.total("block_io", "all_%s_bytes" % d)
            m = missed(lambda r: r, d)
            expect(ds == al + m, "diskstats %s_bytes %d, block_io all_%s_bytes %d (+ %d of ends inferred)" % (
                d, ds, d, al, m))


def ledger(ep):
    """proc_io's write_bytes - cancelled_write_bytes = direct + writeback +
    sync + the final dirty_bytes."""
    rows = ep.rows["block_io"]
    dirtied = ep.total("proc_io", "write_bytes") - ep.total("proc_io", "cancelled_write_bytes")
    placed = sum(cause(ep, c, "write") for c in ("direct", "writeback", "sync")) + rows[-1]["dirty_bytes"]
    # exact, but for one page proc_io counted and block_io did not see
    # dirtied, in 2 of some 30 runs of these episodes, both under a whole
    # make check's load: not found (docs/data-model.md, the ledger)
    expect(0 <= dirtied - placed <= 4096, "ledger: proc_io write_bytes - cancelled %d, direct + writeback + sync + dirty %d" % (
        dirtied, placed))
    return dirtied


def zeroes_and_discards(ep, n):
    """blkdiscard -z of n bytes, then blkdiscard of n more, on a raw device:
    the write-zeroes in all_write_zeroes_* and unattributed (no rule places
    them), the discard the tree's and in all_discard_*, and both as
    diskstats counts them."""
    rows_hold(ep, 1.0)
    t = lambda f: ep.total("block_io", f)
    expect(t("all_write_zeroes_bytes") == n and t("all_write_zeroes_ops") >= 1,
           "all_write_zeroes_bytes %d, blkdiscard -z asked for %d" % (t("all_write_zeroes_bytes"), n))
    expect(t("unattributed_write_bytes") == t("all_write_zeroes_bytes"),
           "unattributed_write_bytes %d, write-zeroes %d" % (t("unattributed_write_bytes"), t("all_write_zeroes_bytes")))
    expect(t("all_discard_bytes") == t("discard_bytes") == ep.total("diskstats", "discard_bytes") == n,
           "discards: all %d, the tree's %d, diskstats %d, blkdiscard asked for %d" % (
               t("all_discard_bytes"), t("discard_bytes"), ep.total("diskstats", "discard_bytes"), n))
    expect(t("all_discard_ops") == ep.total("diskstats", "discard_ops"), "discard ops %d, diskstats %d" % (
        t("all_discard_ops"), ep.total("diskstats", "discard_ops")))
    diskstats_placed(ep, DIRS)
    expect(t("all_write_ops") == ep.total("diskstats", "write_ops"), "write ops %d, diskstats %d" % (
        t("all_write_ops"), ep.total("diskstats", "write_ops")))
    return "write-zeroes %d KiB (unattributed), discards %d KiB, all_write_bytes %d KiB as diskstats" % (
        t("all_write_zeroes_bytes") >> 10, t("all_discard_bytes") >> 10, t("all_write_bytes") >> 10)


def swapped(ep, before, after):
    """The tree's swap-outs and swap-ins as swap, to the page: the host's
    pswpout and pswpin over the episode. Under this pressure the kernel may
    skip a completion's program: those ends are inferred, their rows left
    out of the sums."""
    rows_hold(ep, inferred_ok=True)
    page = 4096
    v = {}
    for path, sign in ((before, -1), (after, 1)):
        for line in open(path):
            k, n = line.split()
            v[k] = v.get(k, 0) + sign * int(n)
    got = (cause(ep, "swap", "read"), cause(ep, "swap", "write"))
    expect(got[1] > 0 and got[0] > 0, "swap read %d, written %d: the tree did not swap" % got)
    # every swap-in is the tree's, in its faults; a swap-out may be
    # kswapd's, of the tree's pages or another's: in other_write_bytes
    other = ep.total("block_io", "other_write_bytes")
    expect(got[0] == v["pswpin"] * page, "swap read %d; pswpin %d pages" % (got[0], v["pswpin"]))
    # swap-outs: pswpout counts them as submitted; in one run of ten here
    # block_io had 2 % fewer, in no count of the device's (not found yet).
    # Most are the tree's own reclaim, under its limit; kswapd's share was
    # 4.5 % once on CI's load (all of it in other_write_bytes)
    expect(0.90 * v["pswpout"] * page <= got[1] <= v["pswpout"] * page <= got[1] + other + 0.03 * v["pswpout"] * page,
           "swap written %d, others wrote %d; pswpout %d pages" % (got[1], other, v["pswpout"]))
    others = {"%s %s" % (c, d): cause(ep, c, d) for c in CAUSES if c != "swap" for d in DIRS if cause(ep, c, d)}
    return "swap: %d KiB in (pswpin's), %d KiB out of pswpout's %d KiB (others wrote %d KiB); beside it %s; " \
        "ends inferred %s, recursion misses %s" % (
            got[0] >> 10, got[1] >> 10, v["pswpout"] * page >> 10, other >> 10, others or "nothing",
            ep.manifest["sources"]["block_io"]["ends_inferred"], ep.manifest["sources"]["block_io"]["recursion_misses"])


def judge(ep, what, n, did_path, unseen_ok=False):
    """Holds the episode to what cachework (its report at did_path) did.
    unseen_ok: a host whose kernel runs no program while its agent's task is
    current (this VM: docs/data-model.md), where a completion may go unseen
    and its end be inferred (counted whole, in no latency bucket)."""
    with open(did_path) as f:
        text = f.read()
    did = json.loads(text) if text.strip() else {}
    rows = ep.rows["block_io"]
    # 20 000 files' writeback is thousands of bios at once: there a few of
    # their completions go unseen on such a host, and are inferred
    unplaced = rows_hold(ep, inferred_ok=what == "many" or unseen_ok)
    # flush_dirty's writes come after the tree: diskstats' final row does
    # not wait for them
    flushed = ep.manifest["config"]["sources"]["block_io"].get("flush_dirty")
    diskstats_placed(ep, ("read",) if flushed else DIRS)
    got = {c: (cause(ep, c, "read"), cause(ep, c, "write")) for c in CAUSES}
    said = ", ".join("%s %d/%d" % (c, r >> 10, w >> 10) for c, (r, w) in got.items() if r or w)
    if what == "every":
        expect(did["direct"] == did["fsync"] == did["buffered"] == did["read"] == did["mmap"] == n, "cachework: %s" % did)
        expect(got["direct"][1] == n, "direct writes %d of %d" % (got["direct"][1], n))
        wb, sy = got["writeback"][1], got["sync"][1]
        expect(wb + sy == 2 * n and wb >= n, "writeback %d + sync %d, the tree wrote 2 x %d through the cache" % (wb, sy, n))
        rd = got["readahead"][0] + got["demand"][0]
        expect(rd == n, "readahead + demand %d of a cold read of %d" % (rd, n))
        expect(got["mmap"][0] == n, "mmap %d of a cold scan of %d" % (got["mmap"][0], n))
        expect(rows[-1]["dirty_bytes"] == 0, "final dirty_bytes %d after flush_dirty" % rows[-1]["dirty_bytes"])
        fl = ep.manifest["sources"]["block_io"]["flush_dirty"]
        expect(fl["inodes"] >= 1 and fl["refused"] == 0, "flush_dirty: %s" % fl)
        ledger(ep)
    elif what == "dirty":
        wb, left = got["writeback"][1] + got["sync"][1], rows[-1]["dirty_bytes"]
        expect(wb + left == n, "written back %d + left dirty %d, the tree wrote %d" % (wb, left, n))
        ledger(ep)
        said += "; left dirty %d KiB" % (left >> 10)
    elif what.startswith("outside:"):  # the writer's comm; it wrote n / 2 with O_DIRECT
        writer = what.split(":", 1)[1]
        tree = ep.total("block_io", "read_bytes") + ep.total("block_io", "write_bytes")
        other = ep.total("block_io", "other_write_bytes")
        expect(tree == 0, "the tree's bytes %d: it wrote nothing" % tree)
        expect(other >= n // 2, "other_write_bytes %d, the outside writer wrote %d" % (other, n // 2))
        top = ep.manifest["sources"]["block_io"]["other_top"]
        mine = [t for t in top if t["comm"] == writer]
        expect(mine and mine[0]["write_bytes"] == n // 2, "other_top: %s" % top)
        said = "other %d KiB; other_top %s" % (other >> 10, ", ".join("%s %d KiB" % (t["comm"], (t["read_bytes"] + t["write_bytes"]) >> 10) for t in top))
    elif what == "loader":
        expect(did["forks"] == did["fsync"] == n, "cachework: %s" % did)
        rd = got["readahead"][0] + got["demand"][0]
        expect(rd == n, "readahead + demand %d, 8 readers read %d cold" % (rd, n))
        expect(got["writeback"][1] + got["sync"][1] == n, "checkpoint written back %d of %d" % (
            got["writeback"][1] + got["sync"][1], n))
        ledger(ep)
    elif what == "many":  # files of a page each, written by the tree (synced every so many, or not)
        wrote, files = did["bytes"], did["files"]
        wb, sy = got["writeback"][1], got["sync"][1]
        expect(rows[-1]["dirty_bytes"] == 0, "final dirty_bytes %d" % rows[-1]["dirty_bytes"])
        ti = ep.manifest["sources"]["block_io"]["tree_inodes"]
        fl = ep.manifest["sources"]["block_io"].get("flush_dirty")
        if ti.get("test_size") and not did["synced_every"]:
            # a table too small, every inode still dirty: those past it are
            # said, with their bytes, and are not the tree's writeback
            over = files - ti["size"]
            expect(ti["refused_folios"] == over and ti["refused_bytes"] == over * 4096,
                   "tree_inodes %s: %d files in a table of %d" % (ti, files, ti["size"]))
            expect(abs(wb + sy - ti["size"] * 4096) <= 0.001 * wrote, "writeback %d + sync %d, %d inodes kept" % (
                wb, sy, ti["size"]))
        else:
            expect(wb + sy >= 0.999 * wrote, "writeback %d + sync %d of %d bytes in %d files" % (wb, sy, wrote, files))
            expect(ti["refused_folios"] == 0 and ti["refused_bytes"] == 0, "tree_inodes: %s" % ti)
            if did["synced_every"]:
                expect(ti.get("test_size") and ti["pruned"] >= files - ti["size"],
                       "tree_inodes %s: %d files in a table of %d" % (ti, files, ti["size"]))
            elif files <= 20000:
                # (the flusher leaves a file's pages 30 s: in an episode of a
                # few, nearly all are still dirty when the tree ends)
                expect(fl["refused"] == 0 and fl["inodes"] > 16384, "flush_dirty: %s, %d files" % (fl, files))
            else:
                # (400 MiB of 100 000 pass the new loop device's share of the
                # dirty limit, which grows with what the device wrote: the
                # kernel writes most of them back as they come, 75 % in one
                # run here, and flush_dirty asks for the rest)
                expect(fl["refused"] == 0 and fl["inodes"] >= 1, "flush_dirty: %s, %d files" % (fl, files))
            ledger(ep)
        said += "; %d files: tree_inodes %s" % (files, ti)
    elif what in ("sync_other", "fsync_shared"):
        # the other dirtied 32 MiB (sync_other) or 8 MiB of the shared file
        # before the episode; the tree dirtied nothing, or the file's other 8
        mine = 0 if what == "sync_other" else 8 << 20
        theirs = 32 << 20 if what == "sync_other" else 8 << 20
        tree_w = ep.total("block_io", "write_bytes")
        other_w = ep.total("block_io", "other_write_bytes")
        expect(tree_w == mine and got["sync"][1] == mine, "the tree's writes %d (sync %d), it dirtied %d" % (
            tree_w, got["sync"][1], mine))
        expect(other_w >= theirs, "other_write_bytes %d, the other dirtied %d" % (other_w, theirs))
        ledger(ep)
        said += "; other %d KiB" % (other_w >> 10)
    return "%s: causes (KiB read/written) %s; unattributed %.3f %% of all_*" % (what, said, 100 * unplaced)
