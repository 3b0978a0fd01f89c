# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# taskstats: totals against proc_io's (the same kernel counters over the same
# tree), threads that live between two ticks, delays against the workload's
# own schedstat and I/O waits, kernel.task_delayacct put back on every path,
# what a host that cannot switch it on gets, and a lost exit record.
#
# The sysctl is set to 0 before each test that needs it off, and the value
# found is put back however the script ends.
. "$(dirname "$0")/lib/common.sh"

TASKWORK=$WORKLOADS/taskwork
SYSCTL=/proc/sys/kernel/task_delayacct
ORIG=$(cat $SYSCTL 2>/dev/null)
# files of the I/O tests: on the build tree's file system, a disk (a tmpfs
# /tmp dirties no page cache for write_bytes)
DATA=$BUILD/taskstats-e2e-$$
IMG=/dev/shm/iopsample-e2e-ts-$$.img
LOOP_FILE=$WORK/loop

ts_cleanup() {
	[ -s "$LOOP_FILE" ] && losetup -d "$(cat "$LOOP_FILE")" 2>/dev/null
	rm -f "$IMG"
	rm -rf "$DATA"
	[ -n "$ORIG" ] && echo "$ORIG" >$SYSCTL 2>/dev/null
	cleanup
}
trap ts_cleanup EXIT
mkdir -p "$DATA"

delayacct_off() { echo 0 >$SYSCTL; }

# episode_yaml NAME INTERVAL SOURCES COMMAND...: $WORK/NAME.yaml, the command
# as the target
episode_yaml() {
	local name=$1 interval=$2 sources=$3
	shift 3
	local argv
	argv=$(printf '"%s", ' "$@")
	{
		echo "episode: {name: $name, output_dir: $WORK/episodes${CGROUP:+, cgroup: $CGROUP}}"
		echo "target: {command: [${argv%, }], stdout: file, stderr: file}"
		echo "sources:"
		# BACKENDS=bpf or classic (procfs, netlink): proc_io's and taskstats'
		for s in $sources; do
			case ${BACKENDS:-}:$s in
			bpf:proc_io | bpf:taskstats) echo "  $s: {interval: $interval, backend: bpf}" ;;
			classic:proc_io) echo "  $s: {interval: $interval, backend: procfs}" ;;
			classic:taskstats) echo "  $s: {interval: $interval, backend: netlink}" ;;
			*) echo "  $s: {interval: $interval}" ;;
			esac
		done
	} >"$WORK/$name.yaml"
}

# episode NAME INTERVAL SOURCES COMMAND...: runs it
episode() {
	episode_yaml "$@"
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet || { echo "run $1: exit $?"; return 1; }
}

equal_to_proc_io() { # EPISODE_DIR FIELD...
	episode_py "$@" <<'PY'
from epi import expect
tree = ep.target_report()
for f in sys.argv[2:]:
    t, p = ep.total("taskstats", f), ep.total("proc_io", f)
    expect(t == p, "%s: taskstats %d, proc_io %d" % (f, t, p))
    print("%s: taskstats %d = proc_io %d" % (f, t, p))
expect(ep.manifest["sources"]["taskstats"]["rows_nulled"] == 0, "rows nulled")
PY
}

io_equal() {
	delayacct_off
	episode io 20ms "proc_io taskstats" "$TASKWORK" io "$DATA" || return 1
	equal_to_proc_io "$WORK/episodes/io" read_bytes write_bytes cancelled_write_bytes || return 1
	episode_py "$WORK/episodes/io" <<'PY'
from epi import expect
tree = ep.target_report()
for f, k in (("read_bytes", "read"), ("write_bytes", "written"), ("cancelled_write_bytes", "cancelled")):
    expect(ep.total("taskstats", f) >= tree[k], "%s below the workload's own %d" % (f, tree[k]))
PY
}

short_threads() {
	delayacct_off
	episode burst 100ms "proc_io taskstats" "$TASKWORK" burst 300 "$DATA" || return 1
	equal_to_proc_io "$WORK/episodes/burst" write_bytes read_bytes cancelled_write_bytes || return 1
	episode_py "$WORK/episodes/burst" <<'PY'
from epi import expect
tree = ep.target_report()
rows = ep.rows["taskstats"]
expect(ep.total("taskstats", "write_bytes") >= tree["written"], "the 300 threads' pages")
# the threads were born and gone between two ticks: no row saw them
expect(len(rows) >= 3 and max(r["nthreads"] for r in rows) <= 51,
       "rows %d, nthreads up to %d" % (len(rows), max(r["nthreads"] for r in rows)))
PY
}

