# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A collector is its own process: when one dies the supervisor survives, the
# rows already written stay, and the manifest says what happened.
. "$(dirname "$0")/lib/common.sh"

# run_and_kill NAME FILE COMM SIG: runs $WORK/NAME.yaml and, once FILE has
# rows, sends SIG to iopsample's helper process COMM; returns iopsample's
# exit status (255, after saying why, when it never got that far).
run_and_kill() {
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err" &
	local pid=$! helper
	wait_for_file "$WORK/episodes/$1/$2" || { echo "no rows"; return 255; }
	sleep 0.3
	helper=$(pgrep -P $pid -x "$3")
	[ -n "$helper" ] || { echo "no $3 process"; return 255; }
	kill "-$4" "$helper"
	wait $pid
}

crash() { # name required exit-expected
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "1500", --sleepers, "1", --tag, $TAG]}
sources: {proc_io: {interval: 20ms, required: $2}}
EOY
	run_and_kill "$1" proc_io.jsonl iops-proc_io KILL
	local c=$?
	[ $c -eq "$3" ] || { echo "exit $c: $(cat "$WORK/$1.err")"; return 1; }
	grep -q "^iopsample: source proc_io failed: sampler process killed by SIGKILL$" "$WORK/$1.err" ||
		{ echo "stderr: $(cat "$WORK/$1.err")"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/$1" <<PY
from epi import expect
m = ep.manifest
src = m["sources"]["proc_io"]
expect(src["status"] == "failed" and "SIGKILL" in src["error"], "source %s" % src)
rows = ep.rows["proc_io"]
expect(len(rows) == src["rows"] and len(rows) >= 10, "%d rows, manifest %d" % (len(rows), src["rows"]))
expect([r["seq"] for r in rows] == list(range(len(rows))), "rows damaged")
expect(not any(r["final"] for r in rows), "a final row from a dead sampler")
if "$2" == "true":
    expect(m["status"] == "failed", "status " + m["status"])
    expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason %s" % m["target"]["stop_reason"])
else:
    expect(m["status"] == "complete", "status " + m["status"])
    expect(m["target"]["stop_reason"] == "exited" and m["target"]["exit_code"] == 0, "target %s" % m["target"])
PY
}

not_permitted() {
	# An unprivileged user may not read a root process's /proc/PID/io.
	sleep 30 &
	local victim=$! dir
	dir=$(unprivileged_dir unprivileged)
	cat >"$dir/denied.yaml" <<EOY
episode: {name: denied}
target: {pid: $victim}
sources: {proc_io: {interval: 20ms}}
EOY
	chmod 644 "$dir/denied.yaml"
	local out c
	out=$(as_nobody "$dir/iopsample" run "$dir/denied.yaml" --quiet 2>&1)
	c=$?
	kill $victim
	[ $c -eq 77 ] || { echo "exit $c: $out"; return 1; }
	grep -q "^iopsample: source proc_io cannot start: /proc/$victim/io: Permission denied$" <<<"$out" || { echo "$out"; return 1; }
	episode_py "$dir/episodes/denied" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status")
expect(m["sources"]["proc_io"]["status"] == "unavailable", "source status")
expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason")
PY
}

# The same source marked required: false: the episode runs without it.
optional_unavailable() {
	sleep 30 &
	local victim=$! dir
	dir=$(unprivileged_dir optional)
	cat >"$dir/opt.yaml" <<EOY
episode: {name: opt, duration: 300ms}
target: {pid: $victim}
sources: {proc_io: {interval: 20ms, required: false}}
EOY
	chmod 644 "$dir/opt.yaml"
	as_nobody "$dir/iopsample" run "$dir/opt.yaml" --quiet
	local c=$?
	kill $victim
	[ $c -eq 0 ] || { echo "exit $c"; return 1; }
	episode_py "$dir/episodes/opt" <<'PY'
from epi import expect
m = ep.manifest
src = m["sources"]["proc_io"]
expect(m["status"] == "complete", "status " + m["status"])
expect(src["status"] == "unavailable" and "Permission denied" in src["error"] and src["file"] is None, "source %s" % src)
expect(any("proc_io unavailable" in w for w in m["warnings"]), "warnings %s" % m["warnings"])
PY
}

