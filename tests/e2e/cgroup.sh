# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The episode's own cgroup and the cgroup source: memory, CPU and block I/O
# against a workload that counts what it does, pressure, a daemon that
# leaves the process tree, the cgroups removed on every path (SIGKILL of
# iopsample included, by the next probe), episode.cgroup: off and a host
# where no cgroup can be made, and an attached process's own cgroups.
#
# No test leaves a cgroup behind: the cgroups each episode made are checked
# gone, and whatever iopsample-* cgroup of this script's episodes is left
# is removed at exit, pass or fail.
. "$(dirname "$0")/lib/common.sh"

CGWORK=$WORKLOADS/cgwork
IMG=$WORK/disk.img
LOOP_FILE=$WORK/loop

cg_cleanup() {
	local d
	# the episodes' names all start with cgt-
	for d in $(find /sys/fs/cgroup -maxdepth 4 -type d -name 'iopsample-cgt-*' 2>/dev/null); do
		rmdir "$d" 2>/dev/null
	done
	[ -s "$LOOP_FILE" ] && losetup -d "$(cat "$LOOP_FILE")" 2>/dev/null
	cleanup
}
trap cg_cleanup EXIT

loop_device() {
	[ -s "$LOOP_FILE" ] && return 0
	truncate -s 64M "$IMG" && losetup -f --show "$IMG" >"$LOOP_FILE"
}

# episode NAME SOURCES_YAML COMMAND...
episode() {
	local name=$1 sources=$2
	shift 2
	local argv
	argv=$(printf '"%s", ' "$@")
	cat >"$WORK/$name.yaml" <<EOY
episode: {name: $name, output_dir: $WORK/episodes}
target: {command: [${argv%, }], stdout: file}
sources: $sources
EOY
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet
}

# the cgroups an episode made are gone
cgroups_gone() { # EPISODE_DIR
	episode_py "$1" <<'PY'
import os
from epi import expect
cg = ep.manifest["cgroup"]
left = [c["path"] for c in cg["cgroups"] if os.path.exists(c["path"])]
expect(not left, "cgroups left behind: %s" % left)
PY
}

uses() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	loop_device || return 1
	local dev
	dev=$(cat "$LOOP_FILE")
	episode cgt-use "{cgroup: {interval: 20ms, devices: [$(basename "$dev")]}}" \
		"$CGWORK" use 64 "$dev" 4194304 || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-use" <<'PY' || return 1
from epi import expect
w = ep.target_report()
rows = ep.rows["cgroup"]
s = ep.manifest["sources"]["cgroup"]
cg = ep.manifest["cgroup"]
expect(cg["made"] and not cg["attached"] and cg["setting"] == "auto", "cgroup %s" % cg)
expect(all("iopsample-cgt-use@" in c["path"] for c in cg["cgroups"]), "names %s" % cg["cgroups"])
anon = max(r["anon_bytes"] for r in rows)
expect(abs(anon - w["anon_bytes"]) <= 1 << 20, "anon_bytes peaked at %d, the workload touched %d" % (anon, w["anon_bytes"]))
cpu = ep.total("cgroup", "cpu_usage_ns")
expect(abs(cpu - w["cpu_ns"]) <= 0.05 * w["cpu_ns"], "cpu_usage_ns %d, the tree's getrusage %d" % (cpu, w["cpu_ns"]))
wrote = ep.total("cgroup", "io_write_bytes")
expect(wrote == w["written"], "io_write_bytes %d, the workload wrote %d with O_DIRECT (%s)" % (wrote, w["written"], s["io_counted_by"]))
dev = list(rows[0]["by_device"])[0]
expect(sum(r["by_device"][dev]["write_bytes"] for r in rows) == wrote, "by_device")
# tasks: the workload's main thread, its 3 burners and its child at once
expect(max(r["nprocs"] for r in rows) == 5, "nprocs up to %d, the workload ran 5 tasks at once" % max(r["nprocs"] for r in rows))
expect(max(r["memory_peak_bytes"] for r in rows) >= anon, "memory_peak_bytes below anon_bytes")
print("anon_bytes up to %d of %d touched; cpu_usage_ns %d, getrusage %d; io_write_bytes %d as written, by %s; peak %s"
      % (anon, w["anon_bytes"], cpu, w["cpu_ns"], wrote, s["io_counted_by"], s["memory_peak"]))
PY
	cgroups_gone "$WORK/episodes/cgt-use"
}

