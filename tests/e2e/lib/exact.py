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
    bios whose end was inferred (the manifest's ends_inferred): those rows,
    and over the episode exactly that many. Returns the count inferred."""
    inferred = ep.manifest["sources"]["block_io"]["ends_inferred"]
    unlatched = 0
    for r in ep.rows["block_io"]:
        gap = sum(r[d + "_ops"] - sum(r[d + "_latency_hist"]) for d in ("read", "write"))
        expect(gap >= 0, "row %d: more latencies than ops" % r["seq"])
        expect((gap > 0) == (r["seq"] in inferred["rows"]), "row %d: %d ops without a latency, rows inferred %s" % (r["seq"], gap, inferred["rows"]))
        unlatched += gap
    expect(unlatched == inferred["bios"], "%d ops without a latency, %d ends inferred" % (unlatched, inferred["bios"]))
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