# One sampler of three crashes (SIGSEGV): the other two keep sampling to the
# end and take their final rows; the manifest names the cause.
others_keep_sampling() {
	cat >"$WORK/three.yaml" <<EOY
episode: {name: three}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "1500", --sleepers, "1", --tag, $TAG]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [task-clock], required: false}
EOY
	run_and_kill three perf_event.jsonl iops-perf_event SEGV
	local c=$?
	[ $c -eq 0 ] || { echo "exit $c: $(cat "$WORK/three.err")"; return 1; }
	grep -q "^iopsample: source perf_event failed: sampler process killed by SIGSEGV$" "$WORK/three.err" ||
		{ echo "stderr: $(cat "$WORK/three.err")"; return 1; }
	episode_py "$WORK/episodes/three" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status " + m["status"])
pe = m["sources"]["perf_event"]
expect(pe["status"] == "failed" and "SIGSEGV" in pe["error"], "perf_event %s" % pe)
died = ep.rows["perf_event"][-1]["t_mono_ns"]
for n in ("proc_io", "syscall_io"):
    rows = ep.rows[n]
    expect(m["sources"][n]["status"] == "ok" and rows[-1]["final"], n + " did not end ok")
    after = [r for r in rows if r["t_mono_ns"] > died + 100e6]
    expect(len(after) >= 50, "%s: %d rows after perf_event died" % (n, len(after)))
print("rows after the crash: proc_io %d, syscall_io %d" % tuple(
    len([r for r in ep.rows[n] if r["t_mono_ns"] > died]) for n in ("proc_io", "syscall_io")))
PY
}

check one_crashed_sampler_of_three_others_keep_sampling others_keep_sampling
check required_collector_crash_fails_the_episode crash required true 70
check optional_collector_crash_keeps_the_episode crash optional false 0
if id nobody >/dev/null 2>&1; then
	check required_source_not_permitted_exits_77 not_permitted
	check optional_source_not_permitted_is_left_out optional_unavailable
else
	skip required_source_not_permitted_exits_77 "no user nobody to run unprivileged"
	skip optional_source_not_permitted_is_left_out "no user nobody to run unprivileged"
fi

# The keeper is iopsample's too: if something kills it, the episode fails
# (70) and the target's process group goes with it.
keeper_killed() {
	cat >"$WORK/kk.yaml" <<EOY
episode: {name: kk}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "30000", --sleepers, "2", --tag, $TAG]}
sources: {proc_io: {interval: 20ms}}
EOY
	run_and_kill kk proc_io.jsonl iops-keeper KILL
	local c=$?
	[ $c -eq 70 ] || { echo "exit $c: $(cat "$WORK/kk.err")"; return 1; }
	grep -q "^iopsample: the keeper process was killed by SIGKILL before the target exited$" "$WORK/kk.err" ||
		{ cat "$WORK/kk.err"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	episode_py "$WORK/episodes/kk" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status " + m["status"])
expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason %s" % m["target"]["stop_reason"])
expect(any("keeper" in w for w in m["warnings"]), "warnings %s" % m["warnings"])
PY
}

check killed_keeper_fails_the_episode keeper_killed

