# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Signals to iopsample: SIGTERM/SIGINT stop the target in order (status
# interrupted, a final row, nothing of the target left); a second SIGINT
# skips the grace; SIGKILL of iopsample takes the target's whole tree with it;
# SIGUSR1, the stop request, ends the episode as its duration would.
. "$(dirname "$0")/lib/common.sh"

# a target that idles with two children (and with --daemon a descendant in a
# session of its own), all tagged
config() { # name extra-episode-keys extra-args [sources]
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1 $2}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "2", --tag, $TAG $3]}
sources: ${4:-{proc_io: {interval: 20ms\}\}}
EOY
}

# under_way NAME: proc_io has seen the target and its two children in one
# row, and every source's file holds 5 rows
under_way() {
	local f
	grep -qE '"nprocs":([3-9]|[1-9][0-9]+)[,}]' "$WORK/episodes/$1/proc_io.jsonl" 2>/dev/null || return 1
	for f in "$WORK/episodes/$1"/*.jsonl; do
		[ "$(wc -l <"$f")" -ge 5 ] || return 1
	done
}

# starts iopsample in the background and waits until the episode is under
# way (under_way: what the checks after it rely on, not a guess of how long
# that takes; a busy host makes it later, not wrong)
start() { # NAME
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err" &
	PID=$!
	wait_until 10 under_way "$1" ||
		{ echo "not under way after 10 s: $(wc -l "$WORK/episodes/$1"/*.jsonl 2>&1 | tr '\n' ' ')"; return 1; }
}

sigterm() {
	config term "" ""
	start term || return
	[ -n "$(tagged)" ] || { echo "target not running"; return 1; }
	kill -TERM $PID
	wait $PID
	local c=$?
	[ $c -eq 143 ] || { echo "exit $c: $(cat "$WORK/term.err")"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/term" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "interrupted", "status " + m["status"])
expect(m["target"]["stop_reason"] == "interrupted", "stop_reason %s" % m["target"]["stop_reason"])
expect(m["target"]["signal"] == "SIGTERM", "target ended by %s" % m["target"]["signal"])
expect(ep.rows["proc_io"][-1]["final"], "no final row")
expect(max(r["nprocs"] for r in ep.rows["proc_io"]) == 3, "the target and its 2 children never seen together")
expect(ep.rows["proc_io"][-1]["nprocs"] == 0, "final nprocs %d" % ep.rows["proc_io"][-1]["nprocs"])
PY
}

sigint_twice() {
	config twice ", grace: 30s" ", --ignore-term"
	start twice || return
	local t0=$SECONDS
	kill -INT $PID
	sleep 0.3
	[ -n "$(tagged)" ] || { echo "the target did not wait for its grace"; return 1; }
	kill -INT $PID
	wait $PID
	local c=$?
	[ $c -eq 130 ] || { echo "exit $c"; return 1; }
	[ $((SECONDS - t0)) -lt 10 ] || { echo "waited out the grace"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/twice" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "interrupted", "status")
expect(m["target"]["signal"] == "SIGKILL", "target ended by %s" % m["target"]["signal"])
PY
}

tagged_at_least() { [ "$(tagged | wc -w)" -ge "$1" ]; }

no_helpers() {
	[ "$(alive_named iops-keeper)$(alive_named iops-proc_io)$(alive_named iops-syscall_io)$(alive_named iops-perf_event)" = 0000 ]
}

sigkill() {
	config killed "" ", --daemon" \
		"{proc_io: {interval: 20ms}, syscall_io: {interval: 20ms}, perf_event: {interval: 20ms, events: [task-clock]}}"
	start killed || return
	local before
	wait_until 5 tagged_at_least 4
	before=$(tagged | wc -w)
	[ "$before" -ge 4 ] || { echo "only $before tagged processes"; return 1; }
	kill -KILL $PID
	wait $PID 2>/dev/null
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	wait_until 2 no_helpers || { echo "helpers left running"; return 1; }
	episode_py "$WORK/episodes/killed" <<'PY'
from epi import expect
# the keeper, which outlives iopsample, says what happened
expect(ep.manifest["status"] == "killed", "status %s" % ep.manifest["status"])
expect(any(w.startswith("iopsample was killed before the episode ended") for w in ep.manifest["warnings"]), "warnings %s" % ep.manifest["warnings"])
expect(ep.manifest["t_wall_end_ns"] > ep.manifest["t_wall_start_ns"], "t_wall_end_ns")
for n in ("proc_io", "syscall_io", "perf_event"):
    expect(len(ep.rows[n]) >= 5, n + ": rows lost")
PY
}

# SIGHUP (the terminal went away) stops the episode like SIGTERM.
sighup() {
	config hup "" ""
	start hup || return
	kill -HUP $PID
	wait $PID
	local c=$?
	[ $c -eq 129 ] || { echo "exit $c: $(cat "$WORK/hup.err")"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/hup" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "interrupted" and m["target"]["signal"] == "SIGTERM", "%s %s" % (m["status"], m["target"]))
expect(ep.rows["proc_io"][-1]["final"], "no final row")
PY
}

# A reader that goes away: the target writing to the inherited stdout dies
# of SIGPIPE as it would in a shell pipeline, iopsample does not (the episode
# completes with the target's 141), and with its own stderr a closed pipe the
# summary line is lost, not the episode.
sigpipe() {
	cat >"$WORK/pipe.yaml" <<EOY
episode: {name: pipe}
target: {command: "yes | head -c 10000000; exec yes", stdout: inherit}
sources: {proc_io: {interval: 20ms}}
EOY
	local c
	( "$IOPSAMPLE" run "$WORK/pipe.yaml" 2>&1; echo $? >"$WORK/pipe.code" ) | head -c 1000 >/dev/null
	c=$(cat "$WORK/pipe.code")
	[ "$c" -eq 141 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/pipe" <<'PY' || return 1
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status " + m["status"])
expect(m["target"]["signal"] == "SIGPIPE", "target %s" % m["target"])
expect(ep.rows["proc_io"][-1]["final"], "no final row")
PY
	# iopsample's own summary line into a pipe nobody reads: still the
	# target's exit status, not 141
	cat >"$WORK/pipe2.yaml" <<EOY
episode: {name: pipe2}
target: {command: "sleep 0.3; exit 3"}
sources: {proc_io: {interval: 20ms}}
EOY
	( "$IOPSAMPLE" run "$WORK/pipe2.yaml" 2>&1; echo $? >"$WORK/pipe2.code" ) | true
	c=$(cat "$WORK/pipe2.code")
	[ "$c" -eq 3 ] || { echo "with its stderr a closed pipe, exit $c"; return 1; }
}

# The stop request (SIGUSR1) ends the episode as its duration would:
# stop_signal to the target, status complete, exit 0. NOTIFY_SOCKET gets
# READY=1 once the episode is under way (its start in the manifest) and
# STOPPING=1 when it ends (sd_notify(3)); the target does not inherit it.
stop_request() {
	cat >"$WORK/req.yaml" <<EOY
episode: {name: req}
target: {command: [sh, -c, 'env >"\$0"; exec "\$@"', $WORK/target.env, $IOWORK, --rounds, "1",
                   --sleep-ms, "60000", --tag, $TAG]}
sources: {proc_io: {interval: 20ms}}
EOY
	"$PY" - "$IOPSAMPLE" "$WORK" <<'PY'
import json, os, signal, socket, subprocess, sys, time
from epi import expect
iopsample, work = sys.argv[1:]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind("\0iopsample-e2e-notify-%d" % os.getpid())
sock.settimeout(20)
env = dict(os.environ, NOTIFY_SOCKET="@iopsample-e2e-notify-%d" % os.getpid())
p = subprocess.Popen([iopsample, "run", work + "/req.yaml", "--quiet"], env=env, stderr=subprocess.PIPE, text=True)
expect(sock.recv(64) == b"READY=1", "the first datagram is not READY=1")
m = json.load(open(work + "/episodes/req/manifest.json"))
expect(m["status"] == "running" and m["t_wall_start_ns"] is not None, "READY=1 before the start: %s" % m)
# the target has written its environment (else the stop signal could come first)
for _ in range(400):
    if os.path.exists(work + "/target.env") and open(work + "/target.env").read().endswith("\n"):
        break
    time.sleep(0.01)
p.send_signal(signal.SIGUSR1)
expect(sock.recv(64) == b"STOPPING=1", "no STOPPING=1")
rc = p.wait(20)
err = p.stderr.read()
expect(rc == 0, "exit %d: %s" % (rc, err))
m = json.load(open(work + "/episodes/req/manifest.json"))
t = m["target"]
expect(m["status"] == "complete" and t["stop_reason"] == "requested", "%s, %s" % (m["status"], t["stop_reason"]))
expect(t["signal"] == "SIGTERM", "the target ended by %s, not its stop_signal" % t["signal"])
expect("NOTIFY_SOCKET=" not in open(work + "/target.env").read(), "the target inherited NOTIFY_SOCKET")
PY
}

check stop_request_ends_the_episode_as_its_duration_would stop_request
check sigterm_stops_the_target_in_order sigterm
check sighup_stops_the_target_in_order sighup
check closed_stdout_kills_the_target_not_iopsample sigpipe
check second_sigint_skips_the_grace sigint_twice
check sigkill_of_iopsample_takes_the_tree_along sigkill
