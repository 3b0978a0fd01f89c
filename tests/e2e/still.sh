# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The bpf backends of proc_io and taskstats walk the tasks only when a task
# of the tree ran since the last walk (tree.bpf.h, TREE_RAN): an idle tree
# costs no walk, and its rows are zeros; a task that runs without ever
# leaving its CPU, whose counters move with no switch to say so, is read at
# every tick all the same.
. "$(dirname "$0")/lib/common.sh"

# 64 processes asleep for 1.5 s, after one round of I/O each side of it:
# most readings walk nothing, and the totals are still the workload's.
idle_tree_is_not_walked() {
	cat >"$WORK/idle.yaml" <<EOY
episode: {name: idle}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "1500", --sleepers, "64", --tag, $TAG]}
sources: {proc_io: {interval: 10ms, backend: bpf}, taskstats: {interval: 10ms, backend: bpf}}
EOY
	"$IOPSAMPLE" run "$WORK/idle.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/idle" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status " + m["status"])
w = ep.target_report()
expect(ep.total("proc_io", "wchar") == w["wchar"], "wchar %d, the workload's %d" % (ep.total("proc_io", "wchar"), w["wchar"]))
expect(ep.total("proc_io", "syscw") == w["syscw"], "syscw %d, the workload's %d" % (ep.total("proc_io", "syscw"), w["syscw"]))
expect(ep.total("taskstats", "write_chars") <= w["wchar"], "taskstats write_chars")
said = []
for n in ("proc_io", "taskstats"):
    rows, still = len(ep.rows[n]), m["sources"][n]["readings_still"]
    # 150 ticks asleep; the sleepers' start and end, and the host's, walk
    expect(still >= rows // 2, "%s: %d of %d readings walked nothing" % (n, still, rows))
    expect(all(r["nprocs" if n == "proc_io" else "nthreads"] == 65 for r in ep.rows[n][20:-20]),
           "%s: the sleepers not all counted" % n)
    said.append("%s %d of %d" % (n, still, rows))
print("readings that walked nothing: " + ", ".join(said))
PY
}

# dd from /dev/zero to /dev/null never sleeps: pinned to one CPU it is
# switched off it only when something else wants that CPU. Its counts move
# at every tick, and a reading must see them whether or not it switched.
running_task_is_read_at_every_tick() {
	local count=400000 bs=64
	cat >"$WORK/busy.yaml" <<EOY
episode: {name: busy}
target: {command: [taskset, -c, "1", dd, if=/dev/zero, of=/dev/null, bs=$bs, count=$count, status=none]}
sources: {proc_io: {interval: 10ms, backend: bpf}, taskstats: {interval: 10ms, backend: bpf}}
EOY
	"$IOPSAMPLE" run "$WORK/busy.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/busy" $count $bs <<'PY'
import sys
from epi import expect
count, bs = int(sys.argv[2]), int(sys.argv[3])
expect(ep.manifest["status"] == "complete", "status " + ep.manifest["status"])
expect(ep.total("proc_io", "wchar") == count * bs, "wchar %d, dd's %d" % (ep.total("proc_io", "wchar"), count * bs))
expect(ep.total("proc_io", "syscw") == count, "syscw %d, dd's %d" % (ep.total("proc_io", "syscw"), count))
said = []
for n, f in (("proc_io", "syscw"), ("taskstats", "write_syscalls")):
    moved = [r[f] > 0 for r in ep.rows[n]]
    first, last = moved.index(True), len(moved) - 1 - moved[::-1].index(True)
    # the longest run of rows that saw none of dd's writes while it wrote
    run = longest = 0
    for m in moved[first:last + 1]:
        run = 0 if m else run + 1
        longest = max(longest, run)
    expect(longest <= 3, "%s: %d rows in a row without dd's writes (rows %d to %d)" % (n, longest, first, last))
    said.append("%s %d rows, %d walked nothing" % (n, last - first + 1, ep.manifest["sources"][n]["readings_still"]))
print("dd's writes in every row: " + ", ".join(said))
PY
}

check idle_tree_is_not_walked_by_the_bpf_backends idle_tree_is_not_walked
check running_task_is_read_at_every_tick running_task_is_read_at_every_tick
