# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# block_io and diskstats on a loop device over a file in /dev/shm, driven by
# tests/workloads/blkwork, which counts the I/O it does. The loop device is
# detached (and a loop device made for a test removed) however the test ends.
. "$(dirname "$0")/lib/common.sh"

BLKWORK=$WORKLOADS/blkwork
IMG=/dev/shm/iopsample-e2e-$$.img
LOOP=
# the number of a loop device a test added with LOOP_CTL_ADD (in a file:
# each check runs in a subshell)
EXTRA=$WORK/loop-added

# /dev/loop-control's ioctls (include/uapi/linux/loop.h)
loop_ctl() { "$PY" -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
print(fcntl.ioctl(fd, int(sys.argv[1], 16), int(sys.argv[2])))' "$@"; }
LOOP_CTL_ADD=0x4C80
LOOP_CTL_REMOVE=0x4C81

block_cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -s "$EXTRA" ] && loop_ctl $LOOP_CTL_REMOVE "$(cat "$EXTRA")" >/dev/null 2>&1
	rm -f "$IMG"
	cleanup
}
trap block_cleanup EXIT

# No udev here re-reading a device after a writer closes it? Then every
# read on the device is a test's own, and all_read_* are exact too.
udev_quiet() { ! pgrep -x systemd-udevd >/dev/null && ! pgrep -x udevd >/dev/null; }

setup() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	truncate -s 64M "$IMG" && LOOP=$(losetup -f --show "$IMG") || { LOOP=; return 1; }
	DEV=${LOOP#/dev/}
}

# The tree (two processes) and a process outside it do known O_DIRECT I/O
# on the device during one episode.
direct_episode() {
	cat >"$WORK/d.yaml" <<EOY
episode: {name: d, output_dir: $WORK/episodes}
target: {command: [sh, -c, "$BLKWORK direct $LOOP 0 2 10 && while [ ! -e $WORK/outside.done ]; do sleep 0.02; done"]}
sources:
  block_io: {interval: 20ms, devices: [$DEV]}
  diskstats: {interval: 20ms, devices: [$DEV]}
EOY
	(
		wait_for_file "$WORK/episodes/d/block_io.jsonl" 10 &&
			"$BLKWORK" direct "$LOOP" 33554432 1 4 >"$WORK/outside.json"
		touch "$WORK/outside.done"
	) &
	"$IOPSAMPLE" run "$WORK/d.yaml" --quiet || { echo "run: exit $?"; return 1; }
	wait
}

direct_exact() {
	episode_py "$WORK/episodes/d" "$DEV" <<'PY'
import exact
print(exact.block_io_matches(ep, ep.target_report(), sys.argv[2]))
PY
	# the kernel's bpf_loop (Linux 5.17), which the programs need, is probed for
	"$IOPSAMPLE" probe | "$PY" -c '
import json, sys
e = json.load(sys.stdin)["sources"]["block_io"]["ebpf"]
assert e["bpf_loop"] is True and e["works"] is True, e'
}

