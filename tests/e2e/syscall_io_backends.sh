# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# syscall_io's backends: choosing one (config, probe, privileges), what the
# eBPF backend leaves in the kernel (nothing, however its sampler ends), and
# the tree map across pid reuse. Exactness against workloads that count
# their own calls is in syscall_io.sh (both backends); against programs
# nobody here wrote, in syscall_io_agree.sh.
. "$(dirname "$0")/lib/common.sh"

REUSE=$WORKLOADS/reuse

# Background processes write into files, never into check's pipe, which
# would wait for them when a test fails before they end; their command
# lines carry $TAG, so the cleanup at exit finds them.

# Runs `iopsample run` with a config from stdin; prints the exit status and
# stderr (one line each) to stdout.
run_config() { # file [iopsample-args...]
	local file=$1
	shift
	cat >"$file"
	local err c
	err=$("$@" run "$file" --quiet 2>&1)
	c=$?
	echo "$c"
	echo "$err"
}

bad_backend_exits_78() {
	local out
	out=$(run_config "$WORK/bad.yaml" "$IOPSAMPLE" <<'EOY'
episode: {name: bad}
target: {command: [true]}
sources:
  syscall_io:
    backend: bpf
EOY
	)
	[ "$out" = "78
iopsample: $WORK/bad.yaml:5:14: unknown syscall_io backend \"bpf\" (auto, ebpf or ptrace)" ] || { echo "said: $out"; return 1; }
	out=$(printf 'episode: {name: b}\ntarget: {command: [true]}\nsources: {syscall_io: {backend: [ebpf]}}\n' >"$WORK/b2.yaml"; "$IOPSAMPLE" check "$WORK/b2.yaml" 2>&1)
	[ "$out" = "iopsample: $WORK/b2.yaml:3:33: expected a string, got a list" ] || { echo "a list: $out"; return 1; }
	[ ! -e "$WORK/episodes" ] || { echo "created episodes"; return 1; }
	# the resolved config names the choice as given
	printf 'episode: {name: c}\ntarget: {command: [true]}\nsources: {syscall_io: {}}\n' >"$WORK/c.yaml"
	"$IOPSAMPLE" check "$WORK/c.yaml" | "$PY" -c "import json, sys; b = json.load(sys.stdin)['sources']['syscall_io']['backend']; sys.exit(0 if b == 'auto' else 'resolved backend %s' % b)"
}

# As root (CI): an explicit ebpf runs, and says it was asked for.
explicit_ebpf_runs() {
	cat >"$WORK/x.yaml" <<EOY
episode: {name: x}
target: {command: [$REUSE, --pid-file, $WORK/x.pid, --tag, $TAG]}
sources: {syscall_io: {backend: ebpf, interval: 10ms}}
EOY
	"$IOPSAMPLE" run "$WORK/x.yaml" --quiet >/dev/null 2>&1 &
	local sup=$!
	wait_for_file "$WORK/x.pid" || { echo "no pid file"; return 1; }
	pkill -USR1 -f "$WORK/x.pid"
	wait $sup || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/x" <<'PY'
from epi import expect
s = ep.manifest["sources"]["syscall_io"]
expect((s["backend"], s["backend_reason"]) == ("ebpf", "set in the config"), "source %s" % s)
expect(ep.total("syscall_io", "write_calls") == 4, "write_calls %d" % ep.total("syscall_io", "write_calls"))
PY
}

