# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A collector is its own process: when one dies the supervisor survives, the
# rows already written stay, and the manifest says what happened.
. "$(dirname "$0")/lib/common.sh"

# run_and_kill NAME FILE COMM SIG: runs $WORK/NAME.yaml and, once FILE has
# rows, sends SIG to iopsample's helper process COMM; returns iopsample's
# exit status (255, after saying why, when it never got that far).
run_and_kill() {
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err" &
	local pid=$! helper
	wait_for_file "$WORK/episodes/$1/$2" || { echo "no rows"; return 255; }
	sleep 0.3
	helper=$(pgrep -P $pid -x "$3")
	[ -n "$helper" ] || { echo "no $3 process"; return 255; }
	kill "-$4" "$helper"
	wait $pid
}

crash() { # name required exit-expected
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "1500", --sleepers, "1", --tag, $TAG]}
sources: {proc_io: {interval: 20ms, required: $2}}
EOY
	run_and_kill "$1" proc_io.jsonl iops-proc_io KILL
	local c=$?
	[ $c -eq "$3" ] || { echo "exit $c: $(cat "$WORK/$1.err")"; return 1; }
	grep -q "^iopsample: source proc_io failed: sampler process killed by SIGKILL$" "$WORK/$1.err" ||
		{ echo "stderr: $(cat "$WORK/$1.err")"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/$1" <<PY
from epi import expect
m = ep.manifest
src = m["sources"]["proc_io"]
expect(src["status"] == "failed" and "SIGKILL" in src["error"], "source %s" % src)
rows = ep.rows["proc_io"]
expect(len(rows) == src["rows"] and len(rows) >= 10, "%d rows, manifest %d" % (len(rows), src["rows"]))
expect([r["seq"] for r in rows] == list(range(len(rows))), "rows damaged")
expect(not any(r["final"] for r in rows), "a final row from a dead sampler")
if "$2" == "true":
    expect(m["status"] == "failed", "status " + m["status"])
    expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason %s" % m["target"]["stop_reason"])
else:
    expect(m["status"] == "complete", "status " + m["status"])
    expect(m["target"]["stop_reason"] == "exited" and m["target"]["exit_code"] == 0, "target %s" % m["target"])
PY
}

not_permitted() {
	# An unprivileged user may not read a root process's /proc/PID/io.
	sleep 30 &
	local victim=$! dir
	dir=$(unprivileged_dir unprivileged)
	cat >"$dir/denied.yaml" <<EOY
episode: {name: denied}
target: {pid: $victim}
sources: {proc_io: {interval: 20ms}}
EOY
	chmod 644 "$dir/denied.yaml"
	local out c
	out=$(as_nobody "$dir/iopsample" run "$dir/denied.yaml" --quiet 2>&1)
	c=$?
	kill $victim
	[ $c -eq 77 ] || { echo "exit $c: $out"; return 1; }
	grep -q "^iopsample: source proc_io cannot start: /proc/$victim/io: Permission denied$" <<<"$out" || { echo "$out"; return 1; }
	episode_py "$dir/episodes/denied" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status")
expect(m["sources"]["proc_io"]["status"] == "unavailable", "source status")
expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason")
PY
}

# The same source marked required: false: the episode runs without it.
optional_unavailable() {
	sleep 30 &
	local victim=$! dir
	dir=$(unprivileged_dir optional)
	cat >"$dir/opt.yaml" <<EOY
episode: {name: opt, duration: 300ms}
target: {pid: $victim}
sources: {proc_io: {interval: 20ms, required: false}}
EOY
	chmod 644 "$dir/opt.yaml"
	as_nobody "$dir/iopsample" run "$dir/opt.yaml" --quiet
	local c=$?
	kill $victim
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	episode_py "$dir/episodes/opt" <<'PY'
from epi import expect
m = ep.manifest
src = m["sources"]["proc_io"]
expect(m["status"] == "complete", "status " + m["status"])
expect(src["status"] == "unavailable" and "Permission denied" in src["error"] and src["file"] is None, "source %s" % src)
expect(any("proc_io unavailable" in w for w in m["warnings"]), "warnings %s" % m["warnings"])
PY
}

# One sampler of three crashes (SIGSEGV): the other two keep sampling to the
# end and take their final rows; the manifest names the cause.
others_keep_sampling() {
	cat >"$WORK/three.yaml" <<EOY
episode: {name: three}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "1500", --sleepers, "1", --tag, $TAG]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [task-clock], required: false}
EOY
	run_and_kill three perf_event.jsonl iops-perf_event SEGV
	local c=$?
	[ $c -eq 0 ] || { echo "exit $c: $(cat "$WORK/three.err")"; return 1; }
	grep -q "^iopsample: source perf_event failed: sampler process killed by SIGSEGV$" "$WORK/three.err" ||
		{ echo "stderr: $(cat "$WORK/three.err")"; return 1; }
	episode_py "$WORK/episodes/three" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status " + m["status"])
pe = m["sources"]["perf_event"]
expect(pe["status"] == "failed" and "SIGSEGV" in pe["error"], "perf_event %s" % pe)
died = ep.rows["perf_event"][-1]["t_mono_ns"]
for n in ("proc_io", "syscall_io"):
    rows = ep.rows[n]
    expect(m["sources"][n]["status"] == "ok" and rows[-1]["final"], n + " did not end ok")
    after = [r for r in rows if r["t_mono_ns"] > died + 100e6]
    expect(len(after) >= 50, "%s: %d rows after perf_event died" % (n, len(after)))
print("rows after the crash: proc_io %d, syscall_io %d" % tuple(
    len([r for r in ep.rows[n] if r["t_mono_ns"] > died]) for n in ("proc_io", "syscall_io")))
PY
}

check one_crashed_sampler_of_three_others_keep_sampling others_keep_sampling
check required_collector_crash_fails_the_episode crash required true 70
check optional_collector_crash_keeps_the_episode crash optional false 0
if id nobody >/dev/null 2>&1; then
	check required_source_not_permitted_exits_77 not_permitted
	check optional_source_not_permitted_is_left_out optional_unavailable
else
	skip required_source_not_permitted_exits_77 "no user nobody to run unprivileged"
	skip optional_source_not_permitted_is_left_out "no user nobody to run unprivileged"
fi

# The keeper is iopsample's too: if something kills it, the episode fails
# (70) and the target's process group goes with it.
keeper_killed() {
	cat >"$WORK/kk.yaml" <<EOY
episode: {name: kk}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "30000", --sleepers, "2", --tag, $TAG]}
sources: {proc_io: {interval: 20ms}}
EOY
	run_and_kill kk proc_io.jsonl iops-keeper KILL
	local c=$?
	[ $c -eq 70 ] || { echo "exit $c: $(cat "$WORK/kk.err")"; return 1; }
	grep -q "^iopsample: the keeper process was killed by SIGKILL before the target exited$" "$WORK/kk.err" ||
		{ cat "$WORK/kk.err"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/kk" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status " + m["status"])
expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason %s" % m["target"]["stop_reason"])
expect(any("keeper" in w for w in m["warnings"]), "warnings %s" % m["warnings"])
PY
}

check killed_keeper_fails_the_episode keeper_killed