# more runnable threads than CPUs wait for one: the cgroup's own pressure
pressure() {
	local threads=$(($(nproc) + 1))
	episode cgt-spin "{cgroup: {interval: 50ms}}" "$CGWORK" spin $threads 400 ||
		{ echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-spin" <<'PY' || return 1
from epi import expect
s = ep.manifest["sources"]["cgroup"]
some = ep.total("cgroup", "cpu_some_ns")
expect(s["pressure_scope"] in ("cgroup", "system"), "pressure_scope %s" % s["pressure_scope"])
expect(some > 0, "cpu_some_ns 0 with %d threads spinning on fewer CPUs" % ep.target_report()["threads"])
print("%d threads: cpu_some_ns %d (%s pressure)" % (ep.target_report()["threads"], some, s["pressure_scope"]))
PY
	cgroups_gone "$WORK/episodes/cgt-spin"
}

# A daemon double-forks away from the target and writes 1 MiB once its
# parent is gone; the target exits, leaving it: the cgroup counts its bytes,
# and it is stopped at the end as any leftover is.
daemon() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	loop_device || return 1
	local dev
	dev=$(cat "$LOOP_FILE")
	episode cgt-daemon "{cgroup: {interval: 20ms, devices: [$(basename "$dev")]}, proc_io: {interval: 20ms}}" \
		"$CGWORK" daemon "$dev" 1048576 "$WORK/hold" || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-daemon" <<'PY' || return 1
from epi import expect
w = ep.target_report()
t = ep.manifest["target"]
wrote = ep.total("cgroup", "io_write_bytes")
expect(wrote == w["daemon_written"], "io_write_bytes %d, the daemon wrote %d" % (wrote, w["daemon_written"]))
expect(t["leftover_processes"] >= 1 and any("left 1 process" in x for x in ep.manifest["warnings"]),
       "the daemon was not reported: %s %s" % (t["leftover_processes"], ep.manifest["warnings"]))
print("the daemon wrote %d after its parent exited: io_write_bytes %d; %d leftover stopped" % (w["daemon_written"], wrote, t["leftover_processes"]))
PY
	[ "$(alive_named cgwork)" = 0 ] || { echo "the daemon still runs"; return 1; }
	cgroups_gone "$WORK/episodes/cgt-daemon"
}

# A target whose tree has a daemon that left it (its own session, adopted
# by the keeper) but not the episode's cgroup; every process tagged.
daemon_target() { # name
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, output_dir: $WORK/episodes}
target:
  command: [sh, -c, "setsid bash -c 'exec -a daemon-$TAG sleep 300' & exec $IOWORK --sleep-ms 30000 --tag $TAG"]
sources: {cgroup: {interval: 50ms}}
EOY
}

# Starts the episode in a process group of its own, and prints the
# cgroups it made once the daemon runs.
start_daemon_episode() { # name
	# (its output to a file: a command substitution would wait for it)
	setsid "$IOPSAMPLE" run "$WORK/$1.yaml" --quiet >"$WORK/$1.out" 2>&1 &
	wait_until 5 grep -q "iopsample-$1" "$WORK/episodes/$1/manifest.json" 2>/dev/null ||
		{ echo "no cgroup in the manifest" >&2; return 1; }
	wait_until 5 pgrep -f "daemon-$TAG" >/dev/null || { echo "no daemon" >&2; return 1; }
	"$PY" -c 'import json, sys; print(" ".join(c["path"] for c in json.load(open(sys.argv[1]))["cgroup"]["cgroups"]))' \
		"$WORK/episodes/$1/manifest.json"
}

cgroups_gone_by_path() { # PATH...
	local p
	for p in "$@"; do [ ! -d "$p" ] || return 1; done
}

# A harness SIGKILLs iopsample's process group (timeout -s KILL, a CI
# teardown): the keeper, in a session of its own, sees it die, kills the
# tree and what its cgroups hold (the daemon that left the tree), and
# removes them, within 2 s; then the manifest says killed, and validate
# says what that means.
says_killed() { grep -q '"status": "killed"' "$1"; }
group_kill() {
	daemon_target cgt-group
	local paths sup out
	paths=$(start_daemon_episode cgt-group) || return 1
	sup=$(pgrep -o -f "run $WORK/cgt-group.yaml")
	kill -KILL -- "-$(ps -o pgid= -p "$sup" | tr -d ' ')"
	wait_untagged 2 || { echo "left running after 2 s: $(tagged)"; return 1; }
	wait_until 2 cgroups_gone_by_path $paths || { echo "cgroups left after 2 s: $paths"; return 1; }
	wait_until 2 says_killed "$WORK/episodes/cgt-group/manifest.json" ||
		{ echo "the manifest does not say killed: $(grep '"status"' "$WORK/episodes/cgt-group/manifest.json" | head -1)"; return 1; }
	out=$("$IOPSAMPLE" validate "$WORK/episodes/cgt-group" 2>&1) && { echo "validate passed a killed episode"; return 1; }
	grep -q "manifest.json: status is killed: iopsample was killed mid-episode" <<<"$out" || { echo "validate: $out"; return 1; }
	echo "a group SIGKILL: the target, the daemon and $(wc -w <<<"$paths") cgroups gone; the manifest says killed"
}