# An eBPF source's programs are loaded and verified once an episode, by its
# probe in the supervisor; its sampler, forked after, takes them over and
# only attaches (collectors/common/ebpf/ebpf_preload.h): a second load was
# half of such a source's start. strace -f sees every bpf() of the episode.
programs_loaded_once() {
	cat >"$WORK/once.yaml" <<EOY
episode: {name: once}
target: {command: [$IOWORK, --rounds, "20", --pause-ms, "5", --tag, $TAG]}
sources: {proc_io: {interval: 20ms, backend: bpf}, taskstats: {interval: 20ms, backend: bpf},
          syscall_io: {interval: 20ms, backend: ebpf}, block_io: {interval: 20ms}}
EOY
	# (LeakSanitizer, under make asan, cannot run under a tracer)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=bpf,prctl -e signal=none -o "$WORK/once.strace" \
		"$IOPSAMPLE" run "$WORK/once.yaml" --quiet || { echo "exit $?"; return 1; }
	/usr/bin/python3 - "$WORK/once.strace" <<'PY' || return 1
import collections, re, sys
names, loads, attaches = {}, collections.Counter(), collections.Counter()
trees = []  # (map name, max_entries) of the maps that hold the tree
for line in open(sys.argv[1]):
    pid = int(line.split()[0])
    m = re.search(r'PR_SET_NAME, "([^"]*)"', line)
    if m:
        names[pid] = m.group(1)
    m = re.search(r'BPF_PROG_LOAD, .*prog_name="([^"]+)"', line)
    if m and not m.group(1).startswith("libbpf_"):  # libbpf's feature probes
        loads[pid, m.group(1)] += 1
    if re.search(r"bpf\(BPF_(LINK_CREATE|RAW_TRACEPOINT_OPEN)", line):
        attaches[pid] += 1
    m = re.search(r'BPF_MAP_CREATE, .*max_entries=(\d+), .*map_name="(tree|exited)"', line)
    if m:
        trees.append((m.group(2), int(m.group(1))))
samplers = {p: n for p, n in names.items() if n in ("iops-proc_io", "iops-taskstats",
                                                     "iops-syscall_io", "iops-block_io")}
bad = []
if len(samplers) != 4:
    bad.append("samplers %s" % sorted(samplers.values()))
for (pid, prog), n in sorted(loads.items()):
    if pid in samplers:
        bad.append("%s loaded %s" % (samplers[pid], prog))
supervisor = {pid for pid, _ in loads} - set(samplers)
if len(supervisor) != 1:
    bad.append("programs loaded by %d processes besides the samplers" % len(supervisor))
for prog in ("pio_walk", "ts_walk", "iops_sio_enter", "iops_bio_queue"):
    n = sum(c for (pid, p), c in loads.items() if p == prog)
    if n != 1:
        bad.append("%s loaded %d times" % (prog, n))
for pid, name in samplers.items():
    if not attaches[pid]:
        bad.append("%s attached nothing" % name)
# docs/data-model.md: a tree map holds as many processes as the host has
# pids (each holds one until reaped), up to 65536
holds = min(int(open("/proc/sys/kernel/pid_max").read()), 65536)
# (block_io loads again without its fentry programs where they are refused)
if [n for n, _ in trees].count("tree") < 4 or [n for n, _ in trees].count("exited") != 1:
    bad.append("tree maps created: %s" % trees)
bad += ["map %s holds %d, not %d" % (n, size, holds) for n, size in trees if size != holds]
if bad:
    sys.exit("; ".join(bad))
print("%d programs loaded, all by the supervisor; tree maps of %d; the samplers attached %s" % (
    sum(loads.values()), holds, ", ".join("%s %d" % (n[5:], attaches[p]) for p, n in sorted(samplers.items(), key=lambda x: x[1]))))
PY
	"$IOPSAMPLE" validate "$WORK/episodes/once" >/dev/null || { echo "validate: $?"; return 1; }
	episode_py "$WORK/episodes/once" <<'PY'
from epi import expect
m = ep.manifest
expect(m["status"] == "complete", "status " + m["status"])
for n in ("proc_io", "taskstats", "syscall_io", "block_io"):
    expect(m["sources"][n]["status"] == "ok", "%s %s" % (n, m["sources"][n]))
w = sum(r["wchar"] for r in ep.rows["proc_io"])
expect(w > 0 and w == sum(r["write_bytes"] for r in ep.rows["syscall_io"]),
       "proc_io wchar %d, syscall_io write_bytes" % w)
PY
}

check ebpf_programs_are_loaded_once_by_the_probe programs_loaded_once
