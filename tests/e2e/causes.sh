# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every device byte with its cause (issue 50): block_io's by_cause, other_*,
# unattributed_*, dirty_bytes and flush_dirty, on ext4 made without lazy
# init on a loop device of the test's own. Ground truth: the workload's own
# count of what it did (tests/workloads/cachework: every cause in turn, an
# 8-process loader), a writer outside the tree, proc_io's write_bytes and
# cancelled_write_bytes (the ledger) and diskstats (every byte placed), all
# in the same episodes. The sums are held in every row, by causes.py.
. "$(dirname "$0")/lib/common.sh"

CACHEWORK=$WORKLOADS/cachework
N=$((64 << 20))
FSLOOP=
causes_cleanup() {
	umount "$WORK/mnt" 2>/dev/null
	[ -n "$FSLOOP" ] && losetup -d "$FSLOOP"
	rm -f "/dev/shm/iopsample-causes-$$.img"
}
trap 'causes_cleanup; cleanup' EXIT

setup() {
	local img=/dev/shm/iopsample-causes-$$.img
	truncate -s 1G "$img" && FSLOOP=$(losetup -f --show "$img") || { FSLOOP=; echo "no loop device"; return 1; }
	# room and inodes for the long tier's 100 000 files of a page (400 MiB)
	# beside the swap episode's 192 MiB file (the default ratio gives 65 536)
	mkfs.ext4 -q -N 131072 -E lazy_itable_init=0,lazy_journal_init=0 "$FSLOOP" && mkdir -p "$WORK/mnt" &&
		mount "$FSLOOP" "$WORK/mnt" || { echo "mkfs or mount failed"; return 1; }
}

episode() { # name flush_dirty command...
	local name=$1 flush=$2 dev
	shift 2
	dev=$(basename "$FSLOOP")
	local cmd
	cmd=$(printf '"%s", ' "$@")
	cat >"$WORK/$name.yaml" <<EOY
episode: {name: $name, output_dir: $WORK/episodes}
target: {command: [${cmd%, }], stdout: inherit}
sources:
  block_io: {interval: 50ms, devices: [$dev], flush_dirty: $flush}
  diskstats: {interval: 50ms, devices: [$dev]}
  proc_io: {interval: 50ms}
EOY
	# the report through a pipe: a file would be the tree's write too (in
	# proc_io's write_bytes), on another device than the one judged
	set -o pipefail
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet | cat >"$WORK/$name.did" || { echo "run $name: exit $?"; return 1; }
	find "$WORK/mnt" -maxdepth 1 -type f ! -name swap -delete && sync
}

# This VM's kernel runs no program while its agent's task is current: a
# completion in a softirq on top of it goes unseen, and its bio's end is
# inferred, counted whole (1 bio of an 8-process loader's once in a make
# check); the kernel matrix's guests, which have no such agent, hold none.
judge() { # name what
	episode_py "$WORK/episodes/$1" "$2" "$N" "$WORK/$1.did" <<'PY'
import causes
print(causes.judge(ep, sys.argv[2], int(sys.argv[3]), sys.argv[4], unseen_ok=True))
PY
}

# direct, fsync, cold read, cold mmap, buffered, in one episode; the tree's
# dirty pages written back at its end (flush_dirty)
every_cause() {
	episode every true "$CACHEWORK" "$WORK/mnt" "$N" direct:a fsync:b drop:a drop:b read:b mmap:a buffered:c &&
		judge every every
}

# a buffered write, then exit, without flush_dirty: what the flusher did not
# write yet is the final row's dirty_bytes
left_dirty() {
	episode dirty false "$CACHEWORK" "$WORK/mnt" "$N" buffered:d && judge dirty dirty
}

# a writer outside the tree (O_DIRECT: its own bios, none the flusher's),
# while the tree waits for it to finish
outside() {
	rm -f "$WORK/go" "$WORK/done"
	(
		while [ ! -e "$WORK/go" ]; do sleep 0.02; done
		dd if=/dev/zero of="$WORK/mnt/outside" bs=1M count=32 oflag=direct status=none
		touch "$WORK/done"
	) &
	episode outside false sh -c "touch $WORK/go; while [ ! -e $WORK/done ]; do sleep 0.02; done" &&
		judge outside outside:dd
}

