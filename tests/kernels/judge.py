# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Judges here what a guest kernel ran (tests/kernels/guest): its probe and
its episodes, with the checks the host's own tests use (epi, exact).

  judge.py OUT CHECK METAWORK_STRACE DARWORK_DARSHAN

OUT is the guest's /out, read back from its tar; CHECK is one of probe,
direct, direct-procfs, sysio-ebpf, sysio-ptrace, netio-ebpf, netio-ptrace, fio-libaio,
fio-io_uring, metawork, patwork, darwork, darwork-ptrace, throttled, controllers, verdict, causes, causes-dirty,
causes-outside, causes-loader, nfs, nulls; METAWORK_STRACE
strace -f -c's table of metawork run on this host (its static start-up's
calls); DARWORK_DARSHAN Darshan's POSIX counters of darwork run on this
host (tests/e2e/lib/darshan.py). Prints what it compared, or exits non-zero with what differs.

What each kernel must allow is this file's MINIMUM (docs/data-model.md's
table): at or above it the source loads and counts exactly; below it, its
reason names the kernel it needs."""
import glob
import json
import os
import re
import sys

import causes
import epi
import exact
from epi import expect

MINIMUM = {"syscall_io": (5, 10), "block_io": (5, 17), "offcpu": (5, 17)}
# the bpf backends of proc_io and taskstats: the task iterator
BPF_MINIMUM = {"proc_io": (5, 8), "taskstats": (5, 8)}
NEEDS = {src: "Linux %d.%d or later" % v for src, v in list(MINIMUM.items()) + list(BPF_MINIMUM.items())}

out, what = sys.argv[1], sys.argv[2]
with open(os.path.join(out, "kernel")) as f:
    release = f.read().strip()
version = tuple(int(x) for x in release.split("-")[0].split(".")[:2])


def allowed(src):
    return version >= MINIMUM[src]


def episode(name):
    expect(os.path.exists(os.path.join(out, "episodes", name, "manifest.json")),
           "%s: no episode (exit %s: %s)" % (name, open(os.path.join(out, name + ".rc")).read().strip(),
                                             open(os.path.join(out, name + ".stderr")).read().strip()[:300]))
    return epi.Episode(os.path.join(out, "episodes", name))


def declined(src, err):
    """Below the source's minimum: a reason that names the kernel it needs."""
    expect(err and NEEDS[src] in err, "%s on %s: %r does not say %s" % (src, release, err, NEEDS[src]))
    return "%s declined: %s" % (src, err)


def check_probe():
    expect(open(os.path.join(out, "probe.rc")).read().strip() == "0", "probe failed: " +
           open(os.path.join(out, "probe.err")).read()[:300])
    p = json.load(open(os.path.join(out, "probe.json")))
    said = []
    for name, s in p["sources"].items():
        expect(s["status"] == "ok" or s["error"], "%s: %s with no reason" % (name, s["status"]))
    for src in MINIMUM:
        e = p["sources"][src]["ebpf"]
        if allowed(src):
            expect(e["works"] is True, "%s's ebpf on %s: %s" % (src, release, e["error"]))
            said.append("%s ebpf loads" % src)
        else:
            expect(e["works"] is False, "%s's ebpf works on %s, below %s" % (src, release, NEEDS[src]))
            said.append(declined(src, e["error"]))
    for src, least in BPF_MINIMUM.items():
        s = p["sources"][src]
        if version >= least:
            expect(s["bpf"]["works"] is True and s["backend"] == "bpf",
                   "%s's bpf backend on %s: %s" % (src, release, s["bpf"]["error"]))
            said.append("%s bpf loads" % src)
        else:
            expect(s["backend"] in ("procfs", "netlink"), "%s runs %s on %s" % (src, s["backend"], release))
            said.append(declined(src, s["bpf"]["error"]))
    sio = p["sources"]["syscall_io"]
    for backend in ("ebpf", "ptrace"):
        if sio[backend]["works"]:
            unseen = sio[backend]["unseen"]
            blind = backend == "ptrace" or version < (6, 0)  # io_uring's completions
            expect(set(unseen) == ({"io_uring"} if blind else set()) and all(unseen.values()),
                   "syscall_io's %s cannot see %s on %s" % (backend, unseen, release))
    for ev in p["sources"]["perf_event"]["events"]:
        expect(ev["counted"] or ev["reason"], "perf_event %s: not counted, no reason" % ev["event"])
    return "%s: %s" % (release, "; ".join(said))


