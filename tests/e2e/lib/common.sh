# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by every end-to-end test. Each test prints "PASS name",
# "FAIL name: why" or "SKIP name: why"; tests/run counts them.
#
# $IOPSAMPLE, $WORKLOADS and $TESTS come from tests/run. Every test gets a
# fresh $WORK directory, removed at exit together with any process the test
# started in the background (KEEP_EPISODES=DIR copies it to DIR first, to
# look at what a test ran).
set -u
PY=/usr/bin/python3
export PYTHONPATH=$TESTS/e2e/lib
WORK=$(mktemp -d /tmp/iopsample-e2e.XXXXXX)
IOWORK=$WORKLOADS/iowork
TAG=iopsample-e2e-$$-$RANDOM

# The empty cgroups of an iopsample that is gone (a test killed it
# outright), as `iopsample run` and `probe` remove them: no test leaves one.
# An episode's is iopsample-EPISODE@PID-START-PIDNS (engine/cg_owner.h):
# its owner's pid, in this pid namespace only (another test's iopsample,
# alive, makes its cgroup before it moves the target in: not to be taken
# for gone); any other name ends in a number, taken for its maker's pid.
# (a killed iopsample's keeper may still be reaping the tree: a few tries)
sweep_cgroups() {
	local d pid owner try left ns
	ns=$(readlink /proc/self/ns/pid) && ns=${ns//[^0-9]/}
	for try in 1 2 3 4 5 6 7 8 9 10; do
		left=0
		for d in $(find /sys/fs/cgroup -maxdepth 6 -type d -name 'iopsample-*' 2>/dev/null); do
			case ${d##*/} in
			*@*)
				owner=${d##*@}
				[ "${owner##*-}" = "$ns" ] || continue
				pid=${owner%%-*} ;;
			*) pid=${d##*-} ;;
			esac
			# a test's own cgroups (iopsample-e2e-PID-RANDOM-hogs) are
			# its cleanup's: another test running beside it took them
			[[ $pid =~ ^[0-9]+$ ]] || continue
			[ -d "/proc/$pid" ] || rmdir "$d" 2>/dev/null || left=1
		done
		[ $left = 0 ] && return
		sleep 0.1
	done
}

cleanup() {
	local pids
	pids=$(jobs -p)
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	pkill -9 -f "$TAG" 2>/dev/null
	sweep_cgroups
	[ -n "${KEEP_EPISODES:-}" ] && cp -r "$WORK" "$KEEP_EPISODES"; rm -rf "$WORK"
}
trap cleanup EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# A judge the checkout lacks (its source is not in the repository): a skip
# with the reason, but a failure where IOPSAMPLE_REQUIRE_JUDGES is set, as
# .ci/run sets it (CI has every judge beside the tree).
no_judge() {
	if [ -n "${IOPSAMPLE_REQUIRE_JUDGES:-}" ]; then
		fail "$1" "$2 (IOPSAMPLE_REQUIRE_JUDGES: every judge must run)"
	else
		skip "$1" "$2"
	fi
}

# check NAME COMMAND...: PASS when the command succeeds (after what it printed,
# such as measured figures), else FAIL with the last lines it printed
# (assertion scripts print what went wrong). It runs in a subshell, as
# before (an unset variable fails the check, not the test; a cd stays in
# it), its output into a file of its own: a process it left running holds
# no pipe that check waits on, and writes into no later check's output.
CHECKS=0
check() {
	local name=$1 out f=$WORK/.check.$((CHECKS += 1))
	shift
	("$@") >"$f" 2>&1
	local rc=$?
	out=$(cat "$f")
	if [ $rc = 0 ]; then
		[ -n "$out" ] && printf '%s\n' "$out"
		pass "$name"
	else
		fail "$name" "$(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# episode_py EPISODE_DIR [ARG...] <<'PY' ... PY: runs assertions with `ep`
# loaded (see epi.py) and the ARGs from sys.argv[2]; exits non-zero with the
# failed assertion's message.
episode_py() {
	"$PY" -c "import sys, epi; ep = epi.Episode(sys.argv[1]); exec(sys.stdin.read())" "$@"
}
# ... with Python's jsonschema on a fixed sample of each source's rows
# (epi.sampled_rows), where `iopsample validate` reads them all
episode_py_sampled() {
	"$PY" -c "import sys, epi; ep = epi.Episode(sys.argv[1], epi.sampled_rows); exec(sys.stdin.read())" "$@"
}

# wait_until SECONDS COMMAND...: polls the command every 50 ms until it
# succeeds (0) or the seconds run out (1).
wait_until() {
	local i tries=$(($1 * 20))
	shift
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# refuses STATUS TEXT COMMAND...: the command exits STATUS, says one line on
# stderr that holds TEXT (a fixed string), and prints nothing on stdout.
refuses() {
	local want=$1 text=$2 out rc
	shift 2
	out=$("$@" 2>&1 >"$WORK/refused.stdout")
	rc=$?
	[ $rc -eq "$want" ] || { echo "${*:2}: exit $rc, not $want: $out"; return 1; }
	grep -qF -- "$text" <<<"$out" || { echo "${*:2}: says '$out', not '$text'"; return 1; }
	[ "$(wc -l <<<"$out")" -eq 1 ] || { echo "${*:2}: more than one line: $out"; return 1; }
	[ ! -s "$WORK/refused.stdout" ] || { echo "${*:2}: printed $(head -c 80 "$WORK/refused.stdout")"; return 1; }
}

# Waits up to $2 seconds (default 5) for the file $1 to have content.
wait_for_file() { wait_until "${2:-5}" test -s "$1"; }

# Processes whose command line holds this test's tag.
tagged() { pgrep -f "$TAG" 2>/dev/null | tr '\n' ' '; }

# Live (not zombie) processes named $1: a zombie is dead even when no one
# reaps it (a container's init may not).
alive_named() { ps -eo stat=,comm= | awk -v n="$1" '$2 == n && $1 !~ /^Z/' | wc -l; }

# Waits up to $1 seconds (default 2) for every tagged process to be gone.
untagged() { [ -z "$(tagged)" ]; }
wait_untagged() { wait_until "${1:-2}" untagged; }

# A folder user nobody can use, holding its own copy of iopsample: the build
# tree may sit where nobody cannot reach (a clone under /root).
unprivileged_dir() {
	local dir=$WORK/$1
	mkdir -p "$dir"
	chmod 755 "$WORK"
	chmod 777 "$dir"
	cp "$IOPSAMPLE" "$dir/iopsample"
	chmod 755 "$dir/iopsample"
	echo "$dir"
}

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