# A completion that reaches no program (this VM's kernel runs none while
# the current task is one of its agent's; a completion in an interrupt on
# top of one is such): the tree's bio is counted when its end is certain,
# when its address comes back as a new bio or, at the end, when the device
# has been idle 50 ms and its stat has completed requests the program did
# not count (a request leaves in_flight before its completion is traced:
# the kernel matrix's throttled episode judges that no end seen is
# inferred). IOPSAMPLE_TEST_UNSEEN_ENDS leaves the completion
# programs unattached, so every end is one of those.
unseen_ends() {
	cat >"$WORK/u.yaml" <<EOY
episode: {name: u, output_dir: $WORK/episodes}
target: {command: [$BLKWORK, direct, $LOOP, "0", "2", "10"]}
sources:
  block_io: {interval: 20ms, devices: [$DEV]}
  diskstats: {interval: 20ms, devices: [$DEV]}
EOY
	cat >"$WORK/uf.yaml" <<EOY
episode: {name: uf, output_dir: $WORK/episodes}
target: {command: [sh, -c, "$BLKWORK buffered $LOOP 0 1048576 && blkdiscard -o 0 -l 1048576 $LOOP"], stdout: file}
sources:
  block_io: {interval: 20ms, devices: [$DEV]}
EOY
	IOPSAMPLE_TEST_UNSEEN_ENDS=1 "$IOPSAMPLE" run "$WORK/u.yaml" --quiet || { echo "run: exit $?"; return 1; }
	IOPSAMPLE_TEST_UNSEEN_ENDS=1 "$IOPSAMPLE" run "$WORK/uf.yaml" --quiet || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/uf" <<'PY' || return 1
from epi import expect
# buffered writes, fsync's flush and a discard, every end unseen: the
# flush and the discard are inferred too, once the device is quiet, not
# left to the drain's bound
m = ep.manifest["sources"]["block_io"]
w = ep.target_report()["write_bytes"]
# (blkdiscard reads the device first, for signatures: the tree's reads)
ops = {f: ep.total("block_io", f) for f in ("read_ops", "write_ops", "write_bytes", "flush_ops", "discard_ops", "discard_bytes")}
expect(ops["write_bytes"] == w and ops["flush_ops"] >= 1 and ops["discard_bytes"] == 1048576,
       "%s, the tree wrote %d, synced and discarded 1 MiB" % (ops, w))
expect(m["ends_inferred"]["bios"] == ops["read_ops"] + ops["write_ops"] + ops["flush_ops"] + ops["discard_ops"] and m["drain"]["left"] is None,
       "ends inferred %s of %s; drain %s" % (m["ends_inferred"], ops, m["drain"]))
# the latency histograms short by the reads and writes among them, in
# their rows (a flush's or a discard's has none)
import exact
exact.latency_accounted(ep)
print("buffered %d bytes, fsync and a 1 MiB discard: %d reads, %d writes, %d flush, %d discards, every end inferred" % (
    w, ops["read_ops"], ops["write_ops"], ops["flush_ops"], ops["discard_ops"]))
PY
	episode_py "$WORK/episodes/u" "$DEV" "$WORK/episodes/d" <<'PY'
import epi, exact
from epi import expect
tree = ep.target_report()
print(exact.block_io_matches(ep, tree, sys.argv[2]))
m = ep.manifest["sources"]["block_io"]
expect(m.get("test_unseen_ends") is True, "the manifest does not say the ends were made unseen: %s" % m)
expect("test_unseen_ends" not in epi.Episode(sys.argv[3]).manifest["sources"]["block_io"], "said without the setting")
inferred, rows = m["ends_inferred"], ep.rows["block_io"]
expect(inferred["bios"] == tree["read_ops"] + tree["write_ops"], "ends inferred %s, the tree's bios %d" % (inferred, tree["read_ops"] + tree["write_ops"]))
expect(all(sum(r[d + "_latency_hist"]) == 0 for r in rows for d in ("read", "write")), "a latency with no completion seen")
# both ways: a reused address during the run, and the idle device at the end
expect(inferred["rows"][0] < rows[-1]["seq"], "no end inferred before the final row: %s" % inferred)
expect(rows[-1]["seq"] in inferred["rows"] and m["drain"]["waited_ns"] >= 50 * 10**6, "the final row inferred nothing: %s, drain %s" % (inferred, m["drain"]))
expect(any(w.startswith("block_io: %d of the tree's bios ended where no program saw" % inferred["bios"]) for w in ep.manifest["warnings"]), "no warning: %s" % ep.manifest["warnings"])
# all_* missed each request whose end no program saw; with the tree's
# bytes the rows hold beside it, they are what diskstats counted
import causes
causes.diskstats_placed(ep, ("read", "write"))
print("%d ends inferred in rows %s, the last after %d ms of an idle device; diskstats' bytes all_* and those ends'" % (
    inferred["bios"], inferred["rows"], m["drain"]["waited_ns"] // 10**6))
PY
}

# fio's random 4 KiB O_DIRECT reads, 64 at once, on a loop device (direct
# I/O to its file) whose queue holds 4 requests. io_uring's bios carry
# REQ_NOWAIT: one that finds no request free ends with BLK_STS_AGAIN
# before it reaches the device, and io_uring submits its bytes again in
# another. Each byte counts once: block_io's reads and bytes are fio's (its
# JSON's), as diskstats' are. libaio waits for a request instead: the same
# figures by another road.
#
# Every end is accounted for: seen (in a latency bucket) or inferred (in
# ends_inferred, row by row, with the warning). This VM's kernel runs no
# BPF program while its own agent's task is current, and counts no miss
# (docs/data-model.md, block_io's "Ends no program sees"): a completion the
# block softirq handles on top of that task reaches no program. Here 4
# runs in 178 of the libaio case on a busy host had such requests (up to
# the queue's 4; traced with bpf_printk, each was issued, then its bios
# freed and back as new ones with no completion event between); their
# ends are inferred when the address comes back, and counted.
shallow_queue() ( # engine
	local loop= img=/dev/shm/iopsample-e2e-sq-$$.img dev
	trap '[ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"' EXIT
	command -v fio >/dev/null || { echo "no fio"; exit 1; }
	truncate -s 64M "$img" && loop=$(losetup --direct-io=on -f --show "$img") || { loop=; echo "no loop device"; exit 1; }
	dev=${loop#/dev/}
	echo 4 >"/sys/block/$dev/queue/nr_requests" || { echo "cannot set nr_requests"; exit 1; }
	cat >"$WORK/sq-$1.yaml" <<EOY
episode: {name: sq-$1, output_dir: $WORK/episodes}
target:
  command: [fio, --name=sq, --filename=$loop, --direct=1, --rw=randread, --bs=4k, --iodepth=64,
            --io_size=64M, --ioengine=$1, --output-format=json, --output=$WORK/sq-$1.json]
sources:
  block_io: {interval: 100ms, devices: [$dev]}
  diskstats: {interval: 100ms, devices: [$dev]}
EOY
	"$IOPSAMPLE" run "$WORK/sq-$1.yaml" --quiet || { echo "run: exit $?"; exit 1; }
	episode_py "$WORK/episodes/sq-$1" "$WORK/sq-$1.json" "$(cat "/sys/block/$dev/queue/nr_requests")" <<'PY'
import json
from epi import expect
job = json.load(open(sys.argv[2]))["jobs"][0]["read"]
m = ep.manifest["sources"]["block_io"]
got = {f: ep.total("block_io", f) for f in ("read_bytes", "read_ops")}
expect(got == {"read_bytes": job["io_bytes"], "read_ops": job["total_ios"]},
       "block_io %s, fio %d bytes in %d reads (%d bios would have blocked)" % (
           got, job["io_bytes"], job["total_ios"], m.get("bios_would_block", -1)))
expect(ep.total("diskstats", "read_bytes") == job["io_bytes"], "diskstats %d" % ep.total("diskstats", "read_bytes"))
short = {r["seq"]: r["read_ops"] - sum(r["read_latency_hist"]) for r in ep.rows["block_io"]
         if r["read_ops"] != sum(r["read_latency_hist"])}
inferred = m["ends_inferred"]
expect(sum(short.values()) == inferred["bios"] and sorted(short) == inferred["rows"],
       "rows short of latencies %s, ends_inferred %s (recursion_misses %s)" % (short, inferred, m["recursion_misses"]))
warned = any("ended where no program saw the end" in w for w in ep.manifest["warnings"])
expect(warned == (inferred["bios"] > 0), "warned %s, ends_inferred %s" % (warned, inferred))
print("nr_requests %s: fio %d bytes in %d reads; block_io and diskstats the same; %d bios ended would-block, retried; "
      "%d ends inferred" % (sys.argv[3], job["io_bytes"], job["total_ios"], m["bios_would_block"], inferred["bios"]))
PY
)

# A WILLNEED prefetch throttled by the episode's own cgroup (v1
# blkio.throttle.read_bps_device, or v2 io.max: set here while the target
# waits its first half second) to 16 MiB/s: the throttle holds 32 MiB of
# reads and lets them go from its kworker over two seconds, after the
# tree is gone (this test holds the device open, so the tree's last close
# waits for nothing). block_io counts every one as the tree's, its final
# row waits for those the throttle holds, and no end is inferred while
# they wait.
throttled_prefetch() (
	local loop= img=/dev/shm/iopsample-e2e-thr-$$.img dev bytes=33554432 run
	trap 'exec 8<&-; [ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"' EXIT
	truncate -s 64M "$img" && loop=$(losetup -f --show "$img") || { loop=; echo "no loop device"; exit 1; }
	dev=${loop#/dev/}
	echo 65536 >"/sys/block/$dev/queue/read_ahead_kb" && exec 8<"$loop" && blockdev --flushbufs "$loop" || exit 1
	cat >"$WORK/thr.yaml" <<EOY
episode: {name: thr, output_dir: $WORK/episodes}
target: {command: [sh, -c, "sleep 0.5; exec $BLKWORK prefetch $loop $bytes"], stdout: file}
sources:
  proc_io: {interval: 20ms}
  block_io: {interval: 20ms, devices: [$dev]}
EOY
	"$IOPSAMPLE" run "$WORK/thr.yaml" --quiet >"$WORK/thr.out" 2>&1 &
	run=$!
	wait_until 5 grep -q "iopsample-thr" "$WORK/episodes/thr/manifest.json" 2>/dev/null ||
		{ echo "no cgroup in the manifest"; wait $run; exit 1; }
	local how
	how=$("$PY" - "$WORK/episodes/thr/manifest.json" "$(cat "/sys/block/$dev/dev")" <<'PY'
import json, os, sys
dirs = [c["path"] for c in json.load(open(sys.argv[1]))["cgroup"]["cgroups"]]
v1 = [d for d in dirs if os.path.exists(d + "/blkio.throttle.read_bps_device")]
v2 = [d for d in dirs if os.path.exists(d + "/io.max")]
if v1:
    open(v1[0] + "/blkio.throttle.read_bps_device", "w").write("%s 16777216" % sys.argv[2])
    print("v1 blkio.throttle.read_bps_device")
elif v2:
    open(v2[0] + "/io.max", "w").write("%s rbps=16777216" % sys.argv[2])
    print("v2 io.max")
PY
	) || { wait $run; exit 1; }
	[ -n "$how" ] || { echo "the episode's cgroup has no throttle"; wait $run; exit 1; }
	wait $run || { echo "run: exit $?: $(cat "$WORK/thr.out")"; exit 1; }
	episode_py "$WORK/episodes/thr" "$how" <<'PY'
from epi import expect
want = ep.target_report()["read_bytes"]
m = ep.manifest["sources"]["block_io"]
got = ep.total("block_io", "read_bytes")
expect(got == want, "block_io read_bytes %d, the tree asked for %d (drain %s)" % (got, want, m["drain"]))
expect(m["ends_inferred"]["bios"] == 0, "ends inferred while the throttle held them: %s" % m["ends_inferred"])
expect(m["drain"]["left"] is None and m["drain"]["waited_ns"] >= 10**9, "drain %s" % m["drain"])
expect(ep.total("proc_io", "read_bytes") >= want, "proc_io read_bytes %d" % ep.total("proc_io", "read_bytes"))
print("%s 16 MiB/s: %d MiB prefetched, block_io %d MiB, the final row waited %.1f s; no end inferred (%s)" % (
    sys.argv[2], want >> 20, got >> 20, m["drain"]["waited_ns"] / 1e9,
    "the throttle's entry followed" if m["throttle_entry"] is None else m["throttle_entry"]))
PY
)

direct_outside() {
	local exact=0
	udev_quiet && exact=1
	episode_py "$WORK/episodes/d" "$WORK/outside.json" $exact <<'PY'
import json
from epi import expect
outside, exact = json.load(open(sys.argv[2])), sys.argv[3] == "1"
tree = ep.target_report()
expect(outside["write_ops"] > 0, "the outside process did nothing")
for f in ("read_ops", "read_bytes", "write_ops", "write_bytes"):
    both = tree[f] + outside[f]
    got = ep.total("block_io", "all_" + f)
    ok = got == both if exact or f.startswith("write") else got >= both
    expect(ok, "all_%s %d, the tree and the outsider did %d" % (f, got, both))
    expect(ep.total("block_io", f) == tree[f], "%s holds the outsider's" % f)
print("all_*: the outside process's %d reads and %d writes are in all_* only" % (
    outside["read_ops"], outside["write_ops"]))
PY
}

direct_diskstats() {
	episode_py "$WORK/episodes/d" <<'PY'
import exact
from epi import expect
utils = [r["util_pct"] for r in ep.rows["diskstats"] if r["util_pct"] is not None]
expect(utils and all(0 <= u <= 100 for u in utils), "util_pct %s" % utils)
expect(all(r["in_flight"] >= 0 for r in ep.rows["diskstats"]), "in_flight")
print("%s; util_pct %.1f..%.1f" % (exact.diskstats_matches_block_io(ep), min(utils), max(utils)))
PY
}

# export spreads both sources over a grid with no code of theirs: counts
# keep their totals, util_pct stays a percentage, in_flight a level.
direct_export() {
	"$IOPSAMPLE" export "$WORK/episodes/d" -o "$WORK/d.csv" --grid 50ms || return 1
	"$PY" - "$WORK/d.csv" "$WORK/episodes/d" "$DEV" <<'PY'
import csv, sys, epi
from epi import expect
rows = list(csv.DictReader(open(sys.argv[1])))
ep, dev = epi.Episode(sys.argv[2]), sys.argv[3]
def total(col):
    return sum(int(r[col]) for r in rows if r[col] != "")
for f in ("write_ops", "all_read_bytes", "by_device.%s.read_ops" % dev, "write_latency_hist.5"):
    src = f.split(".")
    want = 0
    for r in ep.rows["block_io"]:
        v = r
        for k in src:
            v = v[int(k)] if isinstance(v, list) else v[k]
        want += v
    expect(total("block_io." + f) == want, "export block_io.%s %d, rows %d" % (f, total("block_io." + f), want))
for col in ("diskstats.util_pct", "diskstats.by_device.%s.util_pct" % dev):
    vals = [float(r[col]) for r in rows if r[col] != ""]
    expect(vals and all(0 <= v <= 100 for v in vals), "%s %s" % (col, vals))
expect(all(r["diskstats.in_flight"] == "" or int(r["diskstats.in_flight"]) >= 0 for r in rows), "in_flight")
PY
}

# Buffered writes and then fsync(), on the raw device. What this shows: the
# write()s only dirty the page cache (proc_io's write_bytes counts them
# there); nothing reaches the device until fsync(), whose writeback runs in
# the calling process, so every byte is the tree's, as one 4 KiB bio per
# page, which the block layer merges into a few large requests; then one
# empty flush. Each merged bio still counts as one of the tree's write_ops:
# write_ops = requests + merges, as diskstats reports them.
buffered_fsync() {
	cat >"$WORK/f.yaml" <<EOY
episode: {name: f, output_dir: $WORK/episodes}
target: {command: [$BLKWORK, buffered, $LOOP, "0", "4194304"]}
sources:
  proc_io: {interval: 20ms}
  block_io: {interval: 20ms, devices: [$DEV]}
  diskstats: {interval: 20ms, devices: [$DEV]}
EOY
	"$IOPSAMPLE" run "$WORK/f.yaml" --quiet || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/f" <<'PY'
from epi import expect
n = ep.target_report()["write_bytes"]
t = lambda s, f: ep.total(s, f)
expect(t("proc_io", "write_bytes") >= n, "proc_io write_bytes %d" % t("proc_io", "write_bytes"))
expect(t("block_io", "write_bytes") == n, "the tree's write_bytes %d of %d" % (t("block_io", "write_bytes"), n))
expect(t("block_io", "write_ops") == n // 4096, "the tree's write_ops %d" % t("block_io", "write_ops"))
expect(t("block_io", "flush_ops") == 1, "flush_ops %d" % t("block_io", "flush_ops"))
expect(t("block_io", "all_write_bytes") == t("diskstats", "write_bytes") == n, "all_write_bytes")
expect(t("block_io", "all_write_ops") == t("diskstats", "write_ops"), "all_write_ops %d, diskstats %d" % (
    t("block_io", "all_write_ops"), t("diskstats", "write_ops")))
merged = t("diskstats", "write_merges")
requests = t("diskstats", "write_ops") - t("diskstats", "flush_ops")  # fsync's empty flush is a write
expect(merged > 0, "nothing merged")
expect(t("block_io", "write_ops") == requests + merged,
       "write_ops %d != %d requests + %d merges" % (t("block_io", "write_ops"), requests, merged))
print("buffered %d bytes + fsync: %d bios of the tree, merged into %d requests (%d merges), 1 flush" % (
    n, t("block_io", "write_ops"), requests, merged))
PY
}

# Who writes back what a buffered write dirtied, on ext4 on a loop device of
# its own: sync(2) (coreutils' `sync`) only wakes the flusher and waits for
# it, so its kworker writes the pages back, and they are the tree's all the
# same, as writeback (by_cause); fsync(2) of the file (`sync FILE`) writes
# back in the calling task: the tree's, as sync.
sync_episode() { # name command-after-the-write
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, output_dir: $WORK/episodes}
target: {command: [sh, -c, "dd if=/dev/zero of=$WORK/mnt/f bs=1M count=8 status=none && $2"]}
sources:
  proc_io: {interval: 20ms}
  block_io: {interval: 20ms, devices: [$(basename "$FSLOOP")]}
EOY
	rm -f "$WORK/mnt/f" && "$IOPSAMPLE" run "$WORK/$1.yaml" --quiet || { echo "run $1: exit $?"; return 1; }
}

sync_writeback() (
	FSLOOP=
	trap 'umount "$WORK/mnt" 2>/dev/null; [ -n "$FSLOOP" ] && losetup -d "$FSLOOP"; rm -f "$WORK/fs.img"' EXIT
	truncate -s 96M "$WORK/fs.img" && FSLOOP=$(losetup -f --show "$WORK/fs.img") || { FSLOOP=; echo "no loop device"; exit 1; }
	mkfs.ext4 -q "$FSLOOP" && mkdir -p "$WORK/mnt" && mount "$FSLOOP" "$WORK/mnt" || { echo "mkfs or mount failed"; exit 1; }
	sync_episode sync2 sync || exit 1
	sync_episode fsync "sync $WORK/mnt/f" || exit 1
	"$PY" - "$WORK/episodes" <<'PY'
import json, sys
def total(name, src, f):
    return sum(json.loads(l)[f] for l in open("%s/%s/%s.jsonl" % (sys.argv[1], name, src)))
n = 8 << 20
# the tree dirtied the 8 MiB it wrote, and at most a few pages more: ext4
# may dirty a block of its own (the new file's directory or bitmap block) in
# the writer's name, which /proc/PID/io counts as the writer's
for name in ("sync2", "fsync"):
    wb = total(name, "proc_io", "write_bytes")
    assert n <= wb <= n + (64 << 10), "%s: proc_io write_bytes %d, %d written" % (name, wb, n)
def cause(name, c):
    return sum(json.loads(l)["by_cause"][c]["write_bytes"] for l in open("%s/%s/block_io.jsonl" % (sys.argv[1], name)))
# the data as writeback or sync, exactly; beside it only the file system's
# own blocks written in a task of the tree (metadata)
tree, all_ = total("sync2", "block_io", "write_bytes"), total("sync2", "block_io", "all_write_bytes")
wb, sy, meta = cause("sync2", "writeback"), cause("sync2", "sync"), cause("sync2", "metadata")
assert wb + sy == n and tree == n + meta and wb >= n // 2 and all_ >= n, \
    "sync(2): the tree wrote %d (writeback %d, sync %d, metadata %d), the device took %d" % (tree, wb, sy, meta, all_)
ftree, fsy, fmeta = total("fsync", "block_io", "write_bytes"), cause("fsync", "sync"), cause("fsync", "metadata")
assert fsy == n and ftree == n + fmeta, "fsync: the tree wrote %d of %d, %d as sync, %d metadata" % (ftree, n, fsy, fmeta)
print("8 MiB dirtied: after sync(2) the tree's %d bytes, %d written back by the flusher, the device took %d; "
      "after fsync the tree's %d, as sync" % (tree, wb, all_, ftree))
PY
)

# I/O in flight when the tree exits. The tree asks for a disk's first
# 256 MiB with posix_fadvise(WILLNEED) and exits at once, its reads still in
# flight: the disk is tests/workloads/slowdisk, a FUSE file whose every read
# is answered 10 ms late, under a loop device, so they take about two
# seconds more. The test holds the device open, as a mounted filesystem
# would: the last close of a block device waits for its reads in flight.
# Five episodes, each on a cold cache: block_io's final row waits for the
# tree's reads and counts all 256 MiB, which proc_io counts at submission;
# diskstats' waits for the device's in_flight to fall back and has every
# byte too; the manifest says how long each waited and that nothing was
# left. A sixth with drain: 0s takes its final row at once, when most of
# the reads are in flight whatever the machine's pace (a bound near the
# reads' own time would race them), and the manifest says what was left. The disk served every byte, 6 x 256 MiB. On the build before the
# wait, block_io counted none of the first episode's 32 MiB (the size this
# test first had).
size_is() { [ "$(stat -c %s "$1" 2>/dev/null)" = "$2" ]; }
idle() { [ "$(cat /sys/block/$1/inflight)" = "$(printf '%8d %8d' 0 0)" ]; }
in_flight_at_exit() (
	local bytes=268435456 slow=$WORK/slow sdpid= sloop= i
	trap 'exec 8<&-; [ -n "$sloop" ] && losetup -d "$sloop"; [ -n "$sdpid" ] && kill $sdpid && wait $sdpid
		umount -l "$slow" 2>/dev/null' EXIT
	mkdir -p "$slow"
	"$WORKLOADS/slowdisk" "$slow" $bytes 10 >"$WORK/slowdisk.json" &
	sdpid=$!
	wait_until 10 size_is "$slow/disk" $bytes || { echo "slowdisk did not mount"; exit 1; }
	sloop=$(losetup -f --show "$slow/disk") || { sloop=; echo "no loop device"; exit 1; }
	local dev=${sloop#/dev/}
	echo $((bytes / 1024)) >/sys/block/$dev/queue/read_ahead_kb && exec 8<"$sloop" || exit 1
	for i in 1 2 3 4 5 6; do
		# a cold cache: nothing of a run before in flight, nothing cached
		wait_until 10 idle $dev &&
			blockdev --flushbufs "$sloop" || { echo "run $i: $dev stays busy: $(cat /sys/block/$dev/inflight)"; exit 1; }
		cat >"$WORK/pf$i.yaml" <<EOY
episode: {name: pf$i, output_dir: $WORK/episodes}
target: {command: [$BLKWORK, prefetch, $sloop, "$bytes"], stdout: file}
sources:
  proc_io: {interval: 20ms}
  block_io: {interval: 20ms, devices: [$dev]$([ $i = 6 ] && echo ", drain: 0s")}
  diskstats: {interval: 20ms, devices: [$dev]$([ $i = 6 ] && echo ", drain: 0s")}
EOY
		"$IOPSAMPLE" run "$WORK/pf$i.yaml" --quiet || { echo "run $i: exit $?"; exit 1; }
	done
	wait_until 10 idle $dev || { echo "$dev stays busy"; exit 1; }
	exec 8<&- && losetup -d "$sloop" && sloop= && kill $sdpid && wait $sdpid
	sdpid=
	"$PY" - "$WORK/episodes" "$WORK/slowdisk.json" <<'PY'
import json, sys, epi
from epi import expect
served = json.load(open(sys.argv[2]))
out = []
for i in range(1, 6):
    ep = epi.Episode("%s/pf%d" % (sys.argv[1], i))
    want = ep.target_report()["read_bytes"]
    got = {s: ep.total(s, "read_bytes") for s in ("proc_io", "block_io", "diskstats")}
    # proc_io's counts the tree's reads of every device (its binary's pages)
    expect(got["proc_io"] >= want, "pf%d: proc_io read_bytes %d of %d" % (i, got["proc_io"], want))
    expect(got["block_io"] == want, "pf%d: block_io read_bytes %d of %d" % (i, got["block_io"], want))
    expect(got["diskstats"] >= want, "pf%d: diskstats read_bytes %d of %d" % (i, got["diskstats"], want))
    drain = {s: ep.manifest["sources"][s]["drain"] for s in ("block_io", "diskstats")}
    for s, d in drain.items():
        expect(d["left"] is None and d["limit_ns"] == 5 * 10**9, "pf%d: %s drain %s" % (i, s, d))
    # the tree was gone before its reads were done: the final row waited
    expect(drain["block_io"]["waited_ns"] > 0, "pf%d: block_io did not wait" % i)
    out.append("%d/%d/%d (waited %d/%d ms)" % (got["proc_io"] >> 20, got["block_io"] >> 20, got["diskstats"] >> 20,
                                               drain["block_io"]["waited_ns"] // 10**6, drain["diskstats"]["waited_ns"] // 10**6))
ep = epi.Episode("%s/pf6" % sys.argv[1])
cut = {s: ep.manifest["sources"][s]["drain"] for s in ("block_io", "diskstats")}
for s, what in (("block_io", "bios"), ("diskstats", "requests")):
    d = cut[s]
    expect(d["limit_ns"] == 0 and d["left"] is not None and d["left"][what] > 0, "pf6: %s drain %s" % (s, d))
expect(ep.total("block_io", "read_bytes") < want, "pf6: block_io read_bytes %d" % ep.total("block_io", "read_bytes"))
expect(served["read_bytes"] == 6 * want, "the slow disk served %d bytes" % served["read_bytes"])
print("%d MiB prefetched, the tree gone: MiB read by proc_io/block_io/diskstats (block_io's and diskstats' wait) in 5 runs: %s" % (want >> 20, ", ".join(out)))
print("drain 0s: block_io had %d MiB, %d bios left; diskstats %d requests left" % (
    ep.total("block_io", "read_bytes") >> 20, cut["block_io"]["left"]["bios"], cut["diskstats"]["left"]["requests"]))
PY
)

rows_at_least() { [ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ]; }

# A device that leaves /proc/diskstats mid-episode (a loop device removed
# through /dev/loop-control) keeps its keys, null from then on, and the
# manifest says so; the totals go on with the devices that remain.
vanishing() {
	local n=200
	while [ -e /sys/block/loop$n ]; do n=$((n + 1)); done
	loop_ctl $LOOP_CTL_ADD $n >/dev/null && echo $n >"$EXTRA" || { echo "LOOP_CTL_ADD $n failed"; return 1; }
	cat >"$WORK/v.yaml" <<EOY
episode: {name: v, output_dir: $WORK/episodes}
target: {command: [sh, -c, "while [ ! -e $WORK/removed ]; do sleep 0.02; done; $BLKWORK direct $LOOP 0 1 2; sleep 0.1"]}
sources:
  diskstats: {interval: 20ms, devices: [$DEV, loop$n]}
EOY
	(
		wait_until 10 rows_at_least "$WORK/episodes/v/diskstats.jsonl" 3 &&
			loop_ctl $LOOP_CTL_REMOVE $n >/dev/null && rm "$EXTRA"
		touch "$WORK/removed"
	) &
	"$IOPSAMPLE" run "$WORK/v.yaml" --quiet || { echo "run: exit $?"; return 1; }
	wait
	[ ! -e /sys/block/loop$n ] || { echo "loop$n was not removed"; return 1; }
	episode_py "$WORK/episodes/v" "$DEV" "loop$n" <<'PY'
from epi import expect
dev, gone = sys.argv[2], sys.argv[3]
rows = ep.rows["diskstats"]
nulls = [all(v is None for v in r["by_device"][gone].values()) for r in rows]
expect(not nulls[0] and nulls[-1], "loop device's values %s" % nulls)
first = nulls.index(True)
expect(all(nulls[first:]), "values came back after the device left")
expect(all(r["write_ops"] is not None for r in rows), "the totals went null")
expect(sum(r["write_ops"] for r in rows) == sum(r["by_device"][dev]["write_ops"] for r in rows) > 0,
       "the totals are not the remaining device's")
w = [w for w in ep.manifest["warnings"] if gone in w]
expect(len(w) == 1 and w[0].startswith("diskstats: block device " + gone), "warnings %s" % ep.manifest["warnings"])
print("row %d of %d on: %s null; %s" % (first, len(rows), gone, w[0]))
PY
}

bad_devices() {
	local src out c
	for src in block_io diskstats; do
		printf 'episode: {name: bad, output_dir: %s/bad}\ntarget: {command: [true]}\nsources:\n  %s: {devices: [%s, nosuchdisk]}\n' \
			"$WORK" "$src" "$DEV" >"$WORK/bad.yaml"
		out=$("$IOPSAMPLE" run "$WORK/bad.yaml" 2>&1)
		c=$?
		[ $c -eq 78 ] || { echo "$src: exit $c: $out"; return 1; }
		[ "$out" = "iopsample: $WORK/bad.yaml:4:$((${#src} + 18 + ${#DEV})): no block device \"nosuchdisk\" (/sys/class/block names them)" ] ||
			{ echo "$src: $out"; return 1; }
	done
	[ ! -e "$WORK/bad" ] || { echo "an episode directory was created"; return 1; }
}

# user nobody may not call bpf(): a required block_io exits 77 before the
# target runs; an optional one is unavailable with the reason, and
# diskstats (deployable) still works.
not_permitted() {
	local dir out c
	dir=$(unprivileged_dir nobody)
	printf 'episode: {name: r, output_dir: %s}\ntarget: {command: [touch, %s/ran]}\nsources:\n  block_io: {devices: [%s]}\n' \
		"$dir" "$dir" "$DEV" >"$dir/r.yaml"
	printf 'episode: {name: o, output_dir: %s}\ntarget: {command: [sleep, "0.1"]}\nsources:\n  block_io: {devices: [%s], required: false}\n  diskstats: {devices: [%s]}\n' \
		"$dir" "$DEV" "$DEV" >"$dir/o.yaml"
	chmod 644 "$dir"/*.yaml
	out=$(as_nobody "$dir/iopsample" run "$dir/r.yaml" --quiet 2>&1)
	c=$?
	[ $c -eq 77 ] || { echo "required: exit $c: $out"; return 1; }
	grep -q "block_io cannot run on this host: bpf() refused" <<<"$out" || { echo "$out"; return 1; }
	[ ! -e "$dir/ran" ] || { echo "the target ran"; return 1; }
	as_nobody "$dir/iopsample" run "$dir/o.yaml" --quiet || { echo "optional: exit $?"; return 1; }
	episode_py "$dir/o" <<'PY' || return 1
from epi import expect
s = ep.manifest["sources"]
expect(s["block_io"]["status"] == "unavailable" and s["block_io"]["error"].startswith("bpf() refused"), "block_io %s" % s["block_io"])
expect(s["block_io"]["ebpf"]["works"] is False, "ebpf facts %s" % s["block_io"].get("ebpf"))
expect(s["diskstats"]["status"] == "ok" and ep.rows["diskstats"][-1]["final"], "diskstats %s" % s["diskstats"])
PY
	# and probe says the same
	as_nobody "$dir/iopsample" probe | "$PY" -c '
import json, sys
s = json.load(sys.stdin)["sources"]
assert s["block_io"]["status"] == "unavailable" and "bpf() refused" in s["block_io"]["error"], s["block_io"]
assert s["diskstats"]["status"] == "ok", s["diskstats"]'
}

if ! setup >"$WORK/setup.out" 2>&1; then
	setup_out=$(tr '\n' ' ' <"$WORK/setup.out")
	for t in block_io_counts_the_trees_direct_io_exactly block_io_all_holds_io_from_outside_the_tree \
		diskstats_agrees_with_block_io_all export_spreads_block_sources_over_a_grid \
		block_io_infers_the_ends_no_program_saw buffered_writes_reach_the_device_at_fsync_in_the_tree sync_hands_writeback_to_the_flusher_the_bytes_stay_the_trees \
		block_sources_final_row_waits_for_io_in_flight diskstats_device_that_vanishes_is_null_and_warned \
		block_sources_nonexistent_device_exits_78 block_io_not_permitted_exits_77_or_unavailable; do
		skip $t "no loop device: $setup_out"
	done
	exit 0
fi
if direct_episode_out=$(direct_episode 2>&1); then
	check block_io_counts_the_trees_direct_io_exactly direct_exact
	check block_io_all_holds_io_from_outside_the_tree direct_outside
	check diskstats_agrees_with_block_io_all direct_diskstats
	check export_spreads_block_sources_over_a_grid direct_export
else
	for t in block_io_counts_the_trees_direct_io_exactly block_io_all_holds_io_from_outside_the_tree \
		diskstats_agrees_with_block_io_all export_spreads_block_sources_over_a_grid; do
		fail $t "the episode: $direct_episode_out"
	done
fi
check block_io_infers_the_ends_no_program_saw unseen_ends
for engine in io_uring libaio; do
	check block_io_counts_each_byte_once_on_a_shallow_queue_$engine shallow_queue $engine
done
check block_io_counts_a_throttled_prefetch_after_the_tree_is_gone throttled_prefetch
check buffered_writes_reach_the_device_at_fsync_in_the_tree buffered_fsync
check sync_hands_writeback_to_the_flusher_the_bytes_stay_the_trees sync_writeback
check block_sources_final_row_waits_for_io_in_flight in_flight_at_exit
check diskstats_device_that_vanishes_is_null_and_warned vanishing
check block_sources_nonexistent_device_exits_78 bad_devices
if id nobody >/dev/null 2>&1; then
	check block_io_not_permitted_exits_77_or_unavailable not_permitted
else
	skip block_io_not_permitted_exits_77_or_unavailable "no user nobody to run unprivileged"
fi
