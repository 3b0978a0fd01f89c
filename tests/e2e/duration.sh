# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# episode.duration stops the target with stop_signal, then SIGKILL after grace;
# either way `run` exits 0 (CONTRACT §2), the manifest keeps the signal.
. "$(dirname "$0")/lib/common.sh"

run() { # name episode-keys extra-args
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, duration: 500ms $2}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "1", --tag, $TAG $3]}
sources: {proc_io: {interval: 50ms}}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" ${QUIET---quiet} # QUIET= run ...: with the closing line
}

stops_after_duration() {
	local c
	QUIET= run dur "" "" 2>"$WORK/dur.err"
	c=$?
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	grep -q "complete after .*, exit status 0, the target stopped at its duration by SIGTERM; proc_io ok" "$WORK/dur.err" ||
		{ echo "the last line: $(tail -1 "$WORK/dur.err")"; return 1; }
	wait_untagged 1 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/dur" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status")
expect(m["target"]["stop_reason"] == "duration" and m["target"]["signal"] == "SIGTERM", "target %s" % m["target"])
# judged by what iopsample controls: never stopped before its duration, and
# a row for every grid point until then (how late after it the host let
# the stop happen is the host's)
expect(m["target"]["duration_ns"] >= 500e6, "target ran %d ns" % m["target"]["duration_ns"])
rows, missed = ep.rows["proc_io"], m["sources"]["proc_io"]["missed_ticks"]
grid = [r for r in rows if not r["final"]]
expect(len(grid) + missed == grid[-1]["t_mono_ns"] // 50000000 >= 9, "%d rows and %d missed ticks at 50 ms, the last at %d ns" % (
    len(grid), missed, grid[-1]["t_mono_ns"]))
PY
}

grace_then_sigkill() {
	local t0=$SECONDS c
	run grace ", grace: 300ms, stop_signal: INT" ", --ignore-term"
	c=$?
	# --ignore-term ignores SIGTERM only; SIGINT is the configured stop signal
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/grace" <<'PY' || return 1
from epi import expect
t = ep.manifest["target"]
expect(t["signal"] == "SIGINT" and t["stop_reason"] == "duration", "target %s" % t)
PY
	cat >"$WORK/hard.yaml" <<EOY
episode: {name: hard, duration: 300ms, grace: 300ms}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --ignore-term, --tag, $TAG]}
sources: {proc_io: {interval: 50ms}}
EOY
	"$IOPSAMPLE" run "$WORK/hard.yaml" --quiet
	c=$?
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/hard" <<'PY'
from epi import expect
t = ep.manifest["target"]
expect(t["signal"] == "SIGKILL" and t["stop_reason"] == "duration", "target %s" % t)
# the SIGKILL comes after the duration and the grace, never before
expect(t["duration_ns"] >= 600e6, "ended after %d ns" % t["duration_ns"])
PY
}

# A target that handles the stop signal and exits gives its own status.
handled_stop_signal() {
	cat >"$WORK/trap.yaml" <<EOY
episode: {name: trap, duration: 300ms}
target: {command: "trap 'exit 3' TERM; while :; do sleep 0.05; done; echo $TAG"}
sources: {proc_io: {interval: 50ms}}
EOY
	"$IOPSAMPLE" run "$WORK/trap.yaml" --quiet
	local c=$?
	[ $c -eq 3 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/trap" <<'PY'
from epi import expect
t = ep.manifest["target"]
expect(t["exit_code"] == 3 and t["signal"] is None and t["stop_reason"] == "duration", "target %s" % t)
PY
}

check duration_stops_the_target stops_after_duration
check stop_signal_then_sigkill_after_grace grace_then_sigkill
check a_target_that_handles_the_stop_signal_gives_its_own_status handled_stop_signal
