# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make valgrind: one episode per source, the signal path, zstd output and the
# reading commands, with iopsample (and every process it forks: keeper,
# samplers) under memcheck. Each must give the same results as without it
# and leave memcheck nothing to say: no invalid access, no use of an
# uninitialised value, no block definitely lost.
#
# syscall_io's ebpf backend runs here (libbpf.supp: two false reports of
# valgrind's bpf(2) wrapper); its ptrace backend cannot, as valgrind does not
# implement seccomp(2), so that source reports itself unavailable, and that
# path is what gets checked.
. "$(dirname "$0")/../e2e/lib/common.sh"

LOGS=$WORK/memcheck
mkdir -p "$LOGS/read"
VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--trace-children=no --suppressions="$TESTS/memcheck/libbpf.supp" --log-file="$LOGS/%p.log"
	"$IOPSAMPLE")
memcheck() { "${VALGRIND[@]}" "$@"; }
# no process's log holds a memcheck report ("==PID== ..."), or the test
# fails with its first lines; valgrind's own warnings ("--PID-- ...", such
# as the one about seccomp(2)) are not about iopsample. The logs read are
# put aside, so that each test answers for its own processes only.
quiet_logs() {
	local f bad=0
	for f in "$LOGS"/*.log; do
		[ -e "$f" ] || continue
		if [ $bad = 0 ] && grep -q '^==[0-9]*==' "$f"; then
			grep '^==[0-9]*==' "$f" | head -n 8
			bad=1
		fi
		mv "$f" "$LOGS/read/"
	done
	return $bad
}

# The source's totals against the workload's report, each pair given as
# FIELD:REPORT_FIELD. Before its exec the target is a fork of the keeper,
# still under valgrind, whose scheduler passes a token byte through a pipe:
# those few bytes are the process's I/O too; reading, it also looks at the
# program it is to exec. Without valgrind the totals are exact (e2e/totals,
# e2e/syscall_io).
near_the_workload() { # episode source FIELD:REPORT_FIELD...
	episode_py "$WORK/episodes/$1" "$2" "${@:3}" <<'PY'
from epi import expect
w = ep.target_report()
expect(ep.manifest["status"] == "complete", "status")
for pair in sys.argv[3:]:
    f, wf = pair.split(":")
    got, want = ep.total(sys.argv[2], f), w[wf]
    slack = 64 if wf == "wchar" else 65536
    expect(want <= got <= want + slack, "%s: rows %d, the workload's %s %d" % (f, got, wf, want))
PY
}

episode() { # name sources-yaml [output-yaml]
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: [$IOWORK, --rounds, "3", --pause-ms, "30", --threads, "2", --children, "1", --tag, $TAG]}
sources: $2
output: ${3:-{compression: none\}}
EOY
	memcheck run "$WORK/$1.yaml" --quiet
}

proc_io() { # BACKEND: procfs or bpf
	episode "pio-$1" "{proc_io: {interval: 10ms, backend: $1}}" || { echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	grep -q "\"backend\": \"$1\"" "$WORK/episodes/pio-$1/manifest.json" || { echo "not the $1 backend"; return 1; }
	near_the_workload "pio-$1" proc_io wchar:wchar rchar:rchar
}

perf_event() {
	episode pe "{perf_event: {interval: 10ms, events: [task-clock, page-faults, context-switches, cycles]}}" ||
		{ echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/pe" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
expect(ep.total("perf_event", "page_faults") > 0, "no page faults counted")
expect(ep.total("perf_event", "task_clock") > 0, "no task-clock")
PY
}

syscall_io_ebpf() {
	episode sioe "{syscall_io: {interval: 10ms, backend: ebpf}}" || { echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	grep -q '"backend": "ebpf"' "$WORK/episodes/sioe/manifest.json" || { echo "not the ebpf backend"; return 1; }
	near_the_workload sioe syscall_io write_bytes:wchar read_bytes:rchar
}

# taskstats: netlink (or the task iterator, with BACKEND bpf), its reader
# thread and the task_delayacct guardian
taskstats() { # BACKEND: netlink or bpf
	episode "ts-$1" "{proc_io: {interval: 10ms}, taskstats: {interval: 10ms, backend: $1}}" ||
		{ echo "exit $?"; quiet_logs; return 1; }
	# the verdict of it: its sources read in threads, rows picked, windows
	memcheck verdict "$WORK/episodes/ts-$1" --format json -o "$WORK/ts-$1.verdict" || { echo "verdict: exit $?"; return 1; }
	memcheck verdict "$WORK/episodes/ts-$1" --window 30ms >/dev/null || { echo "verdict --window: exit $?"; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/ts-$1" "$WORK/ts-$1.verdict" <<'PY'
import json
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
v = json.loads(open(sys.argv[2]).read())
expect(v["windows"] and v["windows"][-1]["t_mono_ns"] == ep.rows["taskstats"][-1]["t_mono_ns"],
       "verdict: the windows end at %s, the rows at %d" % (v["windows"][-1:], ep.rows["taskstats"][-1]["t_mono_ns"]))
# Under memcheck the sampler is slow, and a process of the workload is
# often scanned as a zombie after its exit record: the race that counted a
# process's whole history twice before the tree counted lifetimes (issue
# 26), the likeliest cause of CI runs that counted taskstats write_bytes
# 31 pages and one page above proc_io's. The counts are exact here too.
fields = ("read_bytes", "write_bytes", "cancelled_write_bytes")
total = {(s, f): ep.total(s, f) for s in ("taskstats", "proc_io") for f in fields}
print("; ".join("%s: taskstats %d, proc_io %d" % (f, total["taskstats", f], total["proc_io", f]) for f in fields))
for f in fields:
    expect(total["taskstats", f] == total["proc_io", f], "%s: taskstats %d, proc_io %d" % (f, total["taskstats", f], total["proc_io", f]))
expect(total["taskstats", "write_bytes"] > 0, "no write_bytes")
expect(ep.total("taskstats", "cpu_run_real_ns") > 0, "no CPU time")
PY
}

# cgroup: the episode's cgroups made, read and removed; probe's trial one
cgroup() {
	episode cg "{cgroup: {interval: 10ms}}" || { echo "exit $?"; quiet_logs; return 1; }
	memcheck probe >/dev/null || { echo "probe: exit $?"; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/cg" <<'PY'
import os
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
expect(ep.manifest["cgroup"]["made"], "no cgroup: %s" % ep.manifest["cgroup"])
expect(not any(os.path.exists(c["path"]) for c in ep.manifest["cgroup"]["cgroups"]), "a cgroup left")
expect(ep.total("cgroup", "cpu_usage_ns") > 0, "no CPU time")
PY
}

# gpu on NVML's test double (tests/e2e/gpu.sh): the probe's child, the
# reader thread, two GPUs of which one is lost midway; and no driver at all.
# GPU 0's link is PCIe 1.0 x1, whose counters take 13 s to wrap: readings
# slowed by memcheck are never too far apart to count
gpu() {
	printf '%s\n' "gpu GPU-00000000-fake-0000-0000-000000000000 Fake_x1 1 1" \
		"gpu GPU-11111111-fake-1111-1111-111111111111 Fake_T4 3 16" \
		"0 pcie_tx 1000 2000 4000000000 4294967000 500" "0 pcie_rx 0 100 200" "0 energy 5000 5100 5700" \
		"0 gpu_util 10 20" "0 mem_util 1" "0 mem_used 1073741824" "0 power 70000" "0 sm_clock 1980" \
		"0 temperature 33" "0 throttle 0 4" "0 proc 1 1000" "1 pcie_tx 7 8" "1 pcie_rx 7 8" \
		"1 power 20000 20000 20000 20000 lost" >"$WORK/nvml.script"
	IOPSAMPLE_TEST_NVML=$BUILD/fixtures/libfake_nvml.so FAKE_NVML_SCRIPT=$WORK/nvml.script \
		episode gpu "{gpu: {interval: 10ms}, proc_io: {interval: 10ms}}" || { echo "exit $?"; quiet_logs; return 1; }
	IOPSAMPLE_TEST_NVML=$BUILD/fixtures/libfake_nvml.so FAKE_NVML_SCRIPT=$WORK/nvml.script \
		memcheck probe >/dev/null || { echo "probe: exit $?"; return 1; }
	episode nogpu "{gpu: {interval: 10ms, required: false}, proc_io: {interval: 10ms}}" || { echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/gpu" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
rows = ep.rows["gpu"]
expect(sum(r["by_device"]["0"]["pcie_tx_bytes"] or 0 for r in rows) == (500 - 2000) % 2**32, "PCIe TX")
expect(rows[-1]["by_device"]["1"]["power_mw"] is None and any("lost" in w for w in ep.manifest["warnings"]), "GPU 1 not lost")
PY
}

syscall_io_unavailable() {
	episode sio "{proc_io: {interval: 10ms}, syscall_io: {interval: 10ms, required: false, backend: ptrace}}" ||
		{ echo "exit $?"; quiet_logs; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/sio" <<'PY'
from epi import expect
s = ep.manifest["sources"]["syscall_io"]
expect(ep.manifest["status"] == "complete", "status")
expect(s["status"] == "unavailable" and "Function not implemented" in s["error"], "syscall_io %s" % s)
PY
}

zstd_and_commands() {
	episode z "{proc_io: {interval: 10ms}, perf_event: {interval: 10ms, events: [page-faults]}}" \
		"{compression: zstd}" || { echo "exit $?"; quiet_logs; return 1; }
	local rows
	rows=$(memcheck cat "$WORK/episodes/z/proc_io.jsonl.zst" | wc -l)
	[ "$rows" -eq "$(zstd -dc "$WORK/episodes/z/proc_io.jsonl.zst" | wc -l)" ] || { echo "cat: $rows rows"; return 1; }
	memcheck validate "$WORK/episodes/z" >/dev/null || { echo "validate: exit $?"; return 1; }
	memcheck summary "$WORK/episodes/z" | grep -q "wchar" || { echo "summary"; return 1; }
	memcheck verdict "$WORK/episodes/z" 2>/dev/null
	[ $? -eq 69 ] || { echo "verdict of an episode without taskstats or cgroup: exit $?"; return 1; }
	memcheck check "$TESTS/fixtures/configs/good/every-key.yaml" >/dev/null || { echo "check: exit $?"; return 1; }
	memcheck check "$TESTS/fixtures/configs/bad/alias-loop.yaml" 2>/dev/null
	[ $? -eq 78 ] || { echo "check of a bad config: exit $?"; return 1; }
	memcheck probe >/dev/null || { echo "probe: exit $?"; return 1; }
	memcheck export "$WORK/episodes/z" --grid 30ms -o "$WORK/z.csv" || { echo "export: exit $?"; return 1; }
	memcheck export --episodes "$WORK/episodes/z" -o "$WORK/z.jsonl" || { echo "export --episodes: exit $?"; return 1; }
	memcheck export "$WORK/episodes/z" --grid 1ms -o "$WORK/x.csv" 2>/dev/null
	[ $? -eq 64 ] || { echo "export with a grid too fine: exit $?"; return 1; }
	local wchar
	wchar=$("$PY" -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["proc_io.wchar"])' "$WORK/z.jsonl")
	[ "$wchar" -eq "$(zstd -dc "$WORK/episodes/z/proc_io.jsonl.zst" | "$PY" -c 'import json, sys; print(sum(json.loads(l)["wchar"] for l in sys.stdin))')" ] ||
		{ echo "export --episodes: wchar $wchar"; return 1; }
	memcheck report "$WORK/episodes/z" -o "$WORK/z.html" || { echo "report: exit $?"; return 1; }
	grep -q '"name":"proc_io"' "$WORK/z.html" || { echo "report: no proc_io in the page"; return 1; }
	memcheck report "$WORK/episodes/z" "$WORK/episodes/z" -o "$WORK/twice.html" 2>/dev/null
	[ $? -eq 64 ] && [ ! -e "$WORK/twice.html" ] || { echo "report of one episode twice: exit $?"; return 1; }
	memcheck schema --columns perf_event --dialect spark "$WORK/episodes/z" | grep -q '`page_faults` BIGINT' ||
		{ echo "schema: no page_faults column"; return 1; }
	memcheck schema --columns perf_event --dialect duckdb 2>/dev/null
	[ $? -eq 64 ] || { echo "schema of perf_event without episodes: exit $?"; return 1; }
	quiet_logs
}

sigterm() {
	cat >"$WORK/term.yaml" <<EOY
episode: {name: term}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "1", --tag, $TAG]}
sources: {proc_io: {interval: 10ms}, perf_event: {interval: 10ms, events: [task-clock]}}
EOY
	"${VALGRIND[@]}" run "$WORK/term.yaml" --quiet & # not the function: $! must be valgrind
	local pid=$!
	wait_for_file "$WORK/episodes/term/proc_io.jsonl" 30 || { echo "no rows"; return 1; }
	sleep 0.5
	kill -TERM $pid
	wait $pid
	local c=$?
	[ $c -eq 143 ] || { echo "exit $c"; quiet_logs; return 1; }
	wait_untagged 5 || { echo "left running: $(tagged)"; return 1; }
	quiet_logs || return 1
	episode_py "$WORK/episodes/term" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "interrupted", "status " + ep.manifest["status"])
PY
}

check proc_io_episode_under_memcheck proc_io procfs
check proc_io_bpf_episode_under_memcheck proc_io bpf
check perf_event_episode_under_memcheck perf_event
check syscall_io_ebpf_episode_under_memcheck syscall_io_ebpf
check taskstats_episode_under_memcheck taskstats netlink
check taskstats_bpf_episode_under_memcheck taskstats bpf
check cgroup_episode_under_memcheck cgroup
check gpu_episode_under_memcheck gpu
check syscall_io_ptrace_unavailable_under_memcheck syscall_io_unavailable
check zstd_and_reading_commands_under_memcheck zstd_and_commands
check sigterm_under_memcheck sigterm