def check_direct():
    ep = episode("direct")
    tree = ep.target_report()
    srcs = ep.manifest["sources"]
    said = []
    if allowed("block_io"):
        expect(srcs["block_io"]["status"] == "ok", "block_io: %s" % srcs["block_io"]["error"])
        said.append(exact.block_io_matches(ep, tree, "vda"))
        # no udev in the guest: every request on the disk is the tree's
        said.append(exact.diskstats_matches_block_io(ep))
        for f in ("read_ops", "read_bytes", "write_ops", "write_bytes"):
            expect(ep.total("block_io", "all_" + f) == tree[f], "all_%s is not the tree's" % f)
    else:
        said.append(declined("block_io", srcs["block_io"]["error"]))
    if allowed("syscall_io"):
        s = srcs["syscall_io"]
        expect(s["status"] == "ok" and s["backend"] == "ebpf", "syscall_io: %s %s" % (s["status"], s["error"]))
        rows = ep.rows["syscall_io"]
        for name, d in (("pread64", "read"), ("pwrite64", "write")):
            for f in ("calls", "bytes"):
                got = sum(r["by_syscall"][name][f] for r in rows)
                want = tree[d + ("_ops" if f == "calls" else "_bytes")]
                expect(got == want, "syscall_io %s %s: %d, the tree did %d" % (name, f, got, want))
        # what the deployable source says of the same calls: blkwork's
        # writes are its pwrite64s and its report's write(2) (taskstats'
        # are rounded down to KiB a thread by the kernel)
        for calls, bytes_ in (("syscw", "write_calls"), ("wchar", "write_bytes")):
            expect(ep.total("proc_io", calls) == ep.total("syscall_io", bytes_),
                   "proc_io.%s %d, syscall_io %s %d" % (calls, ep.total("proc_io", calls),
                                                        bytes_, ep.total("syscall_io", bytes_)))
        said.append("syscall_io ebpf: pread64 and pwrite64 the tree's; proc_io "
                    "%d write calls, %d bytes, as syscall_io" % (
                        ep.total("syscall_io", "write_calls"), ep.total("syscall_io", "write_bytes")))
    else:
        said.append(declined("syscall_io", srcs["syscall_io"]["error"]))
    # the deployable sources' bytes of the same direct I/O, counted at
    # submission: the tree's exactly, by the bpf backends where they load
    # and by the others in direct-procfs (check_direct_procfs)
    for src in ("proc_io", "taskstats"):
        want = "bpf" if version >= BPF_MINIMUM[src] else ("procfs" if src == "proc_io" else "netlink")
        expect(srcs[src]["backend"] == want, "%s ran %s on %s: %s" % (
            src, srcs[src]["backend"], release, srcs[src]["backend_reason"]))
        for f in ("read_bytes", "write_bytes"):
            expect(ep.total(src, f) == tree[f], "%s.%s %d, the tree's %d" % (src, f, ep.total(src, f), tree[f]))
    said.append("proc_io and taskstats by %s" % srcs["proc_io"]["backend"])
    # delay accounting: switched on through /run/iopsample (which the guest
    # lacks: iopsample makes it), or on from boot before 5.14's sysctl
    ts = srcs["taskstats"]
    expect(ts["delays_counted"] is True, "taskstats delays: %s" % ts["delays_reason"])
    expect(ep.total("taskstats", "blkio_delay_count") > 0, "no blkio delays counted")
    said.append("proc_io and taskstats the tree's bytes; delays counted (%s)" % (
        "switched on" if version >= (5, 14) else "on from boot"))
    cg = ep.rows["cgroup"]
    expect(srcs["cgroup"]["status"] == "ok", "cgroup: %s" % srcs["cgroup"]["error"])
    wrote = sum(r["by_device"]["vda"]["write_bytes"] for r in cg)
    expect(wrote == tree["write_bytes"], "cgroup io_write_bytes on vda %d, the tree wrote %d" % (
        wrote, tree["write_bytes"]))
    expect(ep.total("perf_event", "task_clock") > 0 and ep.total("perf_event", "page_faults") > 0,
           "perf_event counted nothing")
    said.append("cgroup (v2) %d bytes written to vda, the tree's" % wrote)
    return "; ".join(said)


def check_direct_procfs():
    """direct's bytes by proc_io's procfs and taskstats' netlink backends:
    the same as the tree's, as the bpf backends' in direct."""
    ep = episode("direct-procfs")
    tree = ep.target_report()
    srcs = ep.manifest["sources"]
    for src, backend in (("proc_io", "procfs"), ("taskstats", "netlink")):
        expect(srcs[src]["status"] == "ok" and srcs[src]["backend"] == backend, "%s: %s %s" % (
            src, srcs[src]["backend"], srcs[src]["error"]))
        for f in ("read_bytes", "write_bytes"):
            expect(ep.total(src, f) == tree[f], "%s.%s %d, the tree's %d" % (src, f, ep.total(src, f), tree[f]))
    return "proc_io procfs and taskstats netlink: %d bytes read, %d written, the tree's" % (
        tree["read_bytes"], tree["write_bytes"])


