# make valgrind: one episode per source, the signal path, zstd output and the
# reading commands, with iopsample (and every process it forks: keeper,
# samplers) under memcheck. Each must give the same results as without it
# and leave memcheck nothing to say: no invalid access, no use of an
# uninitialised value, no block definitely lost.
#
# syscall_io cannot run here: valgrind does not implement seccomp(2), so the
# source reports itself unavailable, and that path is what gets checked.
. "$(dirname "$0")/../e2e/lib/common.sh"

LOGS=$WORK/memcheck
mkdir -p "$LOGS"
VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--trace-children=no --log-file="$LOGS/%p.log" "$IOPSAMPLE")
memcheck() { "${VALGRIND[@]}" "$@"; }
# no process's log holds a memcheck report ("==PID== ..."), or the test
# fails with its first lines; valgrind's own warnings ("--PID-- ...", such
# as the one about seccomp(2)) are not about iopsample
quiet_logs() {
	local f
	for f in "$LOGS"/*.log; do
		grep -q '^==[0-9]*==' "$f" || continue
		grep '^==[0-9]*==' "$f" | head -n 8
		return 1
	done
}

episode() { # name sources-yaml [output-yaml]
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: [$IOWORK, --rounds, "3", --pause-ms, "30", --threads, "2", --children, "1", --tag, $TAG]}
sources: $2
output: ${3:-{compression: none\}}
EOY
	memcheck run "$WORK/$1.yaml" --quiet
}

proc_io() {
	episode pio "{proc_io: {interval: 10ms}}" || { echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/pio" <<'PY'
from epi import expect
w = ep.target_report()
expect(ep.manifest["status"] == "complete", "status")
# Before its exec the target is a fork of the keeper, still under valgrind,
# whose scheduler passes a token byte through a pipe: those few bytes are the
# process's I/O too. Without valgrind the totals are exact (e2e/totals).
# Reading, it also looks at the program it is to exec.
for f, slack in (("wchar", 64), ("rchar", 65536)):
    got = ep.total("proc_io", f)
    expect(w[f] <= got <= w[f] + slack, "%s: rows %d, the workload %d" % (f, got, w[f]))
PY
}

perf_event() {
	episode pe "{perf_event: {interval: 10ms, events: [task-clock, page-faults, context-switches, cycles]}}" ||
		{ echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/pe" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
expect(ep.total("perf_event", "page_faults") > 0, "no page faults counted")
expect(ep.total("perf_event", "task_clock") > 0, "no task-clock")
PY
}

syscall_io_unavailable() {
	episode sio "{proc_io: {interval: 10ms}, syscall_io: {interval: 10ms, required: false}}" ||
		{ echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/sio" <<'PY'
from epi import expect
s = ep.manifest["sources"]["syscall_io"]
expect(ep.manifest["status"] == "complete", "status")
expect(s["status"] == "unavailable" and "Function not implemented" in s["error"], "syscall_io %s" % s)
PY
}

zstd_and_commands() {
	episode z "{proc_io: {interval: 10ms}, perf_event: {interval: 10ms, events: [page-faults]}}" \
		"{compression: zstd}" || { echo "exit $?"; quiet_logs; return 1; }
	local rows
	rows=$(memcheck cat "$WORK/episodes/z/proc_io.jsonl.zst" | wc -l)
	[ "$rows" -eq "$(zstd -dc "$WORK/episodes/z/proc_io.jsonl.zst" | wc -l)" ] || { echo "cat: $rows rows"; return 1; }
	memcheck validate "$WORK/episodes/z" >/dev/null || { echo "validate: exit $?"; return 1; }
	memcheck summary "$WORK/episodes/z" | grep -q "wchar" || { echo "summary"; return 1; }
	memcheck check "$TESTS/fixtures/configs/good/every-key.yaml" >/dev/null || { echo "check: exit $?"; return 1; }
	memcheck check "$TESTS/fixtures/configs/bad/alias-loop.yaml" 2>/dev/null
	[ $? -eq 78 ] || { echo "check of a bad config: exit $?"; return 1; }
	memcheck probe >/dev/null || { echo "probe: exit $?"; return 1; }
	memcheck export "$WORK/episodes/z" --grid 30ms -o "$WORK/z.csv" || { echo "export: exit $?"; return 1; }
	memcheck export --episodes "$WORK/episodes/z" -o "$WORK/z.jsonl" || { echo "export --episodes: exit $?"; return 1; }
	memcheck export "$WORK/episodes/z" --grid 1ms -o "$WORK/x.csv" 2>/dev/null
	[ $? -eq 64 ] || { echo "export with a grid too fine: exit $?"; return 1; }
	local wchar
	wchar=$("$PY" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["proc_io.wchar"])' "$WORK/z.jsonl")
	[ "$wchar" -eq "$(zstd -dc "$WORK/episodes/z/proc_io.jsonl.zst" | "$PY" -c 'import json, sys; print(sum(json.loads(l)["wchar"] for l in sys.stdin))')" ] ||
		{ echo "export --episodes: wchar $wchar"; return 1; }
	quiet_logs
}

sigterm() {
	cat >"$WORK/term.yaml" <<EOY
episode: {name: term}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "1", --tag, $TAG]}
sources: {proc_io: {interval: 10ms}, perf_event: {interval: 10ms, events: [task-clock]}}
EOY
	"${VALGRIND[@]}" run "$WORK/term.yaml" --quiet & # not the function: $! must be valgrind
	local pid=$!
	wait_for_file "$WORK/episodes/term/proc_io.jsonl" 30 || { echo "no rows"; return 1; }
	sleep 0.5
	kill -TERM $pid
	wait $pid
	local c=$?
	[ $c -eq 143 ] || { echo "exit $c"; quiet_logs; return 1; }
	wait_untagged 5 || { echo "left running: $(tagged)"; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/term" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "interrupted", "status " + ep.manifest["status"])
PY
}

check proc_io_episode_under_memcheck proc_io
check perf_event_episode_under_memcheck perf_event
check syscall_io_unavailable_under_memcheck syscall_io_unavailable
check zstd_and_reading_commands_under_memcheck zstd_and_commands
check sigterm_under_memcheck sigterm
