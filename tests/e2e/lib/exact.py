# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The exactness checks that judge an episode against a workload's own
counts, shared by the tests on this host (syscall_io.sh, block.sh) and the
kernel matrix, which judges here the episodes a guest kernel ran
(tests/kernels/judge.py). Each raises SystemExit with what differs (epi's
expect), else returns a line of the figures it compared."""
from epi import expect

READS = ("read", "pread64", "readv", "preadv", "preadv2")


def syscall_io_matches(ep, w):
    """syscall_io against sysio's report w: every count per syscall, per
    direction and per bucket; every row's histograms add up to its calls."""
    rows = ep.rows["syscall_io"]
    expect(ep.manifest["status"] == "complete", "status " + ep.manifest["status"])
    want = ep.manifest["config"]["sources"]["syscall_io"]["backend"]
    ran = ep.manifest["sources"]["syscall_io"]["backend"]
    expect(want in ("auto", ran), "backend %s ran, %s configured" % (ran, want))
    # the slot reads that left a CPU's newest counts for the next row (ebpf only)
    deferred = ep.manifest["sources"]["syscall_io"].get("slots_deferred")
    expect(type(deferred) is int if ran == "ebpf" else deferred is None,
           "slots_deferred %r with %s" % (deferred, ran))
    for name, want in w["syscalls"].items():
        got = {k: sum(r["by_syscall"][name][k] for r in rows) for k in ("calls", "bytes", "errors")}
        expect(got == want, "%s: episode %s, workload %s" % (name, got, want))
    for d in ("read", "write"):
        names = [n for n in w["syscalls"] if (n in READS) == (d == "read")]
        for f in ("calls", "bytes"):
            want = sum(w["syscalls"][n][f] for n in names)
            got = ep.total("syscall_io", d + "_" + f)
            expect(got == want, "%s_%s %d, workload %d" % (d, f, got, want))
        hist = [sum(r[d + "_size_hist"][b] for r in rows) for b in range(32)]
        expect(hist == w[d + "_size_hist"], "%s_size_hist %s, workload %s" % (d, hist, w[d + "_size_hist"]))
        for r in rows:
            expect(sum(r[d + "_size_hist"]) == r[d + "_calls"], "row %d: %s histogram != calls" % (r["seq"], d))
    errors = sum(v["errors"] for v in w["syscalls"].values())
    expect(errors > 0 and ep.total("syscall_io", "error_calls") == errors, "error_calls")
    calls = sum(v["calls"] for v in w["syscalls"].values())
    return "%s: %d calls, %d B read, %d B written, %d errors: equal over %d rows; %d processes, %d threads, %d signals" % (
        ran, calls, ep.total("syscall_io", "read_bytes"), ep.total("syscall_io", "write_bytes"), errors,
        len(rows), w["processes"], w["threads"], w["signals"])


def block_io_matches(ep, tree, dev):
    """block_io against blkwork direct's report tree, on device dev: ops,
    bytes and size histograms exactly; each row's histograms sum to its ops."""
    rows = ep.rows["block_io"]
    for d in ("read", "write"):
        for what in ("ops", "bytes"):
            f = "%s_%s" % (d, what)
            got = ep.total("block_io", f)
            expect(got == tree[f], "%s: block_io %d, the tree did %d" % (f, got, tree[f]))
            expect(sum(r["by_device"][dev][f] for r in rows) == got, "by_device %s" % f)
        size = [sum(c) for c in zip(*(r[d + "_size_hist"] for r in rows))]
        expect(size == tree[d + "_size_hist"], "%s_size_hist %s, the tree's %s" % (d, size, tree[d + "_size_hist"]))
        for i, r in enumerate(rows):
            expect(sum(r[d + "_size_hist"]) == r[d + "_ops"], "row %d: %s size histogram does not sum to its ops" % (i, d))
    latency_accounted(ep)
    for f in ("flush_ops", "discard_ops", "discard_bytes"):
        expect(ep.total("block_io", f) == 0, f)
    expect(type(ep.manifest["sources"]["block_io"].get("slots_deferred")) is int, "no slots_deferred")
    # the tree's bios in flight counted exactly: back to 0 at the end (a
    # count that drifted would keep the final row waiting for its bound)
    drain = ep.manifest["sources"]["block_io"]["drain"]
    expect(drain["left"] is None, "the final row gave up waiting: %s" % drain)
    return "block_io: the tree's %d reads, %d writes (%d + %d bytes) exactly, in %d rows" % (
        tree["read_ops"], tree["write_ops"], tree["read_bytes"], tree["write_bytes"], len(rows))