def check_workload(workload, backend):
    """syscall_io against a workload's own report (sysio, netio)."""
    name = "%s-%s" % (workload, backend)
    ep = episode(name)
    s = ep.manifest["sources"]["syscall_io"]
    if backend == "ebpf" and not allowed("syscall_io"):
        return declined("syscall_io", s["error"])
    expect(s["status"] == "ok" and s["backend"] == backend, "%s: %s" % (name, s["error"]))
    report = json.load(open(os.path.join(out, name + ".json")))
    matches = exact.syscall_io_matches if workload == "sysio" else exact.netio_matches
    return matches(ep, report)


def check_fio(engine):
    name = "fio-" + engine.replace("_", "")
    ep = episode(name)
    s = ep.manifest["sources"]["syscall_io"]
    if not allowed("syscall_io"):
        return declined("syscall_io", s["error"])
    expect(s["status"] == "ok", "%s: %s" % (name, s["error"]))
    job = json.load(open(os.path.join(out, name + ".json")))["jobs"][0]
    said, blind = exact.fio_matches(ep, job, engine)
    expect(blind == (engine == "io_uring" and version < (6, 0)),
           "io_uring %s on %s" % ("unseen" if blind else "counted", release))
    return said


def check_known(workload):
    """syscall_io against metawork's count of its metadata calls, or
    patwork's of its access pattern (exact.py, as on this host)."""
    ep = episode(workload)
    s = ep.manifest["sources"]["syscall_io"]
    if not allowed("syscall_io"):
        return declined("syscall_io", s["error"])
    expect(s["status"] == "ok" and s["backend"] == "ebpf", "%s: %s" % (workload, s["error"]))
    w = json.load(open(os.path.join(ep.dir, "target.stdout")))
    if workload == "metawork":
        return exact.metawork_matches(ep, w, exact.strace_table(sys.argv[3]))
    return exact.pattern_matches(ep, w)


def check_darwork(backend):
    """syscall_io's access pattern of darwork's every case, under backend,
    against Darshan's counters of the same program on this host (the child
    case reads a descriptor it inherited: calls and bytes are not Darshan's
    there)."""
    ep = episode("darwork" if backend == "ebpf" else "darwork-" + backend)
    s = ep.manifest["sources"]["syscall_io"]
    if backend == "ebpf" and not allowed("syscall_io"):
        return declined("syscall_io", s["error"])
    expect(s["status"] == "ok" and s["backend"] == backend, "darwork: %s" % s["error"])
    return exact.darshan_matches(ep, json.load(open(sys.argv[4])), inherited=True)


def check_throttled():
    """block_io against blkwork's prefetch that the episode's io.max held
    after the tree was gone (tests/kernels/guest sets it): every byte the
    tree's, the final row waiting for what the throttle held, no end
    inferred meanwhile."""
    ep = episode("throttled")
    s = ep.manifest["sources"]["block_io"]
    if not allowed("block_io"):
        return declined("block_io", s["error"])
    expect(s["status"] == "ok", "block_io: %s" % s["error"])
    err = open(os.path.join(out, "throttled.io_max.err")).read().strip()
    expect(not err, "io.max: %s" % err)
    want = ep.target_report()["read_bytes"]
    got = ep.total("block_io", "read_bytes")
    expect(got == want, "block_io read_bytes %d, the tree asked for %d (drain %s, throttle_entry %s)" % (
        got, want, s["drain"], s["throttle_entry"]))
    expect(s["ends_inferred"]["bios"] == 0, "ends inferred: %s (recursion_misses %s, drain %s, throttle_entry %s)" % (
        s["ends_inferred"], s["recursion_misses"], s["drain"], s["throttle_entry"]))
    expect(s["drain"]["left"] is None and s["drain"]["waited_ns"] > 0, "drain %s" % s["drain"])
    # every op a bio of bytes (a bio the throttle saw twice, split, is one)
    rows = ep.rows["block_io"]
    expect(sum(sum(r["read_size_hist"]) for r in rows) == ep.total("block_io", "read_ops") and
           rows and all(r["read_size_hist"][0] == 0 for r in rows),
           "read_ops %d, size histogram %s" % (ep.total("block_io", "read_ops"),
                                               [sum(r["read_size_hist"]) for r in rows]))
    return "io.max 4 MiB/s: %d MiB prefetched, block_io %d MiB; the final row waited %.1f s; %s" % (
        want >> 20, got >> 20, s["drain"]["waited_ns"] / 1e9,
        "the throttle's entry followed" if s["throttle_entry"] is None else s["throttle_entry"])


def check_controllers():
    """The v2 controllers each episode enabled for its cgroup's parent (the
    guest's root) are off again after it: subtree_control as it was."""
    ep = episode("direct")
    before, after = (open(os.path.join(out, "subtree." + w)).read().split() for w in ("before", "after"))
    expect(before == after, "subtree_control %s before the episodes, %s after" % (before, after))
    enabled = ep.manifest["cgroup"]["enabled_in_parent"]
    expect(enabled, "the episode enabled no controller: nothing was checked (%s)" % ep.manifest["cgroup"])
    return "enabled %s for the episode's cgroup, given back: subtree_control %s as before" % (
        enabled, before or "empty")