# 8 processes read a cold dataset, the parent writes a checkpoint with
# fsync and exits; every byte diskstats counted is placed (without
# flush_dirty: diskstats' final row does not wait for block_io's flush)
loader() {
	"$CACHEWORK" "$WORK/mnt" "$N" fsync:dataset drop:dataset >/dev/null || { echo "dataset"; return 1; }
	episode loader false "$CACHEWORK" "$WORK/mnt" "$N" forks:8:dataset fsync:checkpoint &&
		judge loader loader
}

# write-zeroes and a discard on a raw loop device of their own, from the
# tree (util-linux's blkdiscard); loop's write-zeroes on a file in
# /dev/shm may fail and blkdiscard -z's kernel then writes zeroes itself
zeroes() (
	local img=/dev/shm/iopsample-zeroes-$$.img loop= dev
	trap '[ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"' EXIT
	truncate -s 64M "$img" && loop=$(losetup -f --show "$img") || { loop=; echo "no loop device"; exit 1; }
	dev=$(basename "$loop")
	cat >"$WORK/zeroes.yaml" <<EOY
episode: {name: zeroes, output_dir: $WORK/episodes}
target: {command: [sh, -c, "blkdiscard -z -o 0 -l $((N / 8)) $loop && blkdiscard -o $((N / 8)) -l $((N / 8)) $loop"]}
sources:
  block_io: {interval: 50ms, devices: [$dev]}
  diskstats: {interval: 50ms, devices: [$dev]}
EOY
	"$IOPSAMPLE" run "$WORK/zeroes.yaml" --quiet || { echo "run: exit $?"; exit 1; }
	episode_py "$WORK/episodes/zeroes" "$((N / 8))" <<'PY'
import causes
print(causes.zeroes_and_discards(ep, int(sys.argv[2])))
PY
)

# swap: a swap file on the test's ext4, and phasework's anonymous working
# set of 112 MiB under a 96 MiB limit of its episode's cgroup, so that the
# tree's own reclaim swaps out and its faults swap in. Ground truth: the
# kernel's pswpout and pswpin (/proc/vmstat) over the episode, the pages
# every swap-out and swap-in of the host wrote and read: nothing else here
# swaps (no other memory is short).
swap() (
	local on=
	trap '[ -n "$on" ] && swapoff "$WORK/mnt/swap"' EXIT
	fallocate -l 192M "$WORK/mnt/swap" && chmod 600 "$WORK/mnt/swap" && mkswap -q "$WORK/mnt/swap" >/dev/null &&
		swapon "$WORK/mnt/swap" && on=1 || { echo "swapon $WORK/mnt/swap refused"; exit 1; }
	# the memcg's OOM killer may end the working set where the swap-out
	# falls behind (a loaded host: its I/O through the loop device slows,
	# reclaim makes no progress for its retries; the loop device's writes
	# into /dev/shm are charged to the writer's memcg too): exit 137, the
	# target SIGKILLed. That is the workload's end, not block_io's: it
	# runs again, three times at most (twice in a row once under a whole
	# check-all), and the line says so.
	local name=swap again= oom tries=1
	while :; do
		oom=$(dmesg | grep "Memory cgroup out of memory" | tail -n 1)
		grep -E '^pswp(in|out) ' /proc/vmstat >"$WORK/vmstat.before"
		episode $name false "$WORKLOADS/phasework" "memlimit:100663296" "anon:2:112" "memlimit:0" >"$WORK/swap.out" &&
			break
		# a new line of the memcg's OOM killer (the ring buffer's oldest may
		# have gone: the last line, not their count)
		[ $tries -lt 3 ] && grep -q "exit 137" "$WORK/swap.out" &&
			[ "$(dmesg | grep "Memory cgroup out of memory" | tail -n 1)" != "$oom" ] ||
			{ cat "$WORK/swap.out"; exit 1; }
		tries=$((tries + 1))
		name=swap-$tries again="the working set was OOM-killed by its memcg (exit 137) $((tries - 1)) time(s), run again; "
	done
	grep -E '^pswp(in|out) ' /proc/vmstat >"$WORK/vmstat.after"
	echo -n "$again"
	episode_py "$WORK/episodes/$name" "$WORK/vmstat.before" "$WORK/vmstat.after" <<'PY'
import causes
print(causes.swapped(ep, sys.argv[2], sys.argv[3]))
PY
)