stopped() { ! ps -o stat= -p "$(echo "$@" | tr ' ' ,)" | grep -qv '^T'; }

# iopsample and its keeper SIGKILLed at once: the daemon stays in the
# cgroups; the next probe sees their iopsample gone (no process of that
# pid and start time), kills what they hold and removes them. "At once":
# both stopped first, so that neither sees the other die (the keeper that
# outlives its iopsample by a moment kills the cgroups' processes itself,
# and then there is nothing left to test).
stale() {
	daemon_target cgt-stale
	local paths sup keeper
	paths=$(start_daemon_episode cgt-stale) || return 1
	sup=$(pgrep -o -f "run $WORK/cgt-stale.yaml")
	keeper=$(pgrep -P "$sup" -x iops-keeper)
	[ -n "$keeper" ] || { echo "no keeper"; return 1; }
	kill -STOP "$sup" "$keeper"
	wait_until 2 stopped "$sup" "$keeper" ||
		{ kill -KILL "$sup" "$keeper"; echo "iopsample and its keeper did not stop"; return 1; }
	kill -KILL "$sup" "$keeper"
	wait_until 2 pgrep -f "daemon-$TAG" >/dev/null || { echo "the daemon went with them: nothing to test"; return 1; }
	local p
	for p in $paths; do [ -d "$p" ] || { echo "$p went with iopsample: nothing to test"; return 1; }; done
	"$IOPSAMPLE" probe >"$WORK/probe.json" || { echo "probe: exit $?"; return 1; }
	cgroups_gone_by_path $paths || { echo "left after probe: $paths"; return 1; }
	wait_untagged 2 || { echo "the daemon outlived the sweep"; return 1; }
	"$PY" - "$WORK/probe.json" $paths <<'PY'
import json, sys
removed = json.load(open(sys.argv[1]))["cgroups"]["removed_stale"]
assert sorted(removed) == sorted(sys.argv[2:]), (removed, sys.argv[2:])
print("probe killed the daemon and removed %d stale cgroups" % len(removed))
PY
}

# Starts episode NAME ($WORK/NAME.yaml) in the background, its pid in BG,
# and waits up to 5 s for its manifest to hold PATTERN.
start_bg() { # name pattern
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet >"$WORK/$1.out" 2>&1 &
	BG=$!
	wait_until 5 grep -q "$2" "$WORK/episodes/$1/manifest.json" 2>/dev/null && return 0
	echo "the manifest never held $2"
	kill $BG 2>/dev/null
	wait $BG
	return 1
}

# What a Python expression over an episode's manifest (m) prints.
manifest_get() { # name expression
	"$PY" -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$WORK/episodes/$1/manifest.json" "$2"
}

# A wall clock stepped forward (NTP, a resumed VM) makes a running
# episode's cgroups look an hour old: their directories touched back an
# hour while the episode runs. A probe meanwhile still finds their
# iopsample by its pid, start time and pid namespace, removes nothing, and
# the target runs to its end.
clock_step() {
	cat >"$WORK/cgt-step.yaml" <<EOY
episode: {name: cgt-step, output_dir: $WORK/episodes}
target: {command: [sh, -c, "sleep 3; echo survived"], stdout: file}
sources: {cgroup: {interval: 50ms}}
EOY
	start_bg cgt-step "iopsample-cgt-step" || return 1
	local paths rc
	paths=$(manifest_get cgt-step '" ".join(c["path"] for c in m["cgroup"]["cgroups"])')
	touch -m -d '-1 hour' $paths || { wait $BG; return 1; }
	"$IOPSAMPLE" probe >"$WORK/step-probe.json" || { echo "probe: exit $?"; wait $BG; return 1; }
	wait $BG
	rc=$?
	[ $rc = 0 ] || { echo "run: exit $rc: $(cat "$WORK/cgt-step.out")"; return 1; }
	episode_py "$WORK/episodes/cgt-step" "$WORK/step-probe.json" $paths <<'PY'
import json
from epi import expect
removed = json.load(open(sys.argv[2]))["cgroups"]["removed_stale"]
expect(not set(removed) & set(sys.argv[3:]), "probe removed the running episode's %s" % removed)
t = ep.manifest["target"]
expect(t["exit_code"] == 0 and t["signal"] is None, "target %s" % t)
out = open(ep.dir + "/target.stdout").read()
expect(out == "survived\n", "the target printed %r" % out)
expect(not ep.manifest["warnings"], "warnings %s" % ep.manifest["warnings"])
print("%d cgroups touched back an hour; probe removed none of them; the target printed survived" % len(sys.argv[3:]))
PY
}

