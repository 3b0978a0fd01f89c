# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# syscall_io sees every byte the tree moves through a syscall: the zero-copy
# calls (sendfile, splice, tee, vmsplice, copy_file_range) and the socket
# calls (sendto, recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg) over an
# AF_UNIX pair and TCP on 127.0.0.1, each equal to what the workload counted
# itself, by syscall, by side (a call that moves bytes from one descriptor
# to another counts on both) and by kind of descriptor, with each backend;
# and fio's direct I/O to a loop device through psync, libaio (also 2048
# requests reaped by one io_getevents) and io_uring
# (with and without an SQPOLL thread), equal to fio's own totals.
. "$(dirname "$0")/lib/common.sh"

NETIO=$WORKLOADS/netio
FAMILIES="sendfile, splice, tee, vmsplice, copy_file_range, sendto, recvfrom, sendmsg, recvmsg, recvmmsg, sendmmsg"

zero_copy_and_sockets() { # backend
	cat >"$WORK/net-$1.yaml" <<EOY
episode: {name: net-$1}
target: {command: [$NETIO, --dir, $WORK, --rounds, "3", --report, $WORK/net-$1.json]}
sources:
  syscall_io: {interval: 10ms, backend: $1, syscalls: [$FAMILIES]}
EOY
	"$IOPSAMPLE" run "$WORK/net-$1.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/net-$1" "$WORK/net-$1.json" "$1" <<'PY'
import json, exact
from epi import expect
expect(ep.manifest["sources"]["syscall_io"]["backend"] == sys.argv[3], "backend")
print(exact.netio_matches(ep, json.load(open(sys.argv[2]))))
PY
}

# Without syscalls: every family is counted, the metadata calls too, each
# in by_syscall.
every_family_by_default() {
	cat >"$WORK/default.yaml" <<EOY
episode: {name: default}
target: {command: [$NETIO, --dir, $WORK, --rounds, "1"]}
sources:
  syscall_io: {interval: 10ms}
EOY
	"$IOPSAMPLE" run "$WORK/default.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/default" "$FAMILIES" <<'PY'
from epi import expect
names = ep.manifest["config"]["sources"]["syscall_io"]["syscalls"]
want = ["read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2"]
want += [n.strip() for n in sys.argv[2].split(",")] + ["aio", "io_uring"]
# and the metadata syscalls, by family: open, close, stat, directory, sync,
# seek, names, size
want += ["open", "openat", "openat2", "creat", "close", "close_range", "stat", "lstat", "fstat",
         "newfstatat", "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
         "getdents", "getdents64", "fsync", "fdatasync", "sync_file_range", "syncfs", "lseek",
         "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir",
         "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate", "fallocate"]
expect(sorted(names) == sorted(want), "default syscalls %s" % names)
expect(list(ep.rows["syscall_io"][0]["by_syscall"]) == names, "by_syscall keys")
print("%d families by default" % len(names))
PY
}

# fio, random reads and writes (60/40) of 4, 16 and 64 KiB with O_DIRECT on
# a loop device, iodepth 8. fio's JSON has its requests and bytes; the
# episode's blockdev bytes (by_kind) must equal them, and its requests the
# calls of the family the engine uses. fio's own other reads are the
# dynamic loader's (two pread64 of a shared library's program headers) and
# its config and /proc reads (read, on files): never on the block device,
# and the same whatever the engine, so psync's pread64 beyond fio's reads
# equal the pread64 of the libaio run.
fio_episode() { # name engine backend [fio options, a YAML list's items]
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target:
  command: [fio, --name=mix, --filename=$LOOP, --direct=1, --rw=randrw, --rwmixread=60,
            --bssplit=4k/50:16k/30:64k/20, --size=16M, --ioengine=$2, --iodepth=8, ${4:+$4,}
            --output-format=json, --output=$WORK/$1.json]
sources:
  syscall_io: {interval: 20ms, backend: $3}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet || { echo "exit $?"; return 1; }
}