# 20 000 files of 4 KiB written by the tree (an untar, a dataset sharded
# into small files), the tree gone with them dirty: flush_dirty asks for
# every one, past the 16 384 an LRU once held; and, in a table of 8 192
# (a test setting), the same written 1 000 at a time, each thousand synced:
# the inodes written are taken out as it fills, none refused; in one of
# 4 096, unsynced, those past it are said, with their bytes, in the
# manifest. The long tier (make check-all) writes 100 000.
many_files() { # name [sync_every [files]]
	local files=${3:-20000} sync_every=${2:-0}
	cat >"$WORK/many.py" <<'PY'
import json, os, sys
d, n, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d)
page = b"m" * 4096
for i in range(n):
    with open("%s/%d" % (d, i), "wb") as f:
        f.write(page)
    if every and (i + 1) % every == 0:
        os.sync()
print(json.dumps({"files": n, "bytes": n * len(page), "synced_every": every}))
PY
	episode "$1" "$([ "$sync_every" = 0 ] && echo true || echo false)" "$PY" "$WORK/many.py" \
		"$WORK/mnt/many" "$files" "$sync_every" || return 1
	rm -rf "$WORK/mnt/many" && sync
	judge "$1" "many"
}

# A page's bytes are whoever dirtied it, whoever writes them: 32 MiB a
# process outside the tree dirtied, which the tree's sync(2) writes, are
# the other's; a file both dirtied, 8 MiB each, which the tree fsyncs, is
# half its own sync, half the other's
sync_others() {
	dd if=/dev/zero of="$WORK/mnt/theirs" bs=1M count=32 status=none || return 1
	episode syncother false sync && judge syncother sync_other
}
fsync_shared() {
	dd if=/dev/zero of="$WORK/mnt/shared" bs=1M count=8 status=none || return 1
	episode fsyncshared false dd if=/dev/zero of="$WORK/mnt/shared" bs=1M count=8 seek=8 conv=notrunc,fsync \
		status=none && judge fsyncshared fsync_shared
}

if setup >"$WORK/setup.out" 2>&1; then
	check block_io_names_every_cause_of_the_trees_bytes every_cause
	check block_io_dirty_bytes_is_what_the_tree_left_unwritten left_dirty
	check block_io_puts_a_writer_outside_the_tree_in_other outside
	check block_io_places_every_byte_of_an_8_process_loader loader
	check block_io_counts_write_zeroes_and_discards_as_diskstats zeroes
	check block_io_counts_the_trees_swapping_as_swap swap
	check block_io_follows_20000_dirty_files_to_their_writeback many_files many
	IOPSAMPLE_TEST_TREE_INODES=8192 check block_io_takes_written_inodes_out_of_a_full_table many_files pruned 1000
	IOPSAMPLE_TEST_TREE_INODES=4096 check block_io_says_what_a_full_table_of_dirty_inodes_refused many_files full
	# the long tier's (make check-all, as .ci/run): a minute of make check's ten
	[ "${IOPSAMPLE_TIER:-}" = all ] &&
		check block_io_follows_100000_dirty_files_to_their_writeback many_files many100k 0 100000
	check block_io_the_trees_sync_of_anothers_pages_is_the_others sync_others
	check block_io_the_trees_fsync_of_a_shared_file_is_its_own_bytes fsync_shared
else
	for t in names_every_cause_of_the_trees_bytes dirty_bytes_is_what_the_tree_left_unwritten \
		puts_a_writer_outside_the_tree_in_other places_every_byte_of_an_8_process_loader \
		counts_write_zeroes_and_discards_as_diskstats counts_the_trees_swapping_as_swap \
		follows_20000_dirty_files_to_their_writeback takes_written_inodes_out_of_a_full_table \
		says_what_a_full_table_of_dirty_inodes_refused the_trees_sync_of_anothers_pages_is_the_others \
		the_trees_fsync_of_a_shared_file_is_its_own_bytes; do
		fail "block_io_$t" "$(tail -n 2 "$WORK/setup.out" | tr '\n' ' ')"
	done
fi