# bpf() is root's on this host: as nobody, an explicit ebpf stops the run
# before anything exists (77), or leaves the source unavailable with the
# reason when not required; auto takes ptrace (syscall_io.sh checks its
# counts); probe reports each backend.
unprivileged_ebpf() {
	local dir out
	dir=$(unprivileged_dir unpriv)
	out=$(run_config "$dir/e.yaml" as_nobody "$dir/iopsample" <<EOY
episode: {name: e}
target: {command: [touch, $dir/ran]}
sources: {syscall_io: {backend: ebpf}}
EOY
	)
	[ "$out" = "77
iopsample: source syscall_io cannot run on this host: backend ebpf: bpf() refused: Operation not permitted (set required: false to run without it)" ] || { echo "said: $out"; return 1; }
	[ ! -e "$dir/episodes" ] && [ ! -e "$dir/ran" ] || { echo "something ran or was created"; return 1; }

	out=$(run_config "$dir/o.yaml" as_nobody "$dir/iopsample" <<EOY
episode: {name: o}
target: {command: [touch, $dir/ran]}
sources: {proc_io: {}, syscall_io: {backend: ebpf, required: false}}
EOY
	)
	[ "$out" = "0" ] || { echo "optional: $out"; return 1; }
	[ -e "$dir/ran" ] || { echo "the target did not run"; return 1; }
	episode_py "$dir/episodes/o" <<'PY' || return 1
from epi import expect
s = ep.manifest["sources"]["syscall_io"]
expect(s["status"] == "unavailable" and s["backend"] is None, "source %s" % s)
expect(s["error"] == "backend ebpf: bpf() refused: Operation not permitted", "error %s" % s["error"])
expect(s["ebpf"] == {"works": False, "error": "bpf() refused: Operation not permitted", "btf": True,
                     "host_pid_ns": True}, "ebpf facts %s" % s["ebpf"])
expect("ptrace" not in s, "ptrace probed though not asked for")
PY
	as_nobody "$dir/iopsample" probe >"$WORK/probe-nobody.json" || { echo "probe: exit $?"; return 1; }
	"$PY" - "$WORK/probe-nobody.json" <<'PY'
import json, sys
from epi import expect
s = json.load(open(sys.argv[1]))["sources"]["syscall_io"]
expect(s["status"] == "ok" and s["backend"] == "ptrace", "syscall_io %s" % s)
expect(s["backend_reason"] == "auto: ebpf unavailable: bpf() refused: Operation not permitted", s["backend_reason"])
expect(s["ebpf"]["works"] is False and s["ptrace"]["works"] is True, "facts %s %s" % (s["ebpf"], s["ptrace"]))
print("as nobody: %s" % s["backend_reason"])
PY
}

# The kernel objects a process holds: the programs, maps and links behind
# its file descriptors, by id ("prog:12 map:7 link:3 ...").
bpf_objects() { # pid
	grep -h '^\(prog\|map\|link\)_id:' /proc/"$1"/fdinfo/* 2>/dev/null |
		awk '{sub("_id:", ":", $1); print $1 $2}' | sort -u | tr '\n' ' '
}

# Each listed object (from bpf_objects) that bpftool still shows.
still_there() {
	local o left=""
	for o in $1; do
		bpftool "${o%%:*}" show id "${o#*:}" >/dev/null 2>&1 && left="$left $o"
	done
	echo "$left"
}
gone() { [ -z "$(still_there "$1")" ]; }

# Runs an episode of the ebpf backend, takes the list of its kernel objects
# while it runs, ends it as told, and checks that every one is gone.
# end: "exit" (the target exits), "sampler" (SIGKILL to the sampler) or
# "iopsample" (SIGKILL to iopsample).
nothing_left() { # end
	local name=left-$1 during sup
	cat >"$WORK/$name.yaml" <<EOY
episode: {name: $name, grace: 1s}
target: {command: [$REUSE, --pid-file, $WORK/$name.pid, --tag, $TAG]}
sources: {proc_io: {interval: 10ms}, syscall_io: {backend: ebpf, interval: 10ms}}
EOY
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet >/dev/null 2>&1 &
	sup=$!
	wait_for_file "$WORK/$name.pid" && wait_for_file "$WORK/episodes/$name/syscall_io.jsonl" || { echo "did not start"; return 1; }
	during=$(bpf_objects "$(pgrep -P $sup -x iops-syscall_io)")
	# sys_enter, sys_exit, the tree's fork and exit, io_uring's completions
	[ "$(grep -o 'prog:' <<<"$during" | wc -l)$(grep -o 'link:' <<<"$during" | wc -l)" = 55 ] &&
		[ "$(grep -o 'map:' <<<"$during" | wc -l)" -ge 4 ] ||
		{ echo "while running, expected 5 programs, 5 links and their maps: $during"; return 1; }
	for o in $during; do
		bpftool "${o%%:*}" show id "${o#*:}" >/dev/null 2>&1 || { echo "bpftool does not list $o"; return 1; }
	done
	case $1 in
	exit) pkill -USR1 -f "$WORK/$name.pid" ;;
	sampler) pkill -KILL -P $sup -x iops-syscall_io ;;
	iopsample) kill -KILL $sup ;;
	esac
	wait $sup
	local c=$?
	# the kernel frees a program when its last file descriptor closes,
	# which may lag its process's exit by an RCU grace period
	wait_until 2 gone "$during" || { echo "left after '$1': $(still_there "$during")"; return 1; }
	wait_untagged 2 || { echo "processes left: $(tagged)"; return 1; }
	case $1 in
	exit) [ $c -eq 0 ] || { echo "exit $c"; return 1; } ;;
	iopsample) [ $c -eq 137 ] || { echo "exit $c"; return 1; } ;;
	sampler)
		# The target does not depend on an eBPF sampler: it is stopped
		# in order, as for any required source that fails.
		[ $c -eq 70 ] || { echo "exit $c, expected 70"; return 1; }
		episode_py "$WORK/episodes/$name" <<'PY' || return 1
from epi import expect
m = ep.manifest
expect(m["status"] == "failed" and m["target"]["stop_reason"] == "collector_failed", "manifest %s" % m["target"])
expect(m["target"]["signal"] == "SIGTERM", "target ended by %s, not the stop signal" % m["target"]["signal"])
s = m["sources"]["syscall_io"]
expect(s["status"] == "failed" and "SIGKILL" in s["error"], "source %s" % s)
PY
		;;
	esac
	echo "$1: while running $during; none after"
}

# A tree member exits; a process outside the tree then gets its pid (the
# test sets ns_last_pid) and writes. Only the tree's own writes count.
pid_reuse() { # backend
	local name=reuse-$1 sup pid
	cat >"$WORK/$name.yaml" <<EOY
episode: {name: $name}
target: {command: [$REUSE, --pid-file, $WORK/$name.pid, --tag, $TAG]}
sources: {syscall_io: {backend: $1, interval: 10ms}}
EOY
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet >/dev/null 2>&1 &
	sup=$!
	wait_for_file "$WORK/$name.pid" || { echo "no pid file"; return 1; }
	pid=$(cat "$WORK/$name.pid")
	"$PY" - "$pid" <<'PY' || { kill $sup; return 1; }
import os, sys
pid = int(sys.argv[1])
for attempt in range(500):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(pid - 1))
    child = os.fork()
    if child == 0:
        if os.getpid() == pid:
            fd = os.open("/dev/null", os.O_WRONLY)
            for _ in range(10):
                os.write(fd, b"x" * 7777)
        os._exit(0)
    os.waitpid(child, 0)
    if child == pid:
        print("pid %d reused by a stranger after %d tries; it wrote 77770 bytes" % (pid, attempt + 1))
        sys.exit(0)
sys.exit("could not get pid %d back" % pid)
PY
	pkill -USR1 -f "$WORK/$name.pid"
	wait $sup || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/$name" "$(stat -c %s "$WORK/$name.pid")" <<'PY'
from epi import expect
want = (4, 3000 + int(sys.argv[2]), 0)
got = tuple(ep.total("syscall_io", f) for f in ("write_calls", "write_bytes", "read_calls"))
expect(got == want, "write_calls, write_bytes, read_calls %s; the tree's own %s" % (got, want))
PY
}

check unknown_backend_exits_78_at_its_position bad_backend_exits_78
check explicit_ebpf_runs_and_says_so explicit_ebpf_runs
if id nobody >/dev/null 2>&1; then
	check unprivileged_ebpf_exits_77_or_is_unavailable_and_probe_says_why unprivileged_ebpf
else
	skip unprivileged_ebpf_exits_77_or_is_unavailable_and_probe_says_why "no user nobody"
fi
for end in exit sampler iopsample; do
	check ebpf_leaves_nothing_in_the_kernel_$end nothing_left $end
done
for b in ebpf ptrace; do
	check pid_reuse_does_not_count_a_stranger_$b pid_reuse $b
done
