# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# target.pid: sample a process iopsample did not start, and leave it running;
# end on the stop request; attached to its own ancestor, never count itself.
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
	# it works, and exits, only once the episode started: a start slower
	# than its life (a sanitizer's) would find no process to attach to
	bash -c 'until grep -q "\"t_wall_start_ns\": [0-9]" "$1" 2>/dev/null; do sleep 0.01; done
		 exec "$2" --rounds 30 --pause-ms 10 --tag "$3"' - "$WORK/episodes/short/manifest.json" \
		"$IOWORK" "$TAG" >"$WORK/short.out" &
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

# A harness that attaches iopsample to itself (a shell here, Python's
# iopsample.profile() likewise): iopsample runs below the process it
# samples, and its own work, writing the rows, must not count. The shell
# starts iowork, which reports what it did; the stop request ends the
# episode, complete. Each source that follows the tree, both backends.
attached_to_its_ancestor() {
	local backend=$1
	cat >"$WORK/harness.sh" <<EOS
cat >"$WORK/self.yaml" <<EOY
episode: {name: self-$backend, output_dir: $WORK/episodes}
target: {pid: \$\$}
sources: {proc_io: {interval: 10ms}, syscall_io: {interval: 10ms, backend: $backend},
          taskstats: {interval: 10ms}, perf_event: {interval: 10ms, events: [task-clock]}}
EOY
"$IOPSAMPLE" run "$WORK/self.yaml" --quiet &
ip=\$!
until grep -q '"t_wall_start_ns": [0-9]' "$WORK/episodes/self-$backend/manifest.json" 2>/dev/null; do sleep 0.01; done
"$IOWORK" --rounds 30 --pause-ms 5 --threads 2 --children 1 --tag $TAG >"$WORK/iowork-$backend.out"
kill -USR1 \$ip
wait \$ip
EOS
	bash "$WORK/harness.sh" || { echo "exit $?"; return 1; }
	episode_py "$WORK/episodes/self-$backend" "$WORK/iowork-$backend.out" <<'PY'
import json, sys
from epi import expect
did = json.load(open(sys.argv[2]))
m = ep.manifest
expect(m["status"] == "complete" and m["target"]["stop_reason"] == "requested", "%s %s" % (m["status"], m["target"]))
expect(all(s["status"] == "ok" for s in m["sources"].values()), "sources %s" % m["sources"])
def total(src, f):
    return sum(r[f] for r in ep.rows[src])
# the shell's writes: none (iowork's output goes straight to its file)
for f in ("wchar", "syscw"):
    expect(total("proc_io", f) == did[f], "proc_io %s %d, iowork %d" % (f, total("proc_io", f), did[f]))
expect(total("syscall_io", "write_bytes") == did["wchar"] and total("syscall_io", "write_calls") == did["syscw"],
       "syscall_io %d B in %d calls, iowork %d in %d" % (total("syscall_io", "write_bytes"),
       total("syscall_io", "write_calls"), did["wchar"], did["syscw"]))
expect(total("taskstats", "write_bytes") == total("proc_io", "write_bytes"), "taskstats write_bytes")
# the shell, iowork, its child and grandchild at most: never iopsample's processes
expect(max(r["nprocs"] for r in ep.rows["proc_io"]) <= 4, "nprocs %d" % max(r["nprocs"] for r in ep.rows["proc_io"]))
PY
}

check attach_samples_and_leaves_the_process_running attach_and_leave_running
check attached_to_its_own_ancestor_counts_not_itself_ebpf attached_to_its_ancestor ebpf
check attached_to_its_own_ancestor_counts_not_itself_ptrace attached_to_its_ancestor ptrace
check attach_ends_when_the_process_exits attached_process_exits
