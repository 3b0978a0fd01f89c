# Signals to iopsample: SIGTERM/SIGINT stop the target in order (status
# interrupted, a final row, nothing of the target left); a second SIGINT
# skips the grace; SIGKILL of iopsample takes the target's whole tree with it.
. "$(dirname "$0")/lib/common.sh"

# a target that idles with two children (and with --daemon a descendant in a
# session of its own), all tagged
config() { # name extra-episode-keys extra-args
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1 $2}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "2", --tag, $TAG $3]}
sources: {proc_io: {interval: 20ms}}
EOY
}

# starts iopsample in the background, waits for its first rows
start() {
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err" &
	PID=$!
	wait_for_file "$WORK/episodes/$1/proc_io.jsonl" || { echo "no rows"; return 1; }
	sleep 0.2
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

no_helpers() { [ "$(alive_named iops-keeper)$(alive_named iops-proc_io)" = 00 ]; }

sigkill() {
	config killed "" ", --daemon"
	start killed || return
	local before
	before=$(tagged | wc -w)
	[ "$before" -ge 4 ] || { echo "only $before tagged processes"; return 1; }
	kill -KILL $PID
	wait $PID 2>/dev/null
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	wait_until 2 no_helpers || { echo "helpers left running"; return 1; }
	episode_py "$WORK/episodes/killed" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "running", "status %s" % ep.manifest["status"])
expect(len(ep.rows["proc_io"]) >= 5, "rows lost")
PY
}

check sigterm_stops_the_target_in_order sigterm
check second_sigint_skips_the_grace sigint_twice
check sigkill_of_iopsample_takes_the_tree_along sigkill