def null_paths(row, prefix=""):
    for k, v in row.items():
        if v is None:
            yield prefix + k
        elif isinstance(v, dict):
            yield from null_paths(v, prefix + k + ".")


def reason_for(src, m, field):
    """The manifest's reason that src's field is null, or None."""
    if src == "syscall_io":
        fam = field.split(".")[1] if field.startswith("by_syscall.") else None
        if fam in ("aio", "io_uring") and field.endswith(".time_ns"):
            return "requests, not calls: no call time (docs/data-model.md)"
        return m.get("unseen", {}).get(fam) if fam else None
    if src == "perf_event":
        for ev in m["events"]:
            if ev["field"] == field:
                return ev["reason"]
        r = m["ratios"].get(field)
        if r:  # a ratio is null where an input is not configured or not counted
            ins = [x for x in (r["numerator"], r["denominator"])]
            bad = [x for x in ins if x is None or any(e["field"] == x and not e["counted"] for e in m["events"])]
            return "its input %s is null" % bad if bad else None
        return None
    why = m.get("null_fields", {}).get(field)
    if not why and src == "taskstats" and m.get("rows_nulled"):
        why = "rows_nulled: %d (exit records lost)" % m["rows_nulled"]
    return why


def check_verdict():
    """The host's iopsample verdict of the guest's phasework: computing is
    cpu, the working set over its memory.max with swap is memory, on
    cgroup v2 (its pressure read as the cgroup's own); the same beside an
    O_DIRECT reader is both memory and disk."""
    import phases
    ep = episode("verdict")
    expect(ep.manifest["sources"]["cgroup"].get("pressure_scope") == "cgroup",
           "cgroup's pressure: %s" % ep.manifest["sources"]["cgroup"].get("pressure_scope"))
    v = phases.verdict(os.environ["IOPSAMPLE"], ep.dir)
    ph = phases.phases(ep.dir)
    said = phases.judge(v, ph, {"cpu": "cpu", "anon": "memory"}, release)
    anon = [p for p in ph if p[0] == "anon"][0]
    ev = [w["evidence"] for w in phases.inside(v, anon[1], anon[2]) if w["verdict"] == "memory"]
    expect(all("PSI memory some" in e for e in ev), "memory's evidence: %s" % ev[:1])
    # paging beside a reader of another disk: neither wait eaten by the
    # other, whichever way the kernel counts a swap-in (apart before 5.17)
    both = phases.split_held(v, [p for p in ph if p[0] == "swapread"][0], release,
                             ep.manifest["sources"]["taskstats"]["kernel_faults"])
    return said + "; " + both


def check_memhigh():
    """The host's iopsample verdict of phasework churning memory over its
    cgroup's memory.high with no swap: the kernel's penalty sleep, in no
    taskstats delay, is memory, from the cgroup's memory.events and its
    memory pressure."""
    import phases
    ep = episode("memhigh")
    v = phases.verdict(os.environ["IOPSAMPLE"], ep.dir)
    ph = phases.phases(ep.dir)
    said = phases.judge(v, ph, {"cpu": "cpu", "churn": "memory"}, release)
    churn = [p for p in ph if p[0] == "churn"][0]
    ev = [w["evidence"] for w in phases.inside(v, churn[1], churn[2]) if w["verdict"] == "memory"]
    expect(all("over its memory.high" in e for e in ev), "memory's evidence: %s" % ev[:1])
    high = sum(r["memory_high_events"] for r in ep.rows["cgroup"])
    return "%s; %d memory.high events, %d chunks" % (said, high, churn[3]["chunks"])