# A target that a signal iopsample did not send ended (here SIGKILL from
# this test): the manifest warns; one its duration stopped does not.
unsent_signal() {
	cat >"$WORK/cgt-unsent.yaml" <<EOY
episode: {name: cgt-unsent, output_dir: $WORK/episodes}
target: {command: [$IOWORK, --sleep-ms, "30000", --tag, $TAG]}
sources: {cgroup: {interval: 50ms}}
EOY
	cat >"$WORK/cgt-planned.yaml" <<EOY
episode: {name: cgt-planned, output_dir: $WORK/episodes, duration: 300ms}
target: {command: [$IOWORK, --sleep-ms, "30000", --tag, $TAG]}
sources: {cgroup: {interval: 50ms}}
EOY
	start_bg cgt-unsent '"pid": [1-9]' || return 1
	local rc
	kill -KILL "$(manifest_get cgt-unsent 'm["target"]["pid"]')"
	wait $BG
	rc=$?
	[ $rc = 137 ] || { echo "run: exit $rc, not 128 + SIGKILL"; return 1; }
	"$IOPSAMPLE" run "$WORK/cgt-planned.yaml" --quiet || { echo "planned: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-unsent" "$WORK/episodes/cgt-planned" <<'PY'
import epi
from epi import expect
w = [x for x in ep.manifest["warnings"] if "which iopsample did not send" in x]
expect(ep.manifest["target"]["signal"] == "SIGKILL" and len(w) == 1 and "SIGKILL" in w[0],
       "target %s, warnings %s" % (ep.manifest["target"], ep.manifest["warnings"]))
planned = epi.Episode(sys.argv[2]).manifest
expect(planned["target"]["stop_reason"] == "duration" and
       not any("did not send" in x for x in planned["warnings"]), "planned: %s" % planned["warnings"])
print("killed from outside: %s; stopped at its duration: no such warning" % w[0])
PY
}

# No cgroup for the episode: the source is unavailable, with the reason;
# exit 77 only when it is required.
off() {
	cat >"$WORK/cgt-off.yaml" <<EOY
episode: {name: cgt-off, output_dir: $WORK/episodes, cgroup: off}
target: {command: [true]}
sources: {cgroup: {required: false}, proc_io: {}}
EOY
	"$IOPSAMPLE" run "$WORK/cgt-off.yaml" --quiet || { echo "optional: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-off" <<'PY' || return 1
from epi import expect
s, cg = ep.manifest["sources"]["cgroup"], ep.manifest["cgroup"]
expect(s["status"] == "unavailable" and "episode.cgroup is off" in s["error"], "cgroup source %s" % s)
expect(not cg["made"] and cg["cgroups"] == [] and cg["setting"] == "off", "cgroup %s" % cg)
expect(ep.manifest["config"]["episode"]["cgroup"] == "off", "config")
PY
	local out rc
	sed -i 's/cgroup: {required: false}/cgroup: {}/; s/name: cgt-off,/name: cgt-off2,/' "$WORK/cgt-off.yaml"
	out=$("$IOPSAMPLE" run "$WORK/cgt-off.yaml" 2>&1)
	rc=$?
	[ $rc = 77 ] && [[ "$out" == *"cgroup"*"episode.cgroup is off"* ]] && [ ! -e "$WORK/episodes/cgt-off2" ] ||
		{ echo "required: exit $rc: $out"; return 1; }
}

nobody() {
	local dir out rc
	dir=$(unprivileged_dir cgnobody) || return 1
	cat >"$dir/n.yaml" <<EOY
episode: {name: cgt-nobody, output_dir: $dir/episodes}
target: {command: [true]}
sources: {cgroup: {required: false}, proc_io: {}}
EOY
	as_nobody "$dir/iopsample" run "$dir/n.yaml" --quiet || { echo "optional: exit $?"; return 1; }
	episode_py "$dir/episodes/cgt-nobody" <<'PY' || return 1
from epi import expect
s, cg = ep.manifest["sources"]["cgroup"], ep.manifest["cgroup"]
expect(s["status"] == "unavailable" and "no cgroup" in s["error"], "cgroup source %s" % s)
expect(not cg["made"] and any("Permission denied" in v for v in cg["missing"].values()), "cgroup %s" % cg)
print("as nobody: %s" % s["error"])
PY
	sed -i 's/cgroup: {required: false}/cgroup: {}/; s/name: cgt-nobody,/name: cgt-nobody2,/' "$dir/n.yaml"
	out=$(as_nobody "$dir/iopsample" run "$dir/n.yaml" 2>&1)
	rc=$?
	[ $rc = 77 ] && [ ! -e "$dir/episodes/cgt-nobody2" ] || { echo "required: exit $rc: $out"; return 1; }
}

# target.pid: nothing made or moved; the process's own cgroups are read
# (the process holds none of check's output: check would wait for it)
attached() {
	"$IOWORK" --sleep-ms 30000 --tag "$TAG" >/dev/null 2>&1 &
	local victim=$!
	cat >"$WORK/cgt-att.yaml" <<EOY
episode: {name: cgt-att, output_dir: $WORK/episodes, duration: 300ms}
target: {pid: $victim}
sources: {cgroup: {interval: 50ms}}
EOY
	"$IOPSAMPLE" run "$WORK/cgt-att.yaml" --quiet || { echo "run: exit $?"; return 1; }
	kill -0 $victim 2>/dev/null || { echo "the attached process did not survive"; return 1; }
	kill $victim
	episode_py "$WORK/episodes/cgt-att" "$victim" <<'PY'
from epi import expect
cg, s = ep.manifest["cgroup"], ep.manifest["sources"]["cgroup"]
expect(cg["attached"] and cg["setting"] == "attached" and not cg["made"], "cgroup %s" % cg)
expect(all("iopsample-" not in c["path"] for c in cg["cgroups"]), "it made one: %s" % cg["cgroups"])
expect(s["status"] == "ok" and len(ep.rows["cgroup"]) >= 4, "source %s" % s)
expect(s["memory_peak"] == "the current value" or "unified" in str(s["read_from"].get("memory_peak_bytes")),
       "it reset the peak of a cgroup not its own: %s" % s["memory_peak"])
PY
}

# A move that fails part way (here the v1 cpu cgroup refuses a SCHED_FIFO
# target, its new cgroup having no RT runtime, after the v2 one took it):
# the target goes back where it came from in every hierarchy, the episode
# runs without a cgroup, with the reason, and none is left.
half_move() {
	cat >"$WORK/cgt-half.yaml" <<EOY
episode: {name: cgt-half, output_dir: $WORK/episodes}
target: {command: [sh, -c, "cat /proc/\$\$/cgroup >$WORK/half.cgroups"]}
sources: {proc_io: {interval: 20ms}}
EOY
	chrt -f 1 "$IOPSAMPLE" run "$WORK/cgt-half.yaml" --quiet || { echo "run: exit $?"; return 1; }
	episode_py "$WORK/episodes/cgt-half" "$WORK/half.cgroups" <<'PY' || return 1
from epi import expect
cg = ep.manifest["cgroup"]
expect(cg["made"] is False and "could not be moved into" in cg["reason"], "cgroup %s" % cg)
inside = [l.strip() for l in open(sys.argv[2]) if "iopsample-" in l]
expect(not inside, "the target ran in the episode's cgroups: %s" % inside)
PY
	cgroups_gone "$WORK/episodes/cgt-half" || return 1
	[ -z "$(find /sys/fs/cgroup -maxdepth 4 -type d -name 'iopsample-cgt-half-*')" ] || { echo "a cgroup left"; return 1; }
}

check cgroup_counts_memory_cpu_and_io_as_the_workload_did uses
check cgroup_pressure_of_more_threads_than_cpus pressure
check cgroup_counts_a_daemon_that_left_the_tree daemon
check cgroup_and_daemon_gone_after_a_group_sigkill group_kill
check cgroup_left_by_a_killed_iopsample_and_keeper_is_killed_and_removed_by_probe stale
check cgroup_of_a_running_episode_survives_a_wall_clock_step clock_step
check target_ended_by_a_signal_iopsample_did_not_send_is_warned_of unsent_signal
check cgroup_off_makes_the_source_unavailable off
check cgroup_unavailable_where_none_can_be_made nobody
check cgroup_of_an_attached_process_is_read_not_made attached
if [ -e /sys/fs/cgroup/unified/cgroup.procs ] && [ -e /sys/fs/cgroup/cpu/cpu.rt_runtime_us ]; then
	check cgroup_half_moved_target_goes_back_and_none_is_left half_move
else
	skip cgroup_half_moved_target_goes_back_and_none_is_left "needs a v2 hierarchy beside a v1 cpu one with RT group scheduling"
fi