def latency_accounted(ep):
    """Each block_io row's latency histograms sum to its ops, but for the
    bios whose end was inferred (the manifest's ends_inferred): those rows
    only, and over the episode that many, less the flushes and discards
    among them, which have no latency histogram (an fsync's empty flush in
    a parallel build's row once). Returns the reads and writes inferred."""
    inferred = ep.manifest["sources"]["block_io"]["ends_inferred"]
    unlatched = others = 0
    for r in ep.rows["block_io"]:
        gap = sum(r[d + "_ops"] - sum(r[d + "_latency_hist"]) for d in ("read", "write"))
        other = r["flush_ops"] + r["discard_ops"]
        expect(gap >= 0, "row %d: more latencies than ops" % r["seq"])
        held = r["seq"] in inferred["rows"]
        expect(held == (gap > 0) or (held and other > 0), "row %d: %d ops without a latency (%d flushes and discards), rows inferred %s" % (
            r["seq"], gap, other, inferred["rows"]))
        unlatched += gap
        others += other if held else 0
    expect(unlatched <= inferred["bios"] <= unlatched + others, "%d ops without a latency, %d ends inferred (%d flushes and discards in their rows)" % (
        unlatched, inferred["bios"], others))
    return unlatched


def diskstats_matches_block_io(ep):
    """diskstats' totals equal block_io's all_* (every request on the device)."""
    for f in ("read_ops", "read_bytes", "write_ops", "write_bytes"):
        b, d = ep.total("block_io", "all_" + f), ep.total("diskstats", f)
        expect(b == d, "block_io all_%s %d, diskstats %s %d" % (f, b, f, d))
    return "diskstats agrees with block_io's all_* (%d reads, %d writes)" % (
        ep.total("diskstats", "read_ops"), ep.total("diskstats", "write_ops"))


def fio_matches(ep, job, engine):
    """syscall_io against fio's JSON job (O_DIRECT on a block device): the
    blockdev bytes are fio's; libaio's requests are the aio family's calls,
    io_uring's the io_uring family's, unless the backend cannot see
    io_uring here, where it is null in every row with the reason in the
    manifest. Returns (the figures, whether io_uring was unseen)."""
    rows = ep.rows["syscall_io"]
    unseen = ep.manifest["sources"]["syscall_io"].get("unseen", {})
    backend = ep.manifest["sources"]["syscall_io"]["backend"]
    blind = engine == "io_uring" and "io_uring" in unseen

    def by(name, f):
        return sum(r["by_syscall"][name][f] for r in rows)
    for side in ("read", "write"):
        got = sum(r["by_kind"]["blockdev"][side + "_bytes"] for r in rows)
        want = 0 if blind else job[side]["io_bytes"]
        expect(got == want, "%s, %s: blockdev %s_bytes %d, expected %d" % (engine, backend, side, got, want))
        got = sum(r["by_kind"]["blockdev"][side + "_calls"] for r in rows)
        want = 0 if blind else job[side]["total_ios"]
        expect(got == want, "%s, %s: blockdev %s_calls %d, fio's requests %d" % (engine, backend, side, got, want))
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    reap = int(job["job options"].get("iodepth_batch_complete_min", "1"))
    expect(ios >= reap, "%d requests, fewer than one reap of %d" % (ios, reap))
    if engine == "libaio":
        expect(by("aio", "calls") == ios and by("aio", "errors") == 0, "aio: %d requests, fio %d" % (by("aio", "calls"), ios))
        expect(by("aio", "bytes") == job["read"]["io_bytes"] + job["write"]["io_bytes"], "aio bytes")
    elif engine == "io_uring" and not blind:
        expect(by("io_uring", "calls") == ios and by("io_uring", "errors") == 0,
               "io_uring: %d requests, fio %d" % (by("io_uring", "calls"), ios))
    elif engine == "io_uring":
        expect(all(r["by_syscall"]["io_uring"] == {"calls": None, "bytes": None, "errors": None, "time_ns": None} for r in rows),
               "io_uring not null")
        expect(unseen["io_uring"], "no reason")
    return ("%s, %s: %d requests%s, %d B read, %d B written to the device: %s" % (
        engine, backend, ios, " reaped %d at once" % reap if reap > 1 else "", job["read"]["io_bytes"],
        job["write"]["io_bytes"], "none seen, io_uring null: " + unseen["io_uring"] if blind else "equal to fio's"),
        blind)


