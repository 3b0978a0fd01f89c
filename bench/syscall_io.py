#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""syscall_io's cost: the observed workload's slowdown over untraced, for
both backends, side by side with bpftrace and strace counting the same
syscalls, all in one run; then each backend's call time against fio's own
latency on the same reads, what a tick of the syscall_io sampler costs
against proc_io's, and what the eBPF backend costs processes outside the
target's tree.

    make bench            (or: python3 bench/syscall_io.py BUILD_DIR [REPEATS] [BEFORE_BUILD_DIR])

For each workload the ways of running it are interleaved REPEATS times
(default 5) and the median wall time of each is kept; slowdown = median /
median untraced. An iopsample run is the whole `iopsample run`, start-up
(probe, load, attach) included. bpftrace runs an in-kernel histogram of the
same syscalls' results and times (entry to exit, as the ebpf backend
times them since issue 36) on raw_syscalls:sys_enter and sys_exit for the
workload's pid (bpftrace 0.17 has no raw tracepoints without tracefs:
mounted here if it is not). Prints the markdown docs/benchmarks.md holds.

BEFORE_BUILD_DIR, the build of another iopsample (an earlier commit), adds
its ebpf backend as one more way, with the default syscalls of each, so a
change's cost is measured side by side with what was there before it; the
ptrace and strace ways and the rest of the bench are then left out.
"""
import found
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SYSCALLS = "read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2"
# syscall_io's default set: the read/write families and the metadata
# syscalls (aio and io_uring are requests: bpftrace has no equivalent here)
DEFAULT = SYSCALLS + (",sendfile,splice,copy_file_range,sendto,recvfrom,sendmsg,recvmsg,tee,vmsplice,"
                      "recvmmsg,sendmmsg,open,openat,openat2,creat,close,close_range,stat,lstat,fstat,"
                      "newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat,getdents,getdents64,"
                      "fsync,fdatasync,sync_file_range,syncfs,lseek,unlink,unlinkat,rename,renameat,renameat2,"
                      "mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,truncate,ftruncate,fallocate")


def syscall_numbers(names):
    """This architecture's numbers of names, from the kernel's headers."""
    nr = {}
    for line in open("/usr/include/%s-linux-gnu/asm/unistd_64.h" % os.uname().machine):
        f = line.split()
        if len(f) == 3 and f[0] == "#define" and f[1].startswith("__NR_"):
            nr[f[1][5:]] = int(f[2])
    return [nr[n] for n in names.split(",") if n in nr]
MIX_FILE = "/dev/shm/iopsample-bench-mix"
# title, mix's arguments, whether the slow ways (ptrace, strace) run it
WORKLOADS = [
    ("(0) start and end alone: no syscall", ["0", "1"], True),
    ("(a) I/O-heavy: 200k write(4 KiB)", ["200000", "1"], True),
    ("(b) mixed: 500k syscalls, 10% write(4 KiB)", ["500000", "10"], True),
    ("(c) I/O-heavy, long: 4M write(4 KiB)", ["4000000", "1"], False),
    # a regular file, whose access pattern syscall_io follows (tmpfs: the
    # page cache only)
    ("(d) file I/O: 200k pwrite64(4 KiB) in order to a tmpfs file", ["200000", "1", MIX_FILE], True),
]
SLOW = ("ptrace", "strace_bpf", "strace")
# the same work as the ebpf backend's: each of its default syscalls timed
# from entry to exit into a histogram by syscall, beside its results'
# (the set as a map filled at BEGIN: bpftrace 0.17's program for a chain
# of 59 comparisons is refused by the verifier)
BPFTRACE = ("BEGIN { %s } "
            "tracepoint:raw_syscalls:sys_enter /pid == cpid && @ids[args->id]/ { @t[tid] = nsecs; } "
            "tracepoint:raw_syscalls:sys_exit /@t[tid]/ { @ret[args->id] = hist(args->ret); "
            "@ns[args->id] = hist(nsecs - @t[tid]); delete(@t[tid]); }"
            % " ".join("@ids[%d] = 1;" % n for n in syscall_numbers(DEFAULT)))
TRACEFS = "/sys/kernel/tracing"


def timed(argv, **kw):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.monotonic() - t0


class Episodes:
    """iopsample runs in a scratch folder, each under a name of its own."""

    def __init__(self, build, work, prefix="b"):
        # the build compared with ("before") is that build's, whatever
        # $IOPSAMPLE says
        self.iopsample = os.path.join(build, "iopsample") if prefix == "before" else found.iopsample(build)
        self.work = work
        self.prefix = prefix
        self.n = 0

    def config(self, command, sources, duration=None):
        self.n += 1
        name = "%s%d" % (self.prefix, self.n)
        path = os.path.join(self.work, name + ".yaml")
        with open(path, "w") as f:
            f.write("episode: {name: %s, output_dir: %s%s}\n" % (
                name, self.work, ", duration: %s" % duration if duration else ""))
            f.write("target: {command: %s, stdout: \"null\"}\n" % json.dumps(command))
            f.write("sources: %s\n" % json.dumps(sources))
        return path, os.path.join(self.work, name)

    def run(self, command, sources, duration=None):
        path, episode = self.config(command, sources, duration)
        t = timed([self.iopsample, "run", path, "--quiet"])
        return t, json.load(open(os.path.join(episode, "manifest.json")))


def host():
    cpu = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip()
    v = lambda argv: subprocess.run(argv, capture_output=True, text=True).stdout.split("\n")[0]
    return "Host: %s, %d CPUs, kernel %s; %s; %s." % (
        cpu, os.cpu_count(), os.uname().release, v(["strace", "-V"]), v(["bpftrace", "--version"]))


def slowdowns(ep, mix, repeats, before=None):
    cols = ("ebpf", "before", "bpftrace") if before else ("ebpf", "ptrace", "bpftrace", "strace_bpf", "strace")
    names = {"ebpf": "iopsample, ebpf", "before": "iopsample before, ebpf", "ptrace": "iopsample, ptrace",
             "bpftrace": "bpftrace hist()", "strace_bpf": "strace -f -c --seccomp-bpf", "strace": "strace -f"}
    print("| workload | untraced | %s |" % " | ".join(names[k] for k in cols))
    print("|---|---|%s" % ("---|" * len(cols)))
    ratios = []
    for title, args, slow_too in WORKLOADS:
        sio = lambda backend: {"syscall_io": {"interval": "100ms", "backend": backend}}
        ways = {
            "untraced": lambda: timed([mix] + args),
            "ebpf": lambda: ep.run([mix] + args, sio("ebpf"))[0],
            "before": lambda: before.run([mix] + args, sio("ebpf"))[0],
            "ptrace": lambda: ep.run([mix] + args, sio("ptrace"))[0],
            "bpftrace": lambda: timed(["bpftrace", "-e", BPFTRACE, "-c", " ".join([mix] + args)]),
            "strace_bpf": lambda: timed(["strace", "-f", "-c", "--seccomp-bpf", "-e", "trace=" + SYSCALLS,
                                         "-o", "/dev/null", mix] + args),
            "strace": lambda: timed(["strace", "-f", "-e", "trace=" + SYSCALLS, "-o", "/dev/null", mix] + args),
        }
        if not slow_too or before:
            ways = {k: w for k, w in ways.items() if k not in SLOW}
        if not before:
            del ways["before"]
        times = {k: [] for k in ways}
        for _ in range(repeats):
            for k, run in ways.items():
                times[k].append(run())
        med = {k: statistics.median(v) for k, v in times.items()}
        slow = {k: med[k] / med["untraced"] for k in med}
        cell = lambda k: "%.3f s (%.2f×)" % (med[k], slow[k]) if k in med else "not run"
        print("| %s | %.3f s | %s |" % (title, med["untraced"], " | ".join(cell(k) for k in cols)))
        ratios.append((title, args, med, slow))
    print()
    start = ratios[0][2]
    for title, args, med, s in ratios[1:]:
        line = "- %s: ebpf's slowdown is %.2f× bpftrace's" % (title.split(":")[0], s["ebpf"] / s["bpftrace"])
        if "before" in s:
            line += " (before: %.2f×; now over before: %.2f×)" % (s["before"] / s["bpftrace"], s["ebpf"] / s["before"])
        if "ptrace" in s:
            line += "; its overhead (slowdown − 1) is 1/%.0f of ptrace's; ptrace's slowdown is %.2f× " \
                    "strace --seccomp-bpf's" % ((s["ptrace"] - 1) / max(s["ebpf"] - 1, 1e-9),
                                                s["ptrace"] / s["strace_bpf"])
        calls = int(args[0])
        line += "; less the start and end of (0), each syscall costs ebpf %.0f ns more" % (
            ((med["ebpf"] - start["ebpf"]) - (med["untraced"] - start["untraced"])) / calls * 1e9)
        if "ptrace" in med:
            line += " and ptrace %.1f µs" % (
                ((med["ptrace"] - start["ptrace"]) - (med["untraced"] - start["untraced"])) / calls * 1e6)
        print(line + ".")


def tick_cost(ep, mix, repeats):
    """CPU per tick of each sampler, from the manifests, with proc_io and
    syscall_io sampling the same busy target at 10 ms: the difference
    between a 6 s and a 1 s episode, so the start (the eBPF load, proc_io's
    first walk) and the end cancel out."""
    print()
    print("Sampler CPU per 10 ms tick: proc_io and syscall_io on the same busy target (`mix` in a "
          "shell loop), (CPU of a 6 s episode − CPU of a 1 s one) / (rows − rows), median of %d:"
          % repeats)
    print()
    print("| sampler | CPU per tick |")
    print("|---|---|")
    per_tick = {}
    loop = ["/bin/sh", "-c", "while :; do %s 200000 10; done" % mix]
    for _ in range(repeats):
        for backend in ("ebpf", "ptrace"):
            runs = [ep.run(loop, {"proc_io": {"interval": "10ms"},
                                  "syscall_io": {"interval": "10ms", "backend": backend}}, d)[1]
                    for d in ("1s", "6s")]
            for name, key in (("proc_io", "proc_io, beside syscall_io %s" % backend),
                              ("syscall_io", "syscall_io, %s" % backend)):
                short, long = (m["sources"][name] for m in runs)
                per_tick.setdefault(key, []).append(
                    (long["cpu_ns"] - short["cpu_ns"]) / (long["rows"] - short["rows"]))
    for key in sorted(per_tick):
        print("| %s | %.1f µs |" % (key, statistics.median(per_tick[key]) / 1000))
    e, p = (statistics.median(per_tick[k]) for k in ("syscall_io, ebpf", "proc_io, beside syscall_io ebpf"))
    print()
    print("- the ebpf sampler's CPU per tick is %.2f× proc_io's. (The ptrace sampler's holds its "
          "tracer thread, whose work follows the target's syscalls, not the ticks.)" % (e / p))


def host_cost(ep, mix, repeats):
    """What processes outside the tree pay while the eBPF backend is
    attached: every syscall exit on the host runs the program's first test."""
    args = ["2000000", "1000000"]  # 2M syscalls, almost all getppid
    times = {"alone": [], "beside": []}
    for _ in range(repeats):
        times["alone"].append(timed([mix] + args))
        path, _ = ep.config(["sleep", "30"], {"syscall_io": {"interval": "100ms", "backend": "ebpf"}})
        beside = subprocess.Popen([ep.iopsample, "run", path, "--quiet"])
        time.sleep(0.5)  # loaded and attached
        times["beside"].append(timed([mix] + args))
        beside.terminate()
        beside.wait()
    a, b = (statistics.median(times[k]) for k in ("alone", "beside"))
    print()
    print("- outside the tree: 2M syscalls of another process took %.3f s alone and %.3f s while an "
          "ebpf episode ran (%.2f×, %.0f ns per syscall exit)." % (a, b, b / a, (b - a) / 2e6 * 1e9))


