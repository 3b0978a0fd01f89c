# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# syscall_io: the episode's counts equal what the workload counted itself,
# through threads, forks, a vfork, an exec from a thread, signals and a group
# stop, with each backend (ebpf and ptrace: every such test runs twice);
# attach mode leaves the process as it was; the target dies with its tracer.
. "$(dirname "$0")/lib/common.sh"

SYSIO=$WORKLOADS/sysio

# The target's pid, from the manifest of a running episode: the rewrite
# that holds it follows the release, so the first rows may come before it.
target_pid() {
	"$PY" - "$1" <<'PY'
import json, sys, time
for _ in range(500):
    pid = json.load(open(sys.argv[1] + "/manifest.json"))["target"]["pid"]
    if pid:
        break
    time.sleep(0.01)
print(pid)
PY
}

# Stopped, by a signal or as a tracee in a group stop (T or t).
stopped() { grep -q '^State:.*[tT]' /proc/"$1"/status; }

# episode_matches_report EPISODE_DIR REPORT: every count of the workload's
# report equals the episode's sum, per syscall, per direction and per bucket;
# every row's histograms add up to its calls.
episode_matches_report() {
	episode_py "$1" "$2" <<'PY'
import json, exact
print(exact.syscall_io_matches(ep, json.load(open(sys.argv[2]))))
PY
}

counts_equal_the_workloads() { # name compression backend
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target:
  command: [$SYSIO, --threads, "3", --children, "2", --rounds, "4", --exec-from-thread,
            --report, $WORK/$1.json, --tag, $TAG]
sources:
  syscall_io: {interval: 10ms, backend: $3}
output: {compression: $2}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_matches_report "$WORK/episodes/$1" "$WORK/$1.json"
}

# Sends $2 SIGRTMIN to $1, one each 5 ms, counting them in the caller's
# $sent; the target (sysio --until-signals) outlives them, so a kill that
# fails is a fault.
rtmin_burst() { # pid count
	for _ in $(seq "$2"); do
		/bin/kill -s RTMIN "$1" || { echo "the target ended after $sent signals"; return 1; }
		sent=$((sent + 1)) && sleep 0.005
	done
}

# Queued signals (each must arrive: re-injected, not swallowed) and a
# SIGSTOP/SIGCONT while the workload runs.
signals_and_group_stop() { # backend
	local sig=sig-$1
	cat >"$WORK/$sig.yaml" <<EOY
episode: {name: $sig}
target:
  command: [$SYSIO, --threads, "2", --children, "1", --rounds, "60", --pause-ms, "20",
            --until-signals, "80", --report, $WORK/$sig.json, --tag, $TAG]
sources:
  syscall_io: {interval: 10ms, backend: $1}
EOY
	"$IOPSAMPLE" run "$WORK/$sig.yaml" --quiet &
	local sup=$! target
	wait_for_file "$WORK/episodes/$sig/syscall_io.jsonl" || { echo "no rows"; return 1; }
	target=$(target_pid "$WORK/episodes/$sig")
	local sent=0
	rtmin_burst "$target" 40 || return 1
	/bin/kill -STOP "$target"
	wait_until 2 stopped "$target" || { echo "never stopped"; return 1; }
	sleep 0.2
	stopped "$target" || { echo "did not stay stopped"; return 1; }
	/bin/kill -CONT "$target"
	rtmin_burst "$target" 40 || return 1
	wait $sup || { echo "exit $?"; return 1; }
	"$PY" -c "import json,sys; n=json.load(open('$WORK/$sig.json'))['signals']; sys.exit(0 if n == $sent else 'received %d of $sent signals' % n)" || return 1
	episode_matches_report "$WORK/episodes/$sig" "$WORK/$sig.json"
}