def netio_matches(ep, w):
    """syscall_io against netio's report w: every count by syscall, by
    side and by kind of descriptor; every row's histograms and kinds add up."""
    rows = ep.rows["syscall_io"]
    for name, want in w["syscalls"].items():
        got = {k: sum(r["by_syscall"][name][k] for r in rows) for k in ("calls", "bytes", "errors")}
        expect(got == want, "%s: episode %s, workload %s" % (name, got, want))
    for f in ("read_calls", "read_bytes", "write_calls", "write_bytes"):
        expect(ep.total("syscall_io", f) == w[f], "%s: episode %d, workload %d" % (f, ep.total("syscall_io", f), w[f]))
    for k in rows[0]["by_kind"].keys():
        for f in ("read_calls", "read_bytes", "write_calls", "write_bytes"):
            got = sum(r["by_kind"][k][f] for r in rows)
            want = w["by_kind"].get(k, {}).get(f, 0)
            expect(got == want, "by_kind %s %s: episode %d, workload %d" % (k, f, got, want))
    for i, r in enumerate(rows):
        for d in ("read", "write"):
            expect(sum(r[d + "_size_hist"]) == r[d + "_calls"], "row %d: %s_size_hist" % (i, d))
            expect(sum(v[d + "_bytes"] for v in r["by_kind"].values()) == r[d + "_bytes"], "row %d: by_kind %s" % (i, d))
            expect(sum(v[d + "_calls"] for v in r["by_kind"].values()) == r[d + "_calls"],
                   "row %d: by_kind %s calls" % (i, d))
    return "%s: %d calls, %d B read, %d B written, %d errors, equal by syscall, side and kind (socket %d/%d, pipe %d/%d, file %d/%d)" % (
        ep.manifest["sources"]["syscall_io"]["backend"], sum(v["calls"] for v in w["syscalls"].values()),
        w["read_bytes"], w["write_bytes"], sum(v["errors"] for v in w["syscalls"].values()),
        *(w["by_kind"][k][f] for k in ("socket", "pipe", "file") for f in ("read_bytes", "write_bytes")))


PATTERN = ("consec_reads", "seq_reads", "consec_writes", "seq_writes", "rw_switches",
           "unaligned_reads", "unaligned_writes")


def by_syscall(ep, name, f):
    """syscall_io's count f of syscall name over the episode."""
    return sum(r["by_syscall"][name][f] for r in ep.rows["syscall_io"])


def strace_table(path):
    """strace -f -c's table (-o FILE) as {syscall: [calls, errors]}, its
    calls the failed ones included."""
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) < 5 or not f[0][0].isdigit() or f[-1] == "total":
            continue
        nums = f[:-1]
        out[f[-1]] = [int(nums[3]), int(nums[4]) if len(nums) > 4 else 0]
    return out


def time_adds_up(ep):
    """Each row's time fields add up: a side's histogram counts its timed
    calls, the metadata one every metadata call, and meta_time_ns is the
    metadata syscalls' time_ns summed."""
    rows = ep.rows["syscall_io"]
    meta = [n for n, e in rows[0]["by_syscall"].items() if "bytes" not in e]
    for r in rows:
        b = r["by_syscall"]
        expect(sum(r["meta_time_hist"]) == r["meta_calls"] + r["meta_errors"], "row %d: meta_time_hist %d, %d calls" % (
            r["seq"], sum(r["meta_time_hist"]), r["meta_calls"] + r["meta_errors"]))
        expect(sum(r["read_time_hist"]) == r["read_calls"] and sum(r["write_time_hist"]) == r["write_calls"],
               "row %d: time histograms %d and %d, calls %d and %d" % (r["seq"], sum(r["read_time_hist"]),
               sum(r["write_time_hist"]), r["read_calls"], r["write_calls"]))
        expect(sum(b[n]["time_ns"] for n in meta) == r["meta_time_ns"], "row %d: meta_time_ns" % r["seq"])
        expect(sum(b[n]["calls"] for n in meta) == r["meta_calls"] and
               sum(b[n]["errors"] for n in meta) == r["meta_errors"], "row %d: meta_calls" % r["seq"])
    expect(ep.manifest["sources"]["syscall_io"]["untimed_calls"] == 0, "untimed calls")