fio_equal() { # name engine backend [fio options]
	fio_episode "$@" || return 1
	episode_py "$WORK/episodes/$1" "$WORK/$1.json" "$2" "$3" "$WORK/episodes/aio-$3" <<'PY'
import json, exact
from epi import expect, Episode
job = json.load(open(sys.argv[2]))["jobs"][0]
engine, backend = sys.argv[3], sys.argv[4]
rows = ep.rows["syscall_io"]
def by(name, f, rows=rows):
    return sum(r["by_syscall"][name][f] for r in rows)
said, blind = exact.fio_matches(ep, job, engine)
expect(blind == (engine == "io_uring" and backend == "ptrace"), "io_uring unseen under %s" % backend)
unseen = ep.manifest["sources"]["syscall_io"].get("unseen", {})
if blind:
    expect("ptrace" in unseen["io_uring"], "no reason: %s" % unseen)
if engine == "psync":
    loader = Episode(sys.argv[5]).rows["syscall_io"]
    expect(by("pwrite64", "calls") == job["write"]["total_ios"], "pwrite64 %d, fio %d" % (by("pwrite64", "calls"), job["write"]["total_ios"]))
    for f, want in (("calls", job["read"]["total_ios"]), ("bytes", job["read"]["io_bytes"])):
        extra = by("pread64", f) - want
        expect(extra == by("pread64", f, loader), "pread64 %s: %d beyond fio's, the loader's %d" % (f, extra, by("pread64", f, loader)))
# the families: io_uring under ptrace only; the access pattern both count
expect(("io_uring" in unseen) == (backend == "ptrace") and len(unseen) == (backend == "ptrace"), "unseen %s" % unseen)
print(said)
PY
}

# syscall_io against proc_io on an exec-heavy tree: writes equal to the
# byte and call; rchar and syscr above syscall_io's reads by exactly what
# the kernel itself reads for each exec (fs/exec.c, fs/binfmt_elf.c, each
# through kernel_read(), which counts in the caller's rchar and syscr): the
# first 256 bytes of the file, its program headers, and for a dynamic
# binary its interpreter's path, ELF header and program headers; a script
# adds its own first bytes before its interpreter's. Computed here from the
# binaries themselves. (Where the kernel also reads an ELF's
# PT_GNU_PROPERTY note, arm64's BTI, that note's size is added.)
exec_reads() { # backend
	printf '#!/bin/true\n# a script run by /bin/true\n' >"$WORK/script"
	chmod +x "$WORK/script"
	cat >"$WORK/exec-$1.yaml" <<EOY
episode: {name: exec-$1}
target: {command: [/bin/sh, -c, "i=0; while [ \$i -lt 25 ]; do /bin/true; $WORK/script; i=\$((i+1)); done"]}
sources:
  proc_io: {interval: 20ms}
  syscall_io: {interval: 20ms, backend: $1}
EOY
	"$IOPSAMPLE" run "$WORK/exec-$1.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/exec-$1" "$WORK/script" <<'PY'
import os, struct
from epi import expect
def phdrs(path):
    with open(path, "rb") as f:
        h = f.read(64)
        off, = struct.unpack_from("<Q", h, 32)
        size, n = struct.unpack_from("<HH", h, 54)
        f.seek(off)
        raw = f.read(size * n)
    return size * n, [struct.unpack_from("<IIQQQQ", raw, i * size) for i in range(n)]
def kernel_reads(path):
    """[(calls, bytes) without, with the PT_GNU_PROPERTY reads] of exec'ing an ELF"""
    path = os.path.realpath(path)
    total, segs = phdrs(path)
    calls, n = 2, min(256, os.path.getsize(path)) + total  # bprm->buf, program headers
    notes = [s[5] for s in segs if s[0] == 0x6474E553]
    interp = [s for s in segs if s[0] == 3]  # PT_INTERP
    if interp:
        with open(path, "rb") as f:
            f.seek(interp[0][2])
            ipath = f.read(interp[0][5]).rstrip(b"\0").decode()
        itotal, isegs = phdrs(ipath)
        calls, n = calls + 3, n + interp[0][5] + 64 + itotal  # its path, ELF header, headers
        notes = [s[5] for s in isegs if s[0] == 0x6474E553] or notes
    return [(calls, n), (calls + len(notes), n + sum(notes))]
script = min(256, os.path.getsize(sys.argv[2]))
true, sh = kernel_reads("/bin/true"), kernel_reads("/bin/sh")
want = [(sh[k][0] + 25 * true[k][0] + 25 * (true[k][0] + 1), sh[k][1] + 25 * true[k][1] + 25 * (true[k][1] + script))
        for k in (0, 1)]
t = ep.total
got = (t("proc_io", "syscr") - t("syscall_io", "read_calls"), t("proc_io", "rchar") - t("syscall_io", "read_bytes"))
expect(got in want, "rchar and syscr above syscall_io by %s, the execs' own reads %s" % (got, want))
expect(t("proc_io", "wchar") == t("syscall_io", "write_bytes") and t("proc_io", "syscw") == t("syscall_io", "write_calls"),
       "writes: wchar %d syscw %d, syscall_io %d %d" % (t("proc_io", "wchar"), t("proc_io", "syscw"),
                                                       t("syscall_io", "write_bytes"), t("syscall_io", "write_calls")))
print("51 execs (sh, 25 ELF, 25 scripts): syscr and rchar above syscall_io's reads by %d calls and %d bytes, "
      "what the kernel read for them (%d calls, %d bytes an ELF exec)%s" % (
          got[0], got[1], true[0][0], true[0][1], "" if got == want[0] else ", PT_GNU_PROPERTY notes included"))
PY
}

