# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Load: all sources at 1 ms for 60 s on a busy target lose no tick silently
# and keep every iopsample process's memory flat; 1000 short episodes in a
# row leak no file descriptor and leave no process behind.
. "$(dirname "$0")/lib/common.sh"

LOAD_SECONDS=${LOAD_SECONDS:-60}
# syscall_io's read/write families, not its metadata syscalls: 60 000 rows
# of the default's 61 syscalls take this test's checks minutes to read
IO_FAMILIES="read, write, pread64, pwrite64, readv, writev, preadv, pwritev, preadv2, pwritev2,
  sendfile, splice, copy_file_range, sendto, recvfrom, sendmsg, recvmsg, tee, vmsplice, recvmmsg,
  sendmmsg, aio, io_uring"

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

# "name:pid" for iopsample and every helper process it forked
helpers() {
	local p
	echo "iopsample:$1"
	for p in $(pgrep -P "$1"); do
		echo "$(cat "/proc/$p/comm" 2>/dev/null):$p"
	done
}

one_ms() {
	cat >"$WORK/load.yaml" <<EOY
episode: {name: load, duration: ${LOAD_SECONDS}s}
target: {command: [$IOWORK, --threads, "2", --children, "1", --rounds, "1000000", --pause-ms, "1", --tag, $TAG]}
sources:
  proc_io: {interval: 1ms}
  syscall_io: {interval: 1ms, syscalls: [$IO_FAMILIES]}
  perf_event: {interval: 1ms, events: [task-clock, page-faults, context-switches]}
output: {compression: zstd}
EOY
	"$IOPSAMPLE" run "$WORK/load.yaml" --quiet 2>"$WORK/load.err" &
	local pid=$! early=$((LOAD_SECONDS / 10)) p
	sleep "$early"
	declare -A start
	for p in $(helpers $pid); do start[$p]=$(rss_kb "${p#*:}"); done
	sleep $((LOAD_SECONDS - early - 2))
	local report="" grew=""
	for p in $(helpers $pid); do
		local a=${start[$p]:-} b
		b=$(rss_kb "${p#*:}")
		[ -n "$a" ] && [ -n "$b" ] || continue
		report+=" ${p%%:*} ${a}->${b} KiB;"
		# flat: page-ins of code and libraries first touched late are
		# tens of KiB; a leak of a row a tick is megabytes by now
		[ $((b - a)) -le 256 ] || grew+=" ${p%%:*} grew $((b - a)) KiB"
	done
	wait $pid
	local c=$?
	echo "RSS at ${early}s and $((LOAD_SECONDS - 2))s:$report"
	[ $c -eq 0 ] || { echo "exit $c: $(cat "$WORK/load.err")"; return 1; }
	[ ${#start[@]} -ge 5 ] || { echo "only saw ${!start[*]}"; return 1; }
	[ -z "$grew" ] || { echo "memory not flat:$grew"; return 1; }
	# every tick is a row or a counted late tick; a late row is wider.
	# (iopsample validate reads all 180 000 rows; Python's jsonschema a sample)
	episode_py_sampled "$WORK/episodes/load" <<'PY'
from epi import expect
m = ep.manifest
out = []
for name, src in m["sources"].items():
    expect(src["status"] == "ok", "%s: %s" % (name, src))
    iv = src["interval_ns"]
    rows = [r for r in ep.rows[name] if not r["final"]]
    last = rows[-1]["t_mono_ns"]
    ticks = last // iv  # grid points up to the last row on the grid
    wide = [r for r in rows if r["interval_ns"] >= 1.5 * iv]
    expect(abs(len(rows) + src["missed_ticks"] - ticks) <= 1,
           "%s: %d rows + %d missed ticks for %d grid points" % (name, len(rows), src["missed_ticks"], ticks))
    # (epi checked that each interval_ns is the time since the row before)
    expect(src["missed_ticks"] == 0 or wide, "%s: missed ticks but no wide row" % name)
    out.append("%s %d rows, %d late (%d ticks missed)" % (name, len(rows), len(wide), src["missed_ticks"]))
print("; ".join(out))
PY
}

thousand() {
	# syscall_io's and proc_io's eBPF programs take 100 ms and more each to
	# load here, most of an episode: one episode in ten loads them, the
	# others trace and read /proc
	local backend
	for backend in ebpf ptrace; do
		cat >"$WORK/short-$backend.yaml" <<EOY
episode: {name: short}
target: {command: [ls, /proc/self/fd]}
sources:
  proc_io: {interval: 1ms, backend: $([ $backend = ebpf ] && echo bpf || echo procfs)}
  syscall_io: {interval: 1ms, backend: $backend}
  perf_event: {interval: 1ms, events: [task-clock]}
EOY
	done
	local before after i t0=$SECONDS
	before=$(ls /proc/$BASHPID/fd | wc -l)
	for ((i = 0; i < 1000; i++)); do
		backend=ptrace && [ $((i % 10)) -eq 0 ] && backend=ebpf
		"$IOPSAMPLE" run "$WORK/short-$backend.yaml" --name "s$i" --quiet || { echo "episode $i: exit $?"; return 1; }
		# the target sees its stdin, stdout, stderr and ls's own directory
		# fd: nothing of iopsample's
		[ "$(tr '\n' ' ' <"$WORK/episodes/s$i/target.stdout")" = "0 1 2 3 " ] ||
			{ echo "episode $i: the target inherited $(cat "$WORK/episodes/s$i/target.stdout" | tr '\n' ' ')"; return 1; }
		[ $((i % 100)) -eq 99 ] && rm -rf "$WORK"/episodes/s*
	done
	after=$(ls /proc/$BASHPID/fd | wc -l)
	[ "$before" -eq "$after" ] || { echo "the harness had $before fds, now $after"; return 1; }
	local kids
	kids=$(pgrep -P $BASHPID | grep -v "^$BASHPID$")
	# (pgrep itself runs as a child: only count ones still there after it)
	kids=$(for k in $kids; do [ -d /proc/$k ] && [ "$(cat /proc/$k/comm 2>/dev/null)" != pgrep ] && echo $k; done)
	[ -z "$kids" ] || { echo "left behind: $(ps -o pid,stat,comm -p "$(echo $kids | tr ' ' ,)")"; return 1; }
	[ "$(alive_named iops-keeper)$(alive_named iops-proc_io)$(alive_named iops-syscall_io)$(alive_named iops-perf_event)" = 0000 ] ||
		{ echo "helpers left running"; return 1; }
	echo "1000 episodes in $((SECONDS - t0)) s"
}

check all_sources_at_1ms_for_${LOAD_SECONDS}s_lose_no_tick_and_stay_flat one_ms
check thousand_short_episodes_leak_no_fd_and_no_process thousand