def check_nfs():
    """The waits of phasework reading the guest's NFSv4 mount (served by
    its own nfsd over lo, 10 ms each way): buffered (a page's lock, which
    the kernel counts as block I/O) and with O_DIRECT (the RPCs), each
    window's remote_fs_ns the largest of the reader's waits, the mount in
    by_mount, and the verdict network, not disk; computing stays cpu."""
    import phases
    serve = os.path.join(out, "nfs.serve.err")
    expect(not os.path.exists(os.path.join(out, "nfs.serve.rc")),
           "the guest's NFS server: %s" % (open(serve).read().strip()[-300:] if os.path.exists(serve) else "?"))
    ep = episode("nfs")
    expect(ep.manifest["sources"]["waits"]["status"] == "ok", "waits: %s" % ep.manifest["sources"]["waits"]["error"])
    ph = phases.phases(ep.dir)
    off = ["disk", "paging", "network", "remote_fs", "fuse", "lock", "ipc", "child", "sleep", "other"]
    said = []
    for name, start, end, _ in ph:
        if name not in ("read", "dread"):
            continue
        rows = [r for r in ep.rows["waits"] if start + 2e8 <= r["t_mono_ns"] <= end - 1e8]
        top = [max(off, key=lambda c: r[c + "_ns"]) for r in rows]
        right = top.count("remote_fs")
        expect(rows and right >= phases.SHARE * len(rows),
               "%s: remote_fs the largest wait in %d of %d rows: %s" % (name, right, len(rows), top[:5]))
        mounts = {m for r in rows for m, b in r["by_mount"].items() if b["remote_fs_ns"]}
        expect(mounts == {"/nfs"} and all(r["by_mount"]["/nfs"]["fstype"] == "nfs4" for r in rows if "/nfs" in
                                          r["by_mount"]), "%s: by_mount %s" % (name, rows[-1]["by_mount"]))
        said.append("%s: remote_fs in %d/%d rows" % (name, right, len(rows)))
    v = phases.verdict(os.environ["IOPSAMPLE"], ep.dir)
    said.append(phases.judge(v, ph, {"read": "network", "dread": "network", "cpu": "cpu"}, release))
    # the evidence names the mount, its server and its round trips (net)
    for name, start, end, _ in ph:
        if name in ("read", "dread"):
            ev = [w["evidence"] for w in phases.inside(v, start, end) if w["verdict"] == "network"]
            named = [e for e in ev if "(/nfs: nfs4, server 127.0.0.1:/; " in e and " ms an RPC" in e]
            expect(len(named) >= phases.SHARE * len(ev), "%s: the mount's figures in %d of %d: %s" % (
                name, len(named), len(ev), ev[:1]))
    said.append(nfs_counted(ep))
    return "; ".join(said)


def check_nfs_late():
    """An NFS mount the tree makes and unmounts mid-episode (nfs-late.yaml):
    out of by_mount before it was found and after it was found gone, in
    it from the row after the one it was found in, its READs and bytes
    read over those rows those of phasework's read (at least what it
    said it read, from the server), its unmount warned of; /nfs, mounted
    before, in every row."""
    serve = os.path.join(out, "nfs-late.serve.err")
    expect(not os.path.exists(os.path.join(out, "nfs-late.serve.rc")),
           "the guest's NFS server: %s" % (open(serve).read().strip()[-300:] if os.path.exists(serve) else "?"))
    ep = episode("nfs-late")
    rows = ep.rows["net"]
    did = json.loads(open(os.path.join(out, "nfs-late.did")).read().splitlines()[-1])
    has = [("/nfs2" in r["by_mount"]) for r in rows]
    expect(all("/nfs" in r["by_mount"] for r in rows), "/nfs not in every row")
    expect(True in has and not has[0] and not has[-1], "/nfs2 in rows %s of %d" % (
        [i for i, h in enumerate(has) if h], len(rows)))
    first = has.index(True)
    last = first + has[first:].index(False) - 1
    expect(True not in has[last + 1:], "/nfs2 back after it left: %s" % has)
    m = [r["by_mount"]["/nfs2"] for r in rows[first:last + 1]]
    expect(all(x["fstype"] == "nfs4" and x["version"] == "4.2" for x in m), "/nfs2: %s" % m[0])
    read = sum(x["read_bytes"] for x in m)
    reads = sum(x["by_op"].get("READ", {}).get("ops", 0) + x["by_op"].get("READ_PLUS", {}).get("ops", 0) for x in m)
    expect(read >= did["bytes"] * 0.99 and reads > 0, "/nfs2: %d bytes read in %d READs, phasework read %d" % (
        read, reads, did["bytes"]))
    warned = [w for w in ep.manifest["warnings"] if "/nfs2" in w and "leaves by_mount" in w]
    expect(warned, "no warning of its unmount: %s" % ep.manifest["warnings"])
    said = "/nfs2 in rows %d-%d of %d: %d bytes read in %d READs (phasework read %d); %s" % (
        first, last, len(rows), read, reads, did["bytes"], warned[0])
    return said + "; " + offcpu_whole(ep, rows[first]["t_mono_ns"], rows[last]["t_mono_ns"])


def smb_share(path, tree):
    """A share's block of a /proc/fs/cifs/Stats the guest saved: its SMBs,
    bytes read and written, and each "Name: N total M failed" line's N
    (the kernel's cifs_debug.c and smb2ops.c formats, read here on their
    own)."""
    got, cur = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        head = re.match(r"^\d+\) (\S+)", line)
        if head:
            cur = head.group(1) == tree
            continue
        if line.startswith("Max requests in flight"):
            cur = False
        if not cur:
            continue
        m = re.match(r"^SMBs: (\d+)", line)
        if m:
            got["smbs"] = got.get("smbs", 0) + int(m.group(1))
        m = re.match(r"^Bytes read: (\d+)  Bytes written: (\d+)", line)
        if m:
            got["read"] = got.get("read", 0) + int(m.group(1))
            got["written"] = got.get("written", 0) + int(m.group(2))
        m = re.match(r"^(\w+): (\d+) (total|sent) \d+ failed", line)
        if m:
            got[m.group(1)] = got.get(m.group(1), 0) + int(m.group(2))
    return got