fio_setup() {
	truncate -s 64M "$WORK/fio.img" && LOOP=$(losetup -f --show "$WORK/fio.img")
}
fio_cleanup() { [ -n "${LOOP:-}" ] && losetup -d "$LOOP"; LOOP=; }

for b in ebpf ptrace; do
	check zero_copy_and_socket_calls_equal_the_workloads_$b zero_copy_and_sockets $b
done
check every_family_is_counted_by_default every_family_by_default
for b in ebpf ptrace; do
	check proc_io_exceeds_syscall_io_by_the_execs_own_reads_$b exec_reads $b
done

if ! command -v fio >/dev/null; then
	skip fio_equals_syscall_io "fio is not installed (make check installs it)"
elif ! fio_setup >"$WORK/fio-setup.out" 2>&1; then
	skip fio_equals_syscall_io "no loop device: $(tr '\n' ' ' <"$WORK/fio-setup.out")"
else
	trap 'fio_cleanup; cleanup' EXIT
	for b in ebpf ptrace; do
		check fio_libaio_equals_syscall_io_$b fio_equal aio-$b libaio $b
		# 2048 requests in flight, reaped 2048 at a time: one
		# io_getevents returns more events than a bounded loop walks
		# (before 5.17 the ebpf backend has only that loop, and says so)
		if [ $b = ebpf ] && ! printf '5.17\n%s\n' "$(uname -r)" | sort -VC; then
			skip fio_libaio_reaping_2048_at_once_equals_syscall_io_$b "Linux $(uname -r) has no bpf_loop"
		else
			check fio_libaio_reaping_2048_at_once_equals_syscall_io_$b fio_equal deep-$b libaio $b \
				"--size=48M, --iodepth=2048, --iodepth_batch_submit=2048, --iodepth_batch_complete_min=2048"
		fi
		check fio_psync_equals_syscall_io_$b fio_equal psync-$b psync $b
		check fio_io_uring_is_counted_or_null_with_why_$b fio_equal uring-$b io_uring $b
	done
	check fio_io_uring_sqpoll_equals_syscall_io_ebpf fio_equal sqpoll-ebpf io_uring ebpf --sqthread_poll=1
	fio_cleanup
fi
