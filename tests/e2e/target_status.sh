# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample's exit status is the target's; a target that cannot run exits
# 126/127 as a shell would.
. "$(dirname "$0")/lib/common.sh"

run_cmd() { # name yaml-command -> prints exit status; episode in $WORK/episodes/name
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: $2}
sources: {proc_io: {interval: 20ms}}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err"
}

exit_code() {
	run_cmd code '"exit 3"'
	local c=$?
	[ $c -eq 3 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/code" <<'PY'
from epi import expect
t = ep.manifest["target"]
expect(ep.manifest["status"] == "complete", "status")
expect(t["exit_code"] == 3 and t["signal"] is None and t["stop_reason"] == "exited", "target %s" % t)
PY
}

segv() {
	run_cmd segv "[$IOWORK, --rounds, \"2\", --pause-ms, \"5\", --crash, \"11\"]"
	local c=$?
	[ $c -eq 139 ] || { echo "exit $c"; return 1; }
	episode_py "$WORK/episodes/segv" <<'PY'
from epi import expect
t = ep.manifest["target"]
expect(t["signal"] == "SIGSEGV" and t["exit_code"] is None, "target %s" % t)
expect(ep.manifest["status"] == "complete", "status")
expect(ep.total("proc_io", "wchar") > 0, "the crash lost the rows")
PY
}

not_found() {
	run_cmd missing '[./no-such-program, --flag]'
	local c=$?
	[ $c -eq 127 ] || { echo "exit $c"; return 1; }
	[ "$(cat "$WORK/missing.err")" = "iopsample: cannot execute ./no-such-program: No such file or directory" ] ||
		{ cat "$WORK/missing.err"; return 1; }
	episode_py "$WORK/episodes/missing" <<'PY' || return 1
from epi import expect
expect(ep.manifest["status"] == "failed", "status")
expect(ep.manifest["target"]["exit_code"] == 127, "exit_code")
expect("No such file" in ep.manifest["target"]["error"], "error")
PY
	[ "$(alive_named iops-proc_io)" = 0 ] || { echo "a sampler is still running"; return 1; }
}

not_executable() {
	printf 'data\n' >"$WORK/plain"
	chmod 644 "$WORK/plain"
	run_cmd noexec "[$WORK/plain]"
	local c=$?
	[ $c -eq 126 ] && grep -q "Permission denied" "$WORK/noexec.err" || { echo "exit $c: $(cat "$WORK/noexec.err")"; return 1; }
}

check target_exit_status_is_iopsamples exit_code
check target_killed_by_sigsegv_exits_139 segv
check missing_program_exits_127 not_found
check program_without_permission_exits_126 not_executable
