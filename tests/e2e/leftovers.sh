# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The episode ends with the target; what the target leaves running is stopped
# and reported.
. "$(dirname "$0")/lib/common.sh"

daemon_left_behind() {
	cat >"$WORK/d.yaml" <<EOY
episode: {name: d, grace: 1s}
target: {command: [$IOWORK, --rounds, "2", --pause-ms, "5", --daemon, --tag, $TAG]}
sources: {proc_io: {interval: 20ms}}
EOY
	local t0=$SECONDS
	"$IOPSAMPLE" run "$WORK/d.yaml" --quiet
	local c=$?
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	[ $((SECONDS - t0)) -lt 5 ] || { echo "waited for the daemon"; return 1; }
	[ -z "$(tagged)" ] || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/d" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status")
expect(m["target"]["exit_code"] == 0 and m["target"]["stop_reason"] == "exited", "target %s" % m["target"])
expect(m["target"]["leftover_processes"] == 1, "leftovers %d" % m["target"]["leftover_processes"])
expect(any("left 1 process running" in w for w in m["warnings"]), "warnings %s" % m["warnings"])
w = ep.target_report()
expect(ep.total("proc_io", "wchar") == w["wchar"], "wchar")
PY
}

check leftover_daemon_is_stopped_and_reported daemon_left_behind
