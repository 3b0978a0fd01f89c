# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# syscall_io's access pattern judged by Darshan itself (issue 51): Darshan
# 3.5.0, built from its source beside the checkout (tests/darshan/build;
# a clone without it skips, CI's has it), runs each case
# of tests/workloads/darwork under its LD_PRELOAD; iopsample runs the same
# case of the same source linked statically (no loader reads besides the
# case's own), under each backend. Every counter of every case must agree
# (exact.darshan_matches); the kernel matrix holds the guests to the same
# counters (tests/kernels/darwork.yaml).
. "$(dirname "$0")/lib/common.sh"

CASES="seq pread seek twofd append vec v2 dup reopen child fail unalign"
DARSHAN=$("$TESTS/darshan/build" 2>"$WORK/darshan-build.err")
DARSHAN_RC=$?
[ $DARSHAN_RC = 0 ] || DARSHAN=

# Darshan's counters of each case, once: $WORK/darshan/CASE.json
darshan_counts() {
	local c
	for c in $CASES; do
		[ -s "$WORK/darshan/$c.json" ] && continue
		mkdir -p "$WORK/darshan/files-$c"
		"$PY" "$TESTS/e2e/lib/darshan.py" "$DARSHAN" "$WORK/darshan/logs-$c" "$WORK/darshan/files-$c" \
			"$WORKLOADS/darwork" "$WORK/darshan/files-$c" "$c" >"$WORK/darshan/$c.json" ||
			{ rm -f "$WORK/darshan/$c.json"; echo "darshan on $c failed"; return 1; }
	done
}

judged_by_darshan() { # backend
	[ -n "$DARSHAN" ] || { echo "no darshan: $(tail -n 3 "$WORK/darshan-build.err")"; return 1; }
	darshan_counts || return 1
	local c out=""
	for c in $CASES; do
		mkdir -p "$WORK/files-$1-$c"
		cat >"$WORK/dw-$1-$c.yaml" <<EOY
episode: {name: dw-$1-$c, output_dir: $WORK/episodes}
target: {command: [$WORKLOADS/darwork-static, $WORK/files-$1-$c, $c], stdout: "null"}
sources:
  syscall_io: {interval: 10ms, backend: $1}
EOY
		"$IOPSAMPLE" run "$WORK/dw-$1-$c.yaml" --quiet || { echo "$c: exit $?"; return 1; }
		out+=$(episode_py "$WORK/episodes/dw-$1-$c" "$WORK/darshan/$c.json" "$c" 2>&1 <<'PY'
import json
from exact import darshan_matches
try:
    # the child case reads a descriptor it inherited: Darshan has no record
    print("%s: %s" % (sys.argv[3], darshan_matches(ep, json.load(open(sys.argv[2])), sys.argv[3] == "child")))
except AssertionError as e:
    sys.exit("%s: %s" % (sys.argv[3], e))
PY
		) || { printf '%s\n' "$out"; return 1; }
		out+=$'\n'
	done
	printf '%s' "$out"
}

if [ $DARSHAN_RC = 77 ]; then
	no_judge darshan_judges_every_case_ebpf "$(cat "$WORK/darshan-build.err")"
	no_judge darshan_judges_every_case_ptrace "$(cat "$WORK/darshan-build.err")"
	exit 0
fi
check darshan_judges_every_case_ebpf judged_by_darshan ebpf
check darshan_judges_every_case_ptrace judged_by_darshan ptrace