def call_time(ep, repeats):
    """Each backend's mean pread64 time against fio's own lat_ns mean on the
    same run: fio psync, 4096 random O_DIRECT reads of 4 KiB on a loop device
    over a file in /dev/shm. The ebpf backend times each call in the kernel;
    ptrace from stop to stop, its tracer's delay included."""
    img = os.path.join("/dev/shm", "iopsample-bench-time.img")
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    loop = subprocess.run(["losetup", "-f", "--show", img], check=True, capture_output=True, text=True).stdout.strip()
    try:
        got = {"ebpf": [], "ptrace": []}
        for _ in range(repeats):
            for b in got:
                out = os.path.join(ep.work, "fio-%s-%d.json" % (b, ep.n))
                cmd = ["fio", "--name=rr", "--filename=" + loop, "--direct=1", "--rw=randread", "--bs=4k",
                       "--size=16M", "--ioengine=psync", "--output-format=json", "--output=" + out]
                path, episode = ep.config(cmd, {"syscall_io": {"interval": "100ms", "backend": b}})
                subprocess.run([ep.iopsample, "run", path, "--quiet"], check=True)
                rows = [json.loads(l) for l in open(os.path.join(episode, "syscall_io.jsonl"))]
                calls = sum(r["by_syscall"]["pread64"]["calls"] for r in rows)
                ns = sum(r["by_syscall"]["pread64"]["time_ns"] for r in rows)
                fio = json.load(open(out))["jobs"][0]["read"]["lat_ns"]["mean"]
                got[b].append((ns / calls, fio))
        print("| backend | mean pread64 time, syscall_io | fio's lat_ns mean, same run | syscall_io − fio |")
        print("|---|---|---|---|")
        for b, pairs in got.items():
            ours = statistics.median(p[0] for p in pairs)
            fio = statistics.median(p[1] for p in pairs)
            print("| %s | %.1f µs | %.1f µs | %+.1f µs (%+.0f %%) |" % (b, ours / 1e3, fio / 1e3, (ours - fio) / 1e3,
                                                                  100 * (ours - fio) / fio))
        print()
    finally:
        subprocess.run(["losetup", "-d", loop])
        os.unlink(img)


def main():
    sys.stdout.reconfigure(line_buffering=True)  # rows appear as they are measured
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    mix = os.path.join(build, "bench", "mix")
    work = tempfile.mkdtemp(prefix="iopsample-bench.")
    mounted = False
    if not os.path.exists(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
        mounted = True
    print(host() + " Median of %d interleaved runs.\n" % repeats)
    try:
        ep = Episodes(build, work)
        if len(sys.argv) > 3:
            slowdowns(ep, mix, repeats, Episodes(os.path.abspath(sys.argv[3]), work, "before"))
            return
        slowdowns(ep, mix, repeats)
        call_time(ep, repeats)
        tick_cost(ep, mix, repeats)
        host_cost(ep, mix, repeats)
    finally:
        shutil.rmtree(work)
        if os.path.exists(MIX_FILE):
            os.unlink(MIX_FILE)
        if mounted:
            subprocess.run(["umount", TRACEFS])


if __name__ == "__main__":
    main()
