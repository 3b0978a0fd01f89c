# target.pid: sample a process iopsample did not start, and leave it running.
. "$(dirname "$0")/lib/common.sh"

attach_and_leave_running() {
	"$IOWORK" --rounds 400 --pause-ms 10 --tag "$TAG" >/dev/null &
	local victim=$!
	sleep 0.1
	cat >"$WORK/att.yaml" <<EOY
episode: {name: att, duration: 1s}
target: {pid: $victim}
sources: {proc_io: {interval: 50ms}}
EOY
	"$IOPSAMPLE" run "$WORK/att.yaml" --quiet
	local c=$?
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	kill -0 $victim 2>/dev/null || { echo "the attached process did not survive"; return 1; }
	grep -q '^State:.*[RS]' /proc/$victim/status || { echo "left it $(grep State /proc/$victim/status)"; return 1; }
	episode_py "$WORK/episodes/att" <<PY
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status")
t = m["target"]
expect(t["attached"] and t["pid"] == $victim and t["argv"] is None, "target %s" % t)
# only a parent's wait4 reports what a process used
expect(t["rusage"] is None and "parent" in t["rusage_reason"], "rusage %s: %s" % (t["rusage"], t["rusage_reason"]))
expect(t["stop_reason"] == "duration", "stop_reason %s" % t["stop_reason"])
rows = ep.rows["proc_io"]
expect(19 <= len(rows) <= 22, "%d rows at 50 ms over 1 s" % len(rows))
expect(sum(1 for r in rows if r["wchar"] > 0) >= 15, "the attached process's writes are missing")
expect(all(r["nprocs"] == 1 for r in rows), "nprocs")
PY
}

attached_process_exits() {
	"$IOWORK" --rounds 30 --pause-ms 10 --tag "$TAG" >"$WORK/short.out" &
	local victim=$! t0=$SECONDS
	cat >"$WORK/short.yaml" <<EOY
episode: {name: short, duration: 30s}
target: {pid: $victim}
sources: {proc_io: {interval: 20ms}}
EOY
	"$IOPSAMPLE" run "$WORK/short.yaml" --quiet
	local c=$?
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	[ $((SECONDS - t0)) -lt 5 ] || { echo "did not end with the process"; return 1; }
	episode_py "$WORK/episodes/short" <<'PY'
from epi import expect
t = ep.manifest["target"]
expect(t["stop_reason"] == "exited" and t["exit_code"] is None, "target %s" % t)
PY
}

check attach_samples_and_leaves_the_process_running attach_and_leave_running
check attach_ends_when_the_process_exits attached_process_exits