# The tick never waits for the tracee: a target blocked in a traced read for
# 300 ms, then busy in traced writes, still gets a row at every grid point.
grid_while_blocked_and_busy() { # backend
	cat >"$WORK/grid-$1.yaml" <<EOY
episode: {name: grid-$1}
target:
  command: "sleep 0.3 | cat; dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null"
sources:
  syscall_io: {interval: 10ms, backend: $1}
EOY
	"$IOPSAMPLE" run "$WORK/grid-$1.yaml" --quiet || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/grid-$1" <<'PY'
from epi import expect
rows, missed = ep.rows["syscall_io"][:-1], ep.manifest["sources"]["syscall_io"]["missed_ticks"]
late = sorted(r["t_mono_ns"] % 10000000 for r in rows)
# every grid point is a row or a counted missed tick
expect(len(rows) + missed == rows[-1]["t_mono_ns"] // 10000000, "%d rows and %d missed ticks up to %d ns" % (
    len(rows), missed, rows[-1]["t_mono_ns"]))
# A sampler that waited for the tracer would widen most rows while dd is
# traced; a shared VM's scheduler widens some now and then, which is the
# host's: the median row is judged, not the widest
widths = sorted(r["interval_ns"] for r in rows)
expect(widths[len(widths) // 2] < 15000000, "the median row spans %d ns at 10 ms" % widths[len(widths) // 2])
expect(ep.total("syscall_io", "write_calls") >= 20000, "dd's writes")
print("%d rows, %d missed ticks, p99 lateness %.3f ms, widest %.1f ms" % (
    len(rows), missed, late[int(len(late) * 0.99)] / 1e6, widths[-1] / 1e6))
PY
}

# The tracers of the process's threads while an episode is attached to it,
# seen from /proc every 50 ms: "0" for none.
tracers_while_attached() { # pid episode_dir
	local seen=""
	wait_for_file "$2/syscall_io.jsonl" || return 1
	for _ in 1 2 3 4 5 6; do
		seen="$seen $(cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^TracerPid:/ {print $2}' | sort -u | tr '\n' ' ')"
		sleep 0.05
	done
	printf '%s\n' $seen | sort -u | tr '\n' ' '
}

# Attached to a running workload: rows while attached, then the process
# runs on as it was, finishing by itself with exact reports. ptrace traces
# every thread while attached and detaches at the end; ebpf never stops or
# traces it at all.
attach_detaches_cleanly() { # backend
	local att=att-$1
	"$SYSIO" --threads 2 --children 1 --rounds 60 --pause-ms 30 --report "$WORK/$att.json" --tag "$TAG" &
	local victim=$!
	sleep 0.2
	cat >"$WORK/$att.yaml" <<EOY
episode: {name: $att, duration: 1s}
target: {pid: $victim}
sources: {syscall_io: {interval: 50ms, backend: $1}}
EOY
	"$IOPSAMPLE" run "$WORK/$att.yaml" --quiet &
	local sup=$! tracers
	tracers=$(tracers_while_attached $victim "$WORK/episodes/$att")
	wait $sup || { echo "exit $?"; return 1; }
	case $1 in
	ebpf) [ "$tracers" = "0 " ] || { echo "tracers while attached: $tracers"; return 1; } ;;
	ptrace) [[ "$tracers" != "0 " && -n "$tracers" ]] || { echo "not traced while attached: $tracers"; return 1; } ;;
	esac
	kill -0 $victim 2>/dev/null || { echo "the attached process did not survive"; return 1; }
	for task in /proc/$victim/task/*; do
		grep -q '^TracerPid:[[:space:]]*0$' "$task/status" || { echo "$task still traced"; return 1; }
		grep -q '^State:.*[RSD]' "$task/status" || { echo "$task left $(grep State "$task/status")"; return 1; }
	done
	wait $victim || { echo "the workload exited $?"; return 1; }
	episode_py "$WORK/episodes/$att" <<PY
import json
from epi import expect
w = json.load(open("$WORK/$att.json"))
expect(ep.manifest["sources"]["syscall_io"]["backend"] == "$1", "backend")
rows = ep.rows["syscall_io"]
expect(ep.manifest["target"]["stop_reason"] == "duration", "stop_reason")
expect(19 <= len(rows) <= 22, "%d rows at 50 ms over 1 s" % len(rows))
for name, want in w["syscalls"].items():
    got = sum(r["by_syscall"][name]["calls"] for r in rows)
    expect(0 < got < want["calls"], "%s: %d calls while attached, %d in all" % (name, got, want["calls"]))
for r in rows:
    expect(sum(r["read_size_hist"]) == r["read_calls"], "row %d histogram" % r["seq"])
print("tracers while attached: $tracers; %d of %d calls while attached" % (
    ep.total("syscall_io", "read_calls") + ep.total("syscall_io", "write_calls"),
    sum(v["calls"] for v in w["syscalls"].values())))
PY
}

has_children() { [ -n "$(cat /proc/"$1"/task/"$1"/children 2>/dev/null)" ]; }

# Attached to a tree that waits for a signal, so that every count comes
# after the attach: the two processes that ran then, and every child,
# thread and spawn after them, must match the workload's report exactly.
attach_is_exact() { # backend
	local att=atx-$1 victim sup
	# (its output not into check's pipe, which would wait for it on a failure)
	"$SYSIO" --wait-for-go --threads 2 --children 2 --rounds 3 --report "$WORK/$att.json" \
		--tag "$TAG" >"$WORK/$att.out" 2>&1 &
	victim=$!
	wait_until 2 has_children $victim || { echo "no elder child"; return 1; }
	cat >"$WORK/$att.yaml" <<EOY
episode: {name: $att, duration: 30s}
target: {pid: $victim}
sources: {syscall_io: {interval: 10ms, backend: $1}}
EOY
	"$IOPSAMPLE" run "$WORK/$att.yaml" --quiet >/dev/null 2>&1 &
	sup=$!
	wait_for_file "$WORK/episodes/$att/syscall_io.jsonl" || { echo "no rows"; return 1; }
	kill -USR1 $victim
	wait $victim || { echo "the workload exited $?"; return 1; }
	wait $sup || { echo "exit $?"; return 1; }
	episode_matches_report "$WORK/episodes/$att" "$WORK/$att.json"
}

# Without its tracer every filtered syscall would fail with ENOSYS: the
# target dies with it and the episode says why.
tracer_killed_kills_target() {
	cat >"$WORK/tk.yaml" <<EOY
episode: {name: tk}
target:
  command: [$SYSIO, --rounds, "500", --pause-ms, "10", --tag, $TAG]
sources:
  syscall_io: {interval: 10ms, required: false, backend: ptrace}
  proc_io: {interval: 10ms}
EOY
	"$IOPSAMPLE" run "$WORK/tk.yaml" --quiet &
	local sup=$!
	wait_for_file "$WORK/episodes/tk/syscall_io.jsonl" || { echo "no rows"; return 1; }
	sleep 0.2
	pkill -KILL -P $sup -x iops-syscall_io
	wait $sup
	local c=$?
	[ $c -eq 70 ] || { echo "exit $c, expected 70"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/tk" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status " + m["status"])
t = m["target"]
expect(t["stop_reason"] == "collector_failed", "stop_reason %s" % t["stop_reason"])
expect(t["signal"] == "SIGKILL", "target %s" % t)
s = m["sources"]["syscall_io"]
expect(s["status"] == "failed" and "SIGKILL" in s["error"], "source %s" % s)
expect(m["sources"]["proc_io"]["status"] == "ok", "proc_io kept its rows")
PY
}

# SIGKILL while the target is in a group-stop (a ptrace-stop for the tracer):
# the episode ends at once with the target's death.
killed_while_stopped() { # backend
	cat >"$WORK/ks-$1.yaml" <<EOY
episode: {name: ks-$1}
target:
  command: [$SYSIO, --rounds, "500", --pause-ms, "10", --tag, $TAG]
sources:
  syscall_io: {interval: 10ms, backend: $1}
EOY
	"$IOPSAMPLE" run "$WORK/ks-$1.yaml" --quiet &
	local sup=$! target
	wait_for_file "$WORK/episodes/ks-$1/syscall_io.jsonl" || { echo "no rows"; return 1; }
	target=$(target_pid "$WORK/episodes/ks-$1")
	/bin/kill -STOP "$target"
	wait_until 2 stopped "$target" || { echo "never stopped"; return 1; }
	/bin/kill -KILL "$target"
	wait_until 5 sh -c "! kill -0 $sup 2>/dev/null" || { echo "iopsample hangs"; return 1; }
	wait $sup
	local c=$?
	[ $c -eq 137 ] || { echo "exit $c, expected 137"; return 1; }
	episode_py "$WORK/episodes/ks-$1" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
expect(ep.manifest["sources"]["syscall_io"]["status"] == "ok", "source")
PY
}

unknown_syscall_is_a_config_error() {
	printf 'episode: {name: bad}\ntarget: {command: [true]}\nsources:\n  syscall_io:\n    syscalls: [read, wirte]\n' >"$WORK/bad.yaml"
	local err c
	err=$("$IOPSAMPLE" run "$WORK/bad.yaml" 2>&1)
	c=$?
	[ $c -eq 78 ] || { echo "exit $c"; return 1; }
	[ "$err" = "iopsample: $WORK/bad.yaml:5:22: unknown syscall \"wirte\" (did you mean \"write\"?)" ] || { echo "said: $err"; return 1; }
	[ ! -e "$WORK/episodes/bad" ] || { echo "created the episode"; return 1; }
}

for b in ebpf ptrace; do
	check syscall_io_counts_equal_the_workloads_$b counts_equal_the_workloads plain-$b none $b
	check syscall_io_counts_equal_the_workloads_zstd_$b counts_equal_the_workloads packed-$b zstd $b
	check signals_and_a_group_stop_lose_nothing_$b signals_and_group_stop $b
	check grid_holds_while_the_target_blocks_or_is_busy_$b grid_while_blocked_and_busy $b
	check attach_mode_leaves_the_workload_as_it_was_$b attach_detaches_cleanly $b
	check attach_mode_counts_the_running_tree_and_its_new_children_$b attach_is_exact $b
	check target_killed_while_stopped_$b killed_while_stopped $b
done
check target_dies_with_its_tracer tracer_killed_kills_target
check unknown_syscall_exits_78_with_its_position unknown_syscall_is_a_config_error

# bpf() is root's here, so auto takes ptrace for user nobody and says why.
# Without CAP_SYS_ADMIN the kernel takes a seccomp filter only with
# no_new_privs set; as root the ptrace backend's target runs without it.
unprivileged_is_exact() {
	local dir
	dir=$(unprivileged_dir unpriv)
	cp "$SYSIO" "$dir/sysio"
	cat >"$dir/u.yaml" <<EOY
episode: {name: u}
target:
  command: [$dir/sysio, --threads, "2", --children, "1", --rounds, "3", --report, $dir/u.json]
sources: {syscall_io: {interval: 10ms}}
EOY
	printf 'episode: {name: nnp}\ntarget: {command: [grep, NoNewPrivs, /proc/self/status]}\nsources: {syscall_io: {backend: ptrace}}\n' >"$dir/nnp.yaml"
	as_nobody "$dir/iopsample" run "$dir/u.yaml" --quiet || { echo "exit $?"; return 1; }
	as_nobody "$dir/iopsample" run "$dir/nnp.yaml" --quiet || { echo "nnp: exit $?"; return 1; }
	"$IOPSAMPLE" run "$dir/nnp.yaml" --name nnp-root --quiet || { echo "nnp-root: exit $?"; return 1; }
	grep -q 'NoNewPrivs:[[:space:]]*1' "$dir/episodes/nnp/target.stdout" || { echo "unprivileged: $(cat "$dir/episodes/nnp/target.stdout")"; return 1; }
	grep -q 'NoNewPrivs:[[:space:]]*0' "$dir/episodes/nnp-root/target.stdout" || { echo "root: $(cat "$dir/episodes/nnp-root/target.stdout")"; return 1; }
	episode_matches_report "$dir/episodes/u" "$dir/u.json" || return 1
	episode_py "$dir/episodes/u" <<'PY'
from epi import expect
s = ep.manifest["sources"]["syscall_io"]
expect(s["backend"] == "ptrace", "backend %s" % s["backend"])
expect(s["backend_reason"] == "auto: ebpf unavailable: bpf() refused: Operation not permitted",
       "backend_reason %s" % s["backend_reason"])
print(s["backend_reason"])
PY
}

if id nobody >/dev/null 2>&1; then
	check unprivileged_auto_takes_ptrace_and_is_exact unprivileged_is_exact
else
	skip unprivileged_auto_takes_ptrace_and_is_exact "no user nobody to run unprivileged"
fi