# ---- a parallel build ------------------------------------------------------

# pids the host handed out since $1 (a reading of ns_last_pid): more than
# the threads any one tree made in between
pids_since() {
	local now max
	now=$(cat /proc/sys/kernel/ns_last_pid) max=$(cat /proc/sys/kernel/pid_max)
	echo $(((now - $1 + max) % max))
}

# Real `make -j2` of four of this project's C files with cc, caches dropped
# before each: gcc -> cc1 -> as trees fork, exec and are reaped while the
# others run. Five episodes, so that a double count that comes and goes
# (cc1's zombie scanned after its exit record, with the CPU time its exit
# took since, was taken for a reused pid in about one episode of three)
# cannot hide. The bytes equal proc_io's; the chars are proc_io's rounded
# down per thread (under 1 KiB each, fewer threads than pids handed out).
# block_io's reads (what the tree submitted to the disks, each completed
# before block_io's final row) are never more than proc_io's, and equal
# them in most builds but not all: in about one build of 30 here they came
# 4 to 24 KiB short with nothing in flight, no program skipped by the
# kernel and no counters left mid-update (issue 35's note), so the shortfall
# is printed, not judged.
# The even episodes have no episode cgroup: both sources walk the tree
# instead of reading the cgroup's lists.
parallel_build() {
	[ "$(id -u)" = 0 ] || { echo "not root: cannot drop the caches"; return 1; }
	command -v cc >/dev/null && command -v make >/dev/null || { echo "no cc or make"; return 1; }
	local root=$TESTS/.. src=$DATA/build i files incs code
	mkdir -p "$src"
	code=$(for d in lib collectors engine reader cmd; do [ -d "$root/$d" ] && echo "$root/$d"; done)
	# shellcheck disable=SC2086
	files=$(find $code -name '*.c' ! -name '*.bpf.c' -printf '%s %p\n' | sort -rn | head -4 | cut -d' ' -f2)
	# shellcheck disable=SC2086
	incs=$(find $code -name '*.h' -printf '-I%h\n' | sort -u | tr '\n' ' ')
	{
		printf 'CFLAGS = -O2 -g -std=gnu11 %s -I%s -I%s %s\n' "$incs" "$BUILD/gen" "$BUILD/gen/version" \
			"$(pkg-config --cflags yaml-0.1 jansson libzstd libbpf libmnl libpcre2-8)"
		printf 'all:'
		for f in $files; do printf ' %s.o' "$(basename "$f" .c)"; done
		printf '\n'
		for f in $files; do printf '%s.o: %s\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' "$(basename "$f" .c)" "$f"; done
	} >"$src/Makefile"
	for i in 1 2 3 4 5; do
		rm -f "$src"/*.o
		sync && echo 3 >/proc/sys/vm/drop_caches
		local before
		before=$(cat /proc/sys/kernel/ns_last_pid)
		# cgroup and walk under the classic backends; the last under bpf
		local cg=auto tree=cgroup backends=classic
		[ $((i % 2)) = 0 ] && cg=off tree=walk
		[ "$i" = 5 ] && tree=fork backends=bpf
		BACKENDS=$backends CGROUP=$cg episode make$i 10ms "proc_io taskstats block_io" make -s -j2 -C "$src" ||
			{ tail -3 "$WORK/episodes/make$i/target.stderr"; return 1; }
		episode_py "$WORK/episodes/make$i" "$(pids_since "$before")" "$tree" <<'PY' || return 1
from epi import expect
pids = int(sys.argv[2])
s = ep.manifest["sources"]["taskstats"]
for src in ("taskstats", "proc_io"):
    expect(ep.manifest["sources"][src]["tree"] == sys.argv[3], "%s found the tree by %s" % (src, ep.manifest["sources"][src]["tree"]))
expect(s["rows_nulled"] == 0, "rows nulled")
t = {f: ep.total("taskstats", f) for f in ("read_bytes", "write_bytes", "cancelled_write_bytes", "read_chars", "write_chars")}
p = {f: ep.total("proc_io", f) for f in ("read_bytes", "write_bytes", "cancelled_write_bytes", "rchar", "wchar")}
for f in ("read_bytes", "write_bytes", "cancelled_write_bytes"):
    expect(t[f] == p[f], "%s: taskstats %d, proc_io %d (%+.1f %%)" % (f, t[f], p[f], 100.0 * (t[f] - p[f]) / max(p[f], 1)))
for f, g in (("read_chars", "rchar"), ("write_chars", "wchar")):
    expect(0 <= p[g] - t[f] < 1024 * pids, "%s %d against rchar/wchar %d: more than 1023 bytes of rounding for each of %d pids" % (f, t[f], p[g], pids))
expect(t["read_bytes"] > 1 << 20, "the build read %d bytes from storage: the caches were not dropped" % t["read_bytes"])
# the reads the tree submitted, as the block layer saw them end: each
# bio once, those whose end no program saw (ends_inferred) too
import exact
b = ep.total("block_io", "read_bytes")
drain = ep.manifest["sources"]["block_io"]["drain"]
expect(b == p["read_bytes"], "block_io read_bytes %d, proc_io's %d (%+d; drain %s, ends inferred %s)" % (
    b, p["read_bytes"], b - p["read_bytes"], drain, ep.manifest["sources"]["block_io"]["ends_inferred"]))
expect(drain["left"] is None, "block_io's final row gave up waiting: %s" % drain)
inferred = exact.latency_accounted(ep)
ru = ep.manifest["target"]["rusage"]
cpu = ep.total("taskstats", "cpu_run_real_ns")
expect(cpu <= ru["user_ns"] + ru["system_ns"] + 1000000, "cpu_run_real_ns %d above wait4's %d" % (cpu, ru["user_ns"] + ru["system_ns"]))
print("%s (%s): read_bytes %d (block_io %d, %d reads and writes with their end inferred, %d ms waited for), write_bytes %d, cancelled %d as proc_io's; chars %d and %d below rchar/wchar (%d pids); cpu %.3f of wait4's"
      % (ep.manifest["episode"], sys.argv[3], t["read_bytes"], b, inferred, drain["waited_ns"] // 10**6, t["write_bytes"], t["cancelled_write_bytes"], p["rchar"] - t["read_chars"],
         p["wchar"] - t["write_chars"], pids, cpu / (ru["user_ns"] + ru["system_ns"])))
PY
	done
}

# The tree's own usage, from wait4 (the manifest's target.rusage), judges
# the CPU time and switches: buildwork's stages run 40 to 80 ms each, and a
# driver turns into the assembler by an exec from a second thread. What a
# task does after its exit record is sent (the tail of its exit, about
# 0.3 ms of CPU, its last switch, a preemption there) only wait4 sees:
# taskstats' sum was 0.981 to 0.985 of wait4's in 22 runs here, 0.978
# once on CI's load, where a tail takes longer; so within 3 %.
# perf's task-clock is time on a CPU by the clock, with the interrupts that
# came meanwhile and what the hypervisor took (steal); the scheduler's
# runtime, which wait4 and taskstats give, leaves both out where the kernel
# accounts them: task-clock may exceed wait4's by the host's irq, softirq
# and steal time over the episode (/proc/stat). Here it exceeded it by 19 to
# 77 ms of 1.5 s while that host time was 40 to 220 ms.
taken_from_tasks() { awk '/^cpu /{print $7 + $8 + $9}' /proc/stat; }

build_judged_by_wait4() {
	rm -rf "${DATA:?}"/bw && mkdir -p "$DATA/bw"
	cat >"$WORK/bw.yaml" <<EOY
episode: {name: bw, output_dir: $WORK/episodes}
target: {command: [$WORKLOADS/buildwork, $DATA/bw, "2", "12"], stdout: file}
sources:
  proc_io: {interval: 10ms}
  taskstats: {interval: 10ms}
  perf_event: {interval: 10ms, events: [task-clock, context-switches]}
EOY
	local before after
	before=$(taken_from_tasks)
	"$IOPSAMPLE" run "$WORK/bw.yaml" --quiet || { echo "run: exit $?"; return 1; }
	after=$(taken_from_tasks)
	episode_py "$WORK/episodes/bw" $((after - before)) <<'PY' || return 1
import os
from epi import expect
w = ep.target_report()
taken = int(sys.argv[2]) * 1000000000 // int(os.sysconf("SC_CLK_TCK"))
ru = ep.manifest["target"]["rusage"]
expect(ep.manifest["target"]["rusage_reason"] is None, "rusage_reason %r" % ep.manifest["target"]["rusage_reason"])
for f in ("read_bytes", "write_bytes", "cancelled_write_bytes"):
    t, p = ep.total("taskstats", f), ep.total("proc_io", f)
    expect(t == p, "%s: taskstats %d, proc_io %d" % (f, t, p))
expect(ep.total("taskstats", "read_bytes") >= w["read_from_storage"], "read_bytes below the sources' %d" % w["read_from_storage"])
expect(ep.total("taskstats", "write_bytes") >= w["written"], "write_bytes below the workload's %d" % w["written"])
for f, g in (("read_chars", "rchar"), ("write_chars", "wchar")):
    t, p = ep.total("taskstats", f), ep.total("proc_io", g)
    expect(0 <= p - t < 1024 * w["threads"], "%s %d, %s %d: beyond 1023 bytes for each of %d threads" % (f, t, g, p, w["threads"]))
cpu, wcpu = ep.total("taskstats", "cpu_run_real_ns"), ru["user_ns"] + ru["system_ns"]
expect(0.97 * wcpu <= cpu <= wcpu + 1000000, "cpu_run_real_ns %d, wait4's %d (%.4f)" % (cpu, wcpu, cpu / wcpu))
tc = [r["task_clock"] for r in ep.rows["perf_event"]]
if None not in tc:
    expect(-0.02 * wcpu <= sum(tc) - wcpu <= 0.02 * wcpu + taken,
           "task_clock %d, wait4's %d, the host's interrupts and steal %d" % (sum(tc), wcpu, taken))
vol, inv = ep.total("taskstats", "voluntary_ctxsw"), ep.total("taskstats", "involuntary_ctxsw")
# each thread's last switch (a voluntary one, into death) comes after its
# record, and so does any sleep in releasing its memory and files (exit_mm,
# exit_files run after taskstats_exit): 36 to 39 for 37 threads in 20
# episodes here, so up to two a thread
expect(0 <= ru["voluntary_ctxsw"] - vol <= 2 * w["threads"], "voluntary_ctxsw %d, wait4's %d, %d threads" % (vol, ru["voluntary_ctxsw"], w["threads"]))
expect(0 <= ru["involuntary_ctxsw"] - inv <= w["threads"], "involuntary_ctxsw %d, wait4's %d" % (inv, ru["involuntary_ctxsw"]))
print("%d processes, %d threads, %d execs: cpu %.4f of wait4's, task_clock %s (the host's interrupts and steal %.1f ms); switches %d+%d, wait4's %d+%d"
      % (w["processes"], w["threads"], w["execs"], cpu / wcpu, "%.4f" % (sum(tc) / wcpu) if None not in tc else "null",
         taken / 1e6, vol, inv, ru["voluntary_ctxsw"], ru["involuntary_ctxsw"]))
PY
	# summary shows the judge
	"$IOPSAMPLE" summary "$WORK/episodes/bw" | grep -q '^tree used (wait4): .* user, .* system' ||
		{ echo "summary does not show the tree's usage"; return 1; }
}

# The kernel's own count is the truth here, read by getdelays.py while the
# workload holds before its exit: the kernel misses some waits the thread
# slept through (490 of 500 were seen under CPU contention), and 6.18 was seen
# to end a wait it never started, jumping blkio_delay_ns by its uptime.
blkio_delay() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	truncate -s 16M "$IMG" && losetup -f --show "$IMG" >"$LOOP_FILE" || return 1
	delayacct_off
	local out=$WORK/episodes/dread/target.stdout
	episode_yaml dread 50ms "taskstats" "$TASKWORK" dread "$(cat "$LOOP_FILE")" 500 "$WORK/hold"
	"$IOPSAMPLE" run "$WORK/dread.yaml" --quiet &
	local run=$!
	wait_for_file "$out" 20 || { echo "the workload said nothing"; touch "$WORK/hold"; wait $run; return 1; }
	"$PY" "$TESTS/e2e/lib/getdelays.py" "$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["tid"])' "$out")" \
		>"$WORK/kernel.json"
	touch "$WORK/hold"
	wait $run || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/dread" "$WORK/kernel.json" <<'PY' || return 1
import json
from epi import expect
tree, kernel = ep.target_report(), json.load(open(sys.argv[2]))
m = ep.manifest
ch = [c for c in m["host_changes"] if c["setting"] == "kernel.task_delayacct"]
expect(len(ch) == 1 and ch[0]["found"] == "0" and ch[0]["action"] == "set" and ch[0]["restored"] is True,
       "host_changes %s" % ch)
s = m["sources"]["taskstats"]
expect(s["delays_counted"] is True, "delays not counted")
expect(tree["waited"] > 0 and kernel["blkio_delay_count"] > 0, "no read waited: %s %s" % (tree, kernel))
n = ep.total("taskstats", "blkio_delay_count")
expect(n == kernel["blkio_delay_count"], "blkio_delay_count %d, the kernel's %d" % (n, kernel["blkio_delay_count"]))
if kernel["blkio_delay_ns"] <= kernel["age_us"] * 1000:
    ns = ep.total("taskstats", "blkio_delay_ns")
    expect(ns == kernel["blkio_delay_ns"], "blkio_delay_ns %d, the kernel's %d" % (ns, kernel["blkio_delay_ns"]))
    expect(s["kernel_faults"] == 0, "kernel_faults %d" % s["kernel_faults"])
    print("%d O_DIRECT reads, %d slept: blkio_delay_count %d, blkio_delay_ns %d, as the kernel's"
          % (tree["reads"], tree["waited"], n, ns))
else:  # the kernel's fault: its excess over the thread's life dropped, the rest counted, said why
    nulled = [r["seq"] for r in ep.rows["taskstats"] if r["blkio_delay_ns"] is None]
    ns = ep.total("taskstats", "blkio_delay_ns")
    dropped = s["kernel_faulted_ns"].get("blkio_delay_ns", 0)
    expect(not nulled and s["kernel_faults"] >= 1 and any("more than its life" in w for w in m["warnings"]),
           "kernel blkio_delay_ns %d in an age of %d us: faults %d, rows nulled %s"
           % (kernel["blkio_delay_ns"], kernel["age_us"], s["kernel_faults"], nulled))
    expect(ns + dropped == kernel["blkio_delay_ns"] and ns <= kernel["age_us"] * 1000 + 10_000_000,
           "blkio_delay_ns %d + %d dropped, the kernel's %d, age %d us" % (ns, dropped, kernel["blkio_delay_ns"], kernel["age_us"]))
    print("%d O_DIRECT reads: blkio_delay_count %d as the kernel's; its blkio_delay_ns %d is past the "
          "thread's life (%d us): %d ns counted, %d dropped" % (tree["reads"], n, kernel["blkio_delay_ns"], kernel["age_us"], ns, dropped))
PY
	[ "$(cat $SYSCTL)" = 0 ] || { echo "task_delayacct left at $(cat $SYSCTL)"; return 1; }
}

cpu_delay() {
	delayacct_off
	episode spin 100ms "taskstats" "$TASKWORK" spin 1 || return 1
	episode_py "$WORK/episodes/spin" <<'PY'
from epi import expect
tree = ep.target_report()
d, run = ep.total("taskstats", "cpu_delay_ns"), ep.total("taskstats", "cpu_run_real_ns")
s = tree["run_delay_ns"]
# taskstats adds the main thread's and the keeper's waits, and whatever the
# spinners waited after reading their schedstat: a few ms at most
expect(s <= d <= s + 50e6, "cpu_delay_ns %d, the spinners' schedstat run_delay %d" % (d, s))
expect(0.5 * run <= d <= 2 * run, "cpu_delay_ns %d against cpu_run_real_ns %d" % (d, run))
print("cpu_delay_ns %d, schedstat run_delay %d, cpu_run_real_ns %d" % (d, s, run))
PY
}

# ---- task_delayacct put back -------------------------------------------------

# sleep under a name that holds the test's tag: a target that outlives a
# killed iopsample is found by it, and only it
mkdir "$WORK/$TAG" && ln -s "$(command -v sleep)" "$WORK/$TAG/sleep"
sleeper_yaml() { # NAME
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, output_dir: $WORK/episodes}
target: {command: [$WORK/$TAG/sleep, "30"]}
sources:
  taskstats: {interval: 50ms}
EOY
}

is_on() { [ "$(cat $SYSCTL)" = 1 ]; }
is_off() { [ "$(cat $SYSCTL)" = 0 ]; }

restored_after() { # normal|sigterm|sigkill|groupkill|crash
	delayacct_off
	local name=r_$1
	sleeper_yaml "$name"
	[ "$1" = normal ] && sed -i 's/sleep, "30"/sleep, "0.3"/' "$WORK/$name.yaml"
	# groupkill: iopsample leads a process group of its own, as a CI job
	# or a terminal's job does, and the whole group is SIGKILLed
	if [ "$1" = groupkill ]; then
		setsid "$IOPSAMPLE" run "$WORK/$name.yaml" --quiet &
	else
		"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet &
	fi
	local pid=$!
	wait_until 5 is_on || { echo "$1: task_delayacct never switched on"; return 1; }
	case $1 in
	sigterm) kill -TERM $pid ;;
	sigkill) kill -KILL $pid ;;
	groupkill)
		[ "$(ps -o pgid= -p $pid | tr -d ' ')" = "$pid" ] || { echo "iopsample leads no group"; return 1; }
		kill -KILL -- -$pid
		;;
	crash)
		wait_until 5 pgrep -P $pid -x iops-taskstats >/dev/null || { echo "no sampler"; return 1; }
		kill -SEGV "$(pgrep -P $pid -x iops-taskstats)"
		;;
	esac
	wait $pid
	local rc=$?
	wait_until 5 is_off || { echo "$1 (exit $rc): task_delayacct left at $(cat $SYSCTL)"; return 1; }
	[ "$1" = sigkill ] || [ "$1" = groupkill ] && pkill -KILL -f "$TAG/sleep" 2>/dev/null
	echo "$1: exit $rc, task_delayacct back to 0"
}

restored() {
	local how
	for how in normal sigterm sigkill groupkill crash; do
		restored_after $how || return 1
	done
}

# Two episodes overlap: the first to end leaves it on for the second, which
# puts it back.
shared() {
	delayacct_off
	sleeper_yaml s1
	sleeper_yaml s2
	sed -i 's/sleep, "30"/sleep, "0.6"/' "$WORK/s1.yaml"
	sed -i 's/sleep, "30"/sleep, "1.2"/' "$WORK/s2.yaml"
	"$IOPSAMPLE" run "$WORK/s1.yaml" --quiet &
	local a=$!
	wait_until 5 is_on || return 1
	"$IOPSAMPLE" run "$WORK/s2.yaml" --quiet &
	local b=$!
	wait $a
	is_on || { echo "the first episode's end switched it off under the second"; return 1; }
	wait $b
	is_off || { echo "left on after both"; return 1; }
	episode_py "$WORK/episodes/s2" <<'PY' || return 1
from epi import expect
ch = ep.manifest["host_changes"][0]
expect(ch["action"] == "held" and ch["restored"] is True, "second episode: %s" % ch)
PY
	episode_py "$WORK/episodes/s1" <<'PY'
from epi import expect
ch = ep.manifest["host_changes"][0]
expect(ch["action"] == "set" and ch["restored"] is False, "first episode: %s" % ch)
PY
}

# ---- where it cannot be switched on ---------------------------------------

# The delay fields that need it are null with the reason, cpu_delay and the
# I/O fields count, and task_delayacct is untouched.
not_switched_on_rows() { # EPISODE_DIR
	episode_py "$1" <<'PY'
from epi import expect
m = ep.manifest
src = m["sources"]["taskstats"]
expect(src["delays_counted"] is False and "task_delayacct" in (src["delays_reason"] or ""),
       "delays_reason %r" % src["delays_reason"])
ch = m["host_changes"][0]
expect(ch["action"] == "failed" and ch["error"], "host_changes %s" % ch)
for r in ep.rows["taskstats"]:
    for k in ("blkio", "swapin", "freepages", "thrashing", "compact", "wpcopy", "irq"):
        expect(r[k + "_delay_ns"] is None and r[k + "_delay_count"] is None, k + " not null")
for k in ("blkio", "swapin", "freepages", "thrashing", "compact", "wpcopy", "irq"):
    expect(src["null_fields"].get(k + "_delay_ns") == src["delays_reason"], "null_fields %s" % k)
expect("cpu_delay_ns" not in src["null_fields"], "cpu_delay_ns in null_fields")
expect(ep.total("taskstats", "write_bytes") >= ep.target_report()["written"], "write_bytes")
expect(ep.total("taskstats", "cpu_delay_count") > 0, "cpu_delay_count")
print("delays null: %s" % src["delays_reason"])
PY
}

read_only_proc_sys() {
	delayacct_off
	cat >"$WORK/ro.yaml" <<EOY
episode: {name: ro, output_dir: $WORK/episodes}
target: {command: [$TASKWORK, burst, "10", $DATA], stdout: file}
sources:
  taskstats: {interval: 50ms}
EOY
	# as in a container: /proc/sys read-only
	unshare -m sh -c "mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys &&
		exec $IOPSAMPLE run $WORK/ro.yaml --quiet" || { echo "run: exit $?"; return 1; }
	is_off || { echo "task_delayacct changed"; return 1; }
	not_switched_on_rows "$WORK/episodes/ro"
}

nobody_net_admin() {
	delayacct_off
	local dir
	dir=$(unprivileged_dir nobody) || return 1
	mkdir -p "$dir/data" && chmod 777 "$dir/data"
	cp "$TASKWORK" "$dir/taskwork" && chmod 755 "$dir/taskwork"
	cat >"$dir/nb.yaml" <<EOY
episode: {name: nb, output_dir: $dir/episodes}
target: {command: [$dir/taskwork, burst, "10", $dir/data], stdout: file}
sources:
  taskstats: {interval: 50ms}
EOY
	# user nobody with CAP_NET_ADMIN: taskstats answers, the sysctl refuses
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+net_admin \
		--ambient-caps=+net_admin "$dir/iopsample" run "$dir/nb.yaml" --quiet ||
		{ echo "run: exit $?"; return 1; }
	is_off || { echo "task_delayacct changed"; return 1; }
	not_switched_on_rows "$dir/episodes/nb"
}

nobody_refused() {
	local dir out rc
	dir=$(unprivileged_dir refused) || return 1
	sed "s|OUT|$dir/episodes|" >"$dir/r.yaml" <<'EOY'
episode: {name: r, output_dir: OUT}
target: {command: [true]}
sources:
  proc_io: {}
  taskstats: {}
EOY
	out=$(as_nobody "$dir/iopsample" run "$dir/r.yaml" 2>&1)
	rc=$?
	[ $rc = 77 ] && [[ "$out" == *"taskstats"*"CAP_NET_ADMIN"* ]] && [ ! -e "$dir/episodes/r" ] ||
		{ echo "required: exit $rc: $out"; return 1; }
	sed -i 's/taskstats: {}/taskstats: {required: false}/' "$dir/r.yaml"
	as_nobody "$dir/iopsample" run "$dir/r.yaml" --quiet || { echo "optional: exit $?"; return 1; }
	episode_py "$dir/episodes/r" <<'PY' || return 1
from epi import expect
s = ep.manifest["sources"]["taskstats"]
expect(s["status"] == "unavailable" and "CAP_NET_ADMIN" in s["error"], "taskstats %s" % s)
expect(ep.manifest["sources"]["proc_io"]["status"] == "ok", "proc_io")
PY
	as_nobody "$dir/iopsample" probe | "$PY" -c '
import json, sys
t = json.load(sys.stdin)["sources"]["taskstats"]
assert t["status"] == "unavailable" and "CAP_NET_ADMIN" in t["error"], t
assert t["task_delayacct"]["writable"] is False, t'
}

# ---- a lost exit record ----------------------------------------------------

# The sampler is stopped while the workload starts and ends tens of
# thousands of threads: the socket overflows. The row that covers the loss
# is null, the manifest counts it, and the rows after it count exactly.
overflow() {
	delayacct_off
	cat >"$WORK/ov.yaml" <<EOY
episode: {name: ov, output_dir: $WORK/episodes}
target: {command: [$TASKWORK, storm, $WORK/go, "60000", $WORK/stormed, $WORK/go2, $DATA], stdout: null}
sources:
  taskstats: {interval: 50ms}
  proc_io: {interval: 50ms}
EOY
	"$IOPSAMPLE" run "$WORK/ov.yaml" --quiet &
	local pid=$! sampler
	wait_until 5 pgrep -P $pid -x iops-taskstats >/dev/null || { echo "no sampler"; return 1; }
	wait_for_file "$WORK/episodes/ov/taskstats.jsonl" 5 || { echo "no rows"; return 1; }
	sampler=$(pgrep -P $pid -x iops-taskstats)
	kill -STOP "$sampler"
	touch "$WORK/go"
	wait_until 60 test -e "$WORK/stormed" || { kill -CONT "$sampler"; echo "no storm"; return 1; }
	# creating a file can dirty a metadata page (ext4): proc_io's rows take
	# that before the null row is sampled, which it is at once on SIGCONT
	sleep 0.2
	kill -CONT "$sampler"
	if ! wait_until 5 grep -q '"read_bytes":null' "$WORK/episodes/ov/taskstats.jsonl"; then
		echo "no null row after the storm"
		touch "$WORK/go2"
		wait $pid
		return 1
	fi
	touch "$WORK/go2"
	wait $pid || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/ov" <<'PY'
from epi import expect
s = ep.manifest["sources"]["taskstats"]
rows = ep.rows["taskstats"]
nulled = [i for i, r in enumerate(rows) if r["write_bytes"] is None]
expect(s["exit_overflows"] >= 1, "exit_overflows %d" % s["exit_overflows"])
expect(len(nulled) == s["rows_nulled"] >= 1, "rows nulled %s, manifest %d" % (nulled, s["rows_nulled"]))
for i in nulled:
    expect(all(rows[i][k] is None for k in ("cpu_delay_ns", "read_chars", "voluntary_ctxsw")), "row %d" % i)
    expect(rows[i]["nthreads"] >= 1, "nthreads is a gauge, kept")
expect(any("lost" in w for w in ep.manifest["warnings"]), "no warning")
# after the loss: 4 threads wrote a page each to a new file, which creating
# may have added a metadata page to; proc_io saw the same tree
after = sum(r["write_bytes"] for r in rows[nulled[-1] + 1:])
t_lost = rows[nulled[-1]]["t_mono_ns"]
pio = sum(r["write_bytes"] for r in ep.rows["proc_io"] if r["t_mono_ns"] > t_lost)
expect(after == pio >= 4 * 4096, "after the loss: write_bytes %d, proc_io %d, the workload wrote 16384; rows %s" % (
    after, pio, [(r["seq"], r["write_bytes"], r["nthreads"]) for r in rows]))
print("%d overflows, rows %s null; after them write_bytes %d, as proc_io's" % (s["exit_overflows"], nulled, after))
PY
}

if [ ! -e $SYSCTL ]; then
	for t in taskstats_io_totals_equal_proc_io taskstats_parallel_build_equal_proc_io \
		taskstats_build_tree_agrees_with_wait4 taskstats_300_short_threads_equal_proc_io \
		taskstats_blkio_delay_of_direct_reads taskstats_cpu_delay_matches_schedstat \
		task_delayacct_restored_on_every_path task_delayacct_shared_by_overlapping_episodes \
		taskstats_read_only_proc_sys_nulls_delays taskstats_nobody_with_net_admin_nulls_delays \
		taskstats_refused_to_nobody taskstats_lost_exit_records_null_the_row; do
		skip $t "no $SYSCTL: the kernel has no delay accounting"
	done
	exit 0
fi
check taskstats_io_totals_equal_proc_io io_equal
check taskstats_parallel_build_equal_proc_io parallel_build
check taskstats_build_tree_agrees_with_wait4 build_judged_by_wait4
check taskstats_300_short_threads_equal_proc_io short_threads
check taskstats_blkio_delay_of_direct_reads blkio_delay
check taskstats_cpu_delay_matches_schedstat cpu_delay
check task_delayacct_restored_on_every_path restored
check task_delayacct_shared_by_overlapping_episodes shared
check taskstats_read_only_proc_sys_nulls_delays read_only_proc_sys
check taskstats_nobody_with_net_admin_nulls_delays nobody_net_admin
check taskstats_refused_to_nobody nobody_refused
check taskstats_lost_exit_records_null_the_row overflow
