# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The episode directory: what it holds, and that an existing one is never
# touched (exit 73).
. "$(dirname "$0")/lib/common.sh"

cat >"$WORK/ep.yaml" <<EOY
# a comment that must survive into episode.yaml
episode: {name: once}
target: {command: "echo out; echo err >&2"}
sources:
  proc_io: {interval: 50ms}
EOY

contents() {
	(cd "$WORK/episodes/once" && find . -type f -printf '%p %s %T@\n' | sort && sha256sum ./* | sort)
}

first_run() {
	"$IOPSAMPLE" run "$WORK/ep.yaml" --quiet --set episode.labels.k=v || return
	cd "$WORK/episodes/once" || return
	ls -A | sort | tr '\n' ' ' | grep -qx 'episode.yaml manifest.json proc_io.jsonl target.stderr target.stdout ' ||
		{ echo "files: $(ls -A | tr '\n' ' ')"; return 1; }
	cmp -s episode.yaml "$WORK/ep.yaml" || { echo "episode.yaml differs from the config"; return 1; }
	[ "$(cat target.stdout)" = out ] && [ "$(cat target.stderr)" = err ] || { echo "target output"; return 1; }
	episode_py . <<'PY'
from epi import expect
m = ep.manifest
for key in ("episode", "status", "iopsample_version", "config", "overrides", "labels", "host",
            "t_wall_start_ns", "t_wall_end_ns", "duration_ns", "target", "sources"):
    expect(key in m, "manifest lacks " + key)
for key in ("hostname", "kernel_release", "machine", "cpu_model", "cpu_count", "perf_event_paranoid"):
    expect(key in m["host"], "host lacks " + key)
for key in ("argv", "pid", "exit_code", "signal", "stop_reason"):
    expect(key in m["target"], "target lacks " + key)
for key in ("status", "file", "rows", "interval_ns", "available_in_deployment", "error"):
    expect(key in m["sources"]["proc_io"], "source lacks " + key)
expect(m["status"] == "complete" and m["target"]["exit_code"] == 0, "status")
expect(m["overrides"] == ["episode.labels.k=v"], "overrides %s" % m["overrides"])
expect(m["labels"] == {"k": "v"}, "labels")
import os, subprocess
v = subprocess.run([os.environ["IOPSAMPLE"], "--version"], capture_output=True, text=True).stdout.split()
expect(m["iopsample_version"] == v[1], "the manifest's version %s, --version's %s" % (m["iopsample_version"], v))
expect(m["t_wall_end_ns"] - m["t_wall_start_ns"] >= m["target"]["duration_ns"] > 0, "times")
expect(not any(f.startswith(".") for f in __import__("os").listdir(".")), "temporary file left")
PY
}

exists_untouched() {
	local before after out code
	before=$(contents)
	sleep 0.05
	out=$("$IOPSAMPLE" run "$WORK/ep.yaml" --quiet 2>&1)
	code=$?
	after=$(contents)
	[ $code -eq 73 ] || { echo "exit $code"; return 1; }
	[ "$before" = "$after" ] || { echo "the directory changed"; return 1; }
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "more than one line: $out"; return 1; }
	grep -q "^iopsample: episode directory .*/episodes/once already exists" <<<"$out" || { echo "$out"; return 1; }
}

cannot_create() {
	local out code
	touch "$WORK/not-a-dir"
	out=$("$IOPSAMPLE" run "$WORK/ep.yaml" --quiet --output-dir "$WORK/not-a-dir/sub" 2>&1)
	code=$?
	[ $code -eq 73 ] && grep -q "cannot create output directory" <<<"$out" || { echo "exit $code: $out"; return 1; }
}

check episode_directory_holds_the_contract_files first_run
check existing_episode_directory_exits_73_untouched exists_untouched
check uncreatable_output_directory_exits_73 cannot_create

# stdout: inherit passes the target's output through iopsample's; null
# discards it; neither leaves a file. No sources is a valid episode (a
# baseline run): the manifest and the target's status, no rows.
output_modes() {
	cat >"$WORK/modes.yaml" <<EOY
episode: {name: modes}
target: {command: "echo to-stdout; echo to-stderr >&2", stdout: inherit, stderr: "null"}
EOY
	local out err
	out=$("$IOPSAMPLE" run "$WORK/modes.yaml" --quiet 2>"$WORK/modes.err") || return
	[ "$out" = to-stdout ] || { echo "stdout: $out"; return 1; }
	[ ! -s "$WORK/modes.err" ] || { echo "stderr: $(cat "$WORK/modes.err")"; return 1; }
	[ ! -e "$WORK/episodes/modes/target.stdout" ] && [ ! -e "$WORK/episodes/modes/target.stderr" ] ||
		{ echo "files: $(ls "$WORK/episodes/modes")"; return 1; }
	episode_py "$WORK/episodes/modes" <<'PY'
from epi import expect
expect(ep.manifest["sources"] == {} and ep.manifest["status"] == "complete", "manifest")
PY
}

check target_output_inherit_and_null output_modes