def metawork_matches(ep, w, st):
    """syscall_io's metadata calls against metawork's report w, exactly,
    with what its static start-up calls besides (one readlink of
    /proc/self/exe), which st, strace -f -c's table of a run of the same
    binary, counts; no other metadata call. Every call timed."""
    first = ep.rows["syscall_io"][0]["by_syscall"]
    meta = [n for n, e in first.items() if "bytes" not in e]
    expect(sorted(meta) == sorted(w), "metadata syscalls %s, metawork's %s" % (meta, sorted(w)))
    startup = {}
    for n in meta:
        ok, failed = w[n]
        s_calls, s_errors = st.get(n, [0, 0])
        # what metawork did not call itself: glibc's start-up, as strace saw it
        extra = [s_calls - s_errors - ok, s_errors - failed]
        expect(min(extra) >= 0, "%s: strace %s, fewer than metawork's %s" % (n, st.get(n), w[n]))
        if extra != [0, 0]:
            startup[n] = extra
        got = [by_syscall(ep, n, f) for f in ("calls", "errors")]
        expect(got == [ok + extra[0], failed + extra[1]], "%s: calls and errors %s, metawork's %s and start-up's %s" % (
            n, got, w[n], extra))
        expect(by_syscall(ep, n, "time_ns") > 0, "%s: no time" % n)
    expect(sum(a + b for a, b in startup.values()) <= 2, "start-up's metadata calls %s" % startup)
    expect(ep.total("syscall_io", "meta_calls") == sum(c for c, e in w.values()) + sum(a for a, b in startup.values()),
           "meta_calls")
    expect(ep.total("syscall_io", "meta_errors") == sum(e for c, e in w.values()) + sum(b for a, b in startup.values()),
           "meta_errors")
    time_adds_up(ep)
    return "%d metadata syscalls, %d calls and %d errors as metawork made them (start-up: %s); %.0f us of metadata time" % (
        len(meta), ep.total("syscall_io", "meta_calls"), ep.total("syscall_io", "meta_errors"), startup,
        ep.total("syscall_io", "meta_time_ns") / 1e3)


def pattern_matches(ep, w):
    """syscall_io's access pattern against patwork's report w, which counts
    by Darshan's rules (docs/data-model.md): equal under either backend,
    less the share of its io_uring requests (w["io_uring"]) where the
    backend cannot see io_uring (ptrace; ebpf before 6.0)."""
    m = ep.manifest["sources"]["syscall_io"]
    expect(all(w[f] > 0 for f in PATTERN), "patwork counted no %s" % [f for f in PATTERN if not w[f]])
    blind = "io_uring" in m.get("unseen", {})
    want = {f: w[f] - (w["io_uring"][f] if blind else 0) for f in PATTERN}
    got = {f: ep.total("syscall_io", f) for f in PATTERN}
    expect(got == want, "the pattern %s, patwork's %s%s" % (got, want, " without io_uring's" if blind else ""))
    return "as patwork did it%s: %s" % (
        ", less its io_uring requests' (io_uring unseen: %s)" % m["unseen"]["io_uring"] if blind else "",
        ", ".join("%s %d" % (f, want[f]) for f in PATTERN))


def darshan_matches(ep, d, inherited=False):
    """syscall_io's rows of darwork against Darshan's POSIX counters d of
    the same program (tests/e2e/lib/darshan.py): the access pattern equal
    under ebpf, null with why under ptrace; under both, the successful
    read and write calls and their bytes equal POSIX_READS, _WRITES,
    _BYTES_READ, _BYTES_WRITTEN, unless the program read a descriptor it
    inherited (inherited: Darshan keeps no record of one, syscall_io
    counts its bytes)."""
    from darshan import NOT_ALIGNED, PATTERN as DARSHAN
    expect("POSIX_READS" in d, "no Darshan counters: %s" % d)
    m = ep.manifest["sources"]["syscall_io"]
    out = []
    if not inherited:
        got = {f: ep.total("syscall_io", f) for f in ("read_calls", "write_calls", "read_bytes", "write_bytes")}
        want = {"read_calls": d["POSIX_READS"], "write_calls": d["POSIX_WRITES"],
                "read_bytes": d["POSIX_BYTES_READ"], "write_bytes": d["POSIX_BYTES_WRITTEN"]}
        expect(got == want, "calls and bytes %s, Darshan's %s" % (got, want))
        out.append("%d reads, %d writes" % (want["read_calls"], want["write_calls"]))
    got = {f: ep.total("syscall_io", f) for f in DARSHAN}
    got["not_aligned"] = ep.total("syscall_io", "unaligned_reads") + ep.total("syscall_io", "unaligned_writes")
    want = {f: d[c] for f, c in DARSHAN.items()}
    want["not_aligned"] = d[NOT_ALIGNED]
    expect(got == want, "the pattern %s, Darshan's %s" % (got, want))
    return "; ".join(out + [", ".join("%s %d" % kv for kv in want.items())])