def check_smb():
    """An SMB 3.1.1 mount of the guest's ksmbd (smb.yaml): net's by_mount
    over the episode the change of /proc/fs/cifs/Stats' share from just
    before the run to just after (nothing else used it): its requests,
    bytes read and Reads exactly; the bytes read at least phasework's
    (no oplocks or leases: the client caches nothing). 5.10 has no ksmbd,
    6.1's oopses."""
    serve = os.path.join(out, "smb.serve.err")
    if os.path.exists(os.path.join(out, "smb.serve.rc")):
        why = open(serve).read().strip()[-300:] if os.path.exists(serve) else "?"
        if "no ksmbd in this kernel" in why or "ksmbd of this kernel oopses" in why:
            return "declined: %s" % why
        expect(False, "the guest's SMB server: %s" % why)
    ep = episode("smb")
    rows = ep.rows["net"]
    tree = "\\\\127.0.0.1\\share"
    before, after = (smb_share(os.path.join(out, "smb.stats." + w), tree) for w in ("before", "after"))
    expect(before and after, "no share %s in the guest's Stats: %s" % (tree, before))
    expect(all("/smb" in r["by_mount"] for r in rows), "/smb not in every row")
    m = [r["by_mount"]["/smb"] for r in rows]
    expect(m[0]["fstype"] in ("cifs", "smb3") and m[0]["server"] == "127.0.0.1" and m[0]["export"] == "share" and
           m[0]["version"] == "3.1.1", "/smb: %s" % m[0])
    did = json.loads(open(os.path.join(out, "smb.did")).read().splitlines()[-1])
    got = {"smbs": sum(x["ops"] for x in m), "read": sum(x["read_bytes"] for x in m),
           "Reads": sum(x["by_op"]["Reads"]["ops"] for x in m)}
    want = {k: after[k] - before[k] for k in got}
    expect(got == want, "net %s, Stats' change %s" % (got, want))
    expect(got["read"] >= did["bytes"] and got["Reads"] > 0, "read %d bytes in %d Reads, phasework read %d" % (
        got["read"], got["Reads"], did["bytes"]))
    expect(all(x["by_op"]["Reads"]["rtt_ns"] is None for x in m), "an SMB call's time, which Stats has not")
    return "/smb (%s %s): %d requests, %d bytes in %d Reads as Stats' change (phasework read %d)" % (
        m[0]["fstype"], m[0]["version"], got["smbs"], got["read"], got["Reads"], did["bytes"])


def offcpu_whole(ep, start, end):
    """offcpu beside it (5.17: bpf_loop): it loads, and in the rows of the
    NFS read remote_fs holds half a thread's time at least (phasework
    waiting on its RPCs). (Each row's whole time is judged on this host,
    waits.sh; in the TCG guest, the tree's short-lived processes and a
    sampler late by milliseconds part rows from interval x threads.)"""
    s = ep.manifest["sources"]["offcpu"]
    if not allowed("offcpu"):
        return declined("offcpu", s["error"])
    expect(s["status"] == "ok", "offcpu: %s" % s["error"])
    rows = ep.rows["offcpu"]
    # the read ends 0.3 s before the unmount (nfs-late.yaml): not judged
    inside = [r for r in rows if start + 1e8 <= r["t_mono_ns"] - r["interval_ns"] and r["t_mono_ns"] <= end - 4e8]
    nfs = [r for r in inside if r["remote_fs_ns"] >= 0.5 * r["interval_ns"]]
    expect(inside and len(nfs) >= 0.9 * len(inside), "offcpu: remote_fs half a thread in %d of %d rows: %s" % (
        len(nfs), len(inside), [r["remote_fs_ns"] for r in inside][:5]))
    return "offcpu: remote_fs in %d of %d rows of the read (%d switches in unreported)" % (
        len(nfs), len(inside), s["switch_ins_unseen"])


def nfs_counted(ep):
    """net's by_mount["/nfs"] over the episode: the change of the guest's
    mountstats from just before the run to just after (nothing else used
    the mount), within 1 %; its READs' mean round trip as nfs-utils'
    mountstats iostat prints it for the same two files."""
    import subprocess
    import mountstats
    before, after = (os.path.join(out, "nfs.mountstats." + w) for w in ("before", "after"))
    d = mountstats.delta(before, after, "/nfs")
    rows = ep.rows["net"]
    got = {k: sum(r["by_mount"]["/nfs"][k] for r in rows) for k in ("ops", "read_bytes", "rtt_ns", "retrans")}
    reads = sum(r["by_mount"]["/nfs"]["by_op"]["READ"]["ops"] for r in rows)
    read_rtt = sum(r["by_mount"]["/nfs"]["by_op"]["READ"]["rtt_ns"] for r in rows)
    # 6.12's client reads with NFSv4.2's READ_PLUS, which nfs-utils 2.6's
    # iostat does not count: its READs and theirs are both 0 there
    plus = sum(r["by_mount"]["/nfs"]["by_op"].get("READ_PLUS", {}).get("ops", 0) for r in rows)
    expect(plus == d.get("READ_PLUS", 0), "READ_PLUS %d, mountstats %d" % (plus, d.get("READ_PLUS", 0)))
    for k in ("ops", "read_bytes", "rtt_ns"):
        expect(abs(got[k] - d[k]) <= 0.01 * d[k], "/nfs %s: rows %d, mountstats %d" % (k, got[k], d[k]))
    expect(reads == d["READ"] and got["retrans"] == d["retrans"], "READs %d, mountstats %d" % (reads, d["READ"]))
    said = "net /nfs: %d RPCs, %d bytes read, RTT %.1f ms an RPC as mountstats" % (
        got["ops"], got["read_bytes"], got["rtt_ns"] / max(got["ops"], 1) / 1e6)
    try:
        ios = subprocess.run(["mountstats", "iostat", "-f", after, "-S", before, "/nfs"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return said + "; no mountstats iostat (nfs-common): %s" % e
    lines = ios.splitlines()
    row = lines[[i for i, l in enumerate(lines) if l.startswith("read:")][0] + 1].split()
    rtt_ms = float(row[5])  # ops/s kB/s kB/op retrans (pct) avg-RTT
    if not reads:
        expect(float(row[0]) == 0 and plus > 0, "no READ, and iostat's read: %s" % row)
        return said + "; %d READ_PLUS, no READ, as mountstats iostat has none" % plus
    mine = read_rtt / reads / 1e6
    expect(abs(mine - rtt_ms) <= 0.01 * rtt_ms + 0.001, "READ avg RTT: rows %.3f ms, mountstats iostat %.3f" % (mine, rtt_ms))
    return said + "; READ avg RTT %.3f ms, mountstats iostat %.3f" % (mine, rtt_ms)


def check_causes(name, what):
    """block_io's causes (tests/e2e/causes.sh's cases at 8 MiB) on ext4 on
    vdd: the same sums, ledger and figures, by tests/e2e/lib/causes.py."""
    ep = episode(name)
    s = ep.manifest["sources"]["block_io"]
    if not allowed("block_io"):
        return declined("block_io", s["error"])
    expect(s["status"] == "ok", "block_io: %s" % s["error"])
    err = open(os.path.join(out, name + ".mount.err")).read().strip()
    expect(not err, "mount: %s" % err)
    return "%s; %s" % (causes.judge(ep, what, 8 << 20, os.path.join(ep.dir, "target.stdout")),
                       s.get("causes_partial", "every program loaded"))


def check_stacked(name, top, below, on_partition=False):
    """block_io's causes on ext4 on a stacked device (dm-linear over vde,
    md raid1 of vde and vdf), the top device and those below it selected:
    the causes episode's sums, ledger and figures on the top, tree + other
    + unattributed = all on every device, the tree's bytes in the totals
    the top's alone (a clone below counts on its device's entry, not
    again), and below what its bios on the top moved: each mirror written
    whole, the reads somewhere below. diskstats, which cannot tell a clone
    from a device's own request, leaves the devices below out of its
    totals; on_partition, a stack on a partition of the disk selected (LVM
    on sda2), the disk is in both sources' totals, block_io's clones on it
    not again, diskstats' twice (docs/data-model.md)."""
    stack = os.path.join(out, name + ".stack.err")
    if os.path.exists(os.path.join(out, name + ".stack.rc")):
        raise AssertionError("%s: the guest made no stack: %s" % (name, open(stack).read().strip()[-400:]))
    ep = episode(name)
    s = ep.manifest["sources"]["block_io"]
    if not allowed("block_io"):
        return declined("block_io", s["error"])
    expect(s["status"] == "ok", "block_io: %s" % s["error"])
    for src, lower_in in (("block_io", True), ("diskstats", False)):
        devs = {d["name"]: d for d in ep.manifest["sources"][src]["devices"]}
        expect(devs[top]["in_totals"] and "under" not in devs[top], "%s devices: %s" % (src, list(devs.values())))
        for b in below:
            expect(devs[b]["in_totals"] == (lower_in or on_partition) and
                   devs[b].get("under") == (None if on_partition else top) and
                   devs[b].get("partly_under") == (top if on_partition else None),
                   "%s devices: %s" % (src, list(devs.values())))
    said = causes.judge(ep, "every", 8 << 20, os.path.join(ep.dir, "target.stdout"))
    rows = ep.rows["block_io"]
    for r in rows:
        t = r["by_device"][top]
        for f in ("read_ops", "read_bytes", "write_ops", "write_bytes", "flush_ops", "discard_ops", "discard_bytes"):
            expect(r[f] == t[f], "block_io row %d: %s %d, %s's %d: a clone below counted again" % (
                r["seq"], f, r[f], top, t[f]))
        for d in ("read", "write"):
            # everyone's: the top's, and of the devices below only what is
            # no clone (md's own superblock writes)
            extra = r["all_%s_bytes" % d] - t["all_%s_bytes" % d]
            own = sum(r["by_device"][b]["other_%s_bytes" % d] + r["by_device"][b]["unattributed_%s_bytes" % d]
                      for b in below)
            expect(0 <= extra <= own, "block_io row %d: all_%s_bytes %d, %s's %d, below it %d not the tree's" % (
                r["seq"], d, r["all_%s_bytes" % d], top, t["all_%s_bytes" % d], own))
    dev = lambda d, f: sum(r["by_device"][d][f] for r in rows)
    # each device's reads as its /proc/diskstats line counts them: a
    # bio-based device's bios (a part md split off, one each), a disk's
    # requests (flush_dirty's writes come after diskstats' final row)
    for d in [top] + below:
        ds = sum(r["by_device"][d]["read_ops"] for r in ep.rows["diskstats"])
        expect(dev(d, "all_read_ops") == ds, "%s: all_read_ops %d, diskstats read_ops %d" % (d, dev(d, "all_read_ops"), ds))
    mirrors = len(below)
    wrote, read = dev(top, "write_bytes"), dev(top, "read_bytes")
    low_w = [dev(b, "write_bytes") for b in below]
    low_r = sum(dev(b, "read_bytes") for b in below)
    expect(all(w == wrote for w in low_w), "the tree wrote %d to %s, %s below" % (wrote, top, low_w))
    expect(low_r == read, "the tree read %d from %s, %d below" % (read, top, low_r))
    return "%s: %s; below it %s: tree wrote %s KiB, read %d KiB (%d mirror%s); all_* beyond the top's %d KiB" % (
        top, said, "+".join(below), "/".join(str(w >> 10) for w in low_w), low_r >> 10, mirrors, "s" if mirrors > 1 else "",
        (ep.total("block_io", "all_write_bytes") - dev(top, "all_write_bytes")) >> 10)


def check_nulls():
    said = []
    for d in sorted(glob.glob(os.path.join(out, "episodes", "*"))):
        ep = epi.Episode(d)
        for src, m in ep.manifest["sources"].items():
            expect(m["status"] == "ok" or m["error"], "%s %s: %s with no reason" % (ep.dir, src, m["status"]))
            nulls = sorted({f for r in ep.rows.get(src, []) for f in null_paths(r)})
            for f in nulls:
                expect(reason_for(src, m, f), "%s: %s.%s is null with no reason" % (
                    os.path.basename(d), src, f))
            if nulls:
                said.append("%s.%s" % (src, ",".join(nulls)))
    return "null with a reason: " + ("; ".join(said) or "none")


checks = {"probe": check_probe, "direct": check_direct, "direct-procfs": check_direct_procfs, "nulls": check_nulls,
          "sysio-ebpf": lambda: check_workload("sysio", "ebpf"),
          "sysio-ptrace": lambda: check_workload("sysio", "ptrace"),
          "netio-ebpf": lambda: check_workload("netio", "ebpf"),
          "netio-ptrace": lambda: check_workload("netio", "ptrace"),
          "fio-libaio": lambda: check_fio("libaio"), "fio-io_uring": lambda: check_fio("io_uring"),
          "metawork": lambda: check_known("metawork"), "patwork": lambda: check_known("patwork"),
          "darwork": lambda: check_darwork("ebpf"), "darwork-ptrace": lambda: check_darwork("ptrace"),
          "throttled": check_throttled, "controllers": check_controllers, "verdict": check_verdict,
          "memhigh": check_memhigh, "nfs": check_nfs, "nfs-late": check_nfs_late, "smb": check_smb,
          "causes": lambda: check_causes("causes", "every"),
          "causes-dirty": lambda: check_causes("causes-dirty", "dirty"),
          "causes-outside": lambda: check_causes("causes-outside", "outside:cachework"),
          "causes-loader": lambda: check_causes("causes-loader", "loader"),
          "stacked-dm": lambda: check_stacked("stacked-dm", "dm-0", ["vde"]),
          "stacked-dm-part": lambda: check_stacked("stacked-dm-part", "dm-0", ["vdf"], on_partition=True),
          "stacked-md": lambda: check_stacked("stacked-md", "md0", ["vde", "vdf"])}
print(checks[what]())
