# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A disk that fills up mid-episode: exit 74 with one line, the target
# stopped, every file ending with its last whole row, and a manifest that
# says what happened (its space was taken in advance). The disk is a small
# tmpfs this test mounts.
. "$(dirname "$0")/lib/common.sh"

# a fresh 192 KiB disk at $WORK/NAME-disk
disk() { mkdir -p "$WORK/$1-disk" && mount -t tmpfs -o size=192k iopsample-test "$WORK/$1-disk" 2>/dev/null; }
unmount() {
	local m
	for m in "$WORK"/*-disk; do mountpoint -q "$m" && umount -l "$m"; done
	cleanup
}
trap unmount EXIT
if ! disk probe; then
	skip full_disk_plain "cannot mount a tmpfs (needs root)"
	skip full_disk_zstd "cannot mount a tmpfs (needs root)"
	exit 0
fi

# All three sources at 1 ms fill 192 KiB within a second or two; the target
# would sleep for a minute.
fill() { # name compression
	disk "$1" || { echo "cannot mount a tmpfs"; return 1; }
	local DISK=$WORK/$1-disk
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, output_dir: $DISK}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --sleepers, "1", --tag, $TAG]}
sources:
  proc_io: {interval: 1ms}
  syscall_io: {interval: 1ms}
  perf_event: {interval: 1ms, events: [task-clock, page-faults]}
output: {compression: $2}
EOY
	timeout 60 "$IOPSAMPLE" run "$WORK/$1.yaml" --quiet 2>"$WORK/$1.err"
	local c=$?
	[ $c -eq 74 ] || { echo "exit $c: $(cat "$WORK/$1.err")"; return 1; }
	[ "$(wc -l <"$WORK/$1.err")" -eq 1 ] &&
		grep -Eq '^iopsample: source [a-z_]+ failed: [a-z_]+\.jsonl(\.zst)?: No space left on device$' "$WORK/$1.err" ||
		{ echo "stderr: $(cat "$WORK/$1.err")"; return 1; }
	wait_untagged 2 || { echo "left running: $(tagged)"; return 1; }
	[ ! -e "$DISK/$1/.manifest.json.spare" ] || { echo "the manifest's spare was left behind"; return 1; }
	# epi checks every row and that the files hold what the manifest counts,
	# and iopsample validate agrees
	episode_py "$DISK/$1" "$IOPSAMPLE" <<'PY'
import subprocess
from epi import expect
m = ep.manifest
expect(m["status"] == "failed", "status " + m["status"])
expect(m["target"]["stop_reason"] == "collector_failed", "stop_reason %s" % m["target"]["stop_reason"])
# stop_signal, or SIGKILL when syscall_io's tracer was the one the disk stopped
expect(m["target"]["signal"] in ("SIGTERM", "SIGKILL"), "target ended by %s" % m["target"]["signal"])
full = [n for n, s in m["sources"].items() if s["status"] == "failed"]
expect(full, "no source failed")
for n in full:
    s = m["sources"][n]
    expect(s["error"] == s["file"] + ": No space left on device", "%s: error %s" % (n, s["error"]))
    expect(s["rows"] >= 10, "%s: only %d rows before the disk filled" % (n, s["rows"]))
    expect(not any(r["final"] for r in ep.rows[n]), n + ": a final row")
# what iopsample cat reads back is the same, and says nothing for a clean cut
for n, s in m["sources"].items():
    c = subprocess.run([sys.argv[2], "cat", ep.dir + "/" + s["file"]], capture_output=True)
    expect(c.returncode == 0, "%s: cat exit %d" % (n, c.returncode))
    expect(len(c.stdout.splitlines()) == s["rows"], "%s: cat gives %d rows, the manifest %d"
           % (n, len(c.stdout.splitlines()), s["rows"]))
    if s["file"].endswith(".jsonl"):
        expect(c.stderr == b"", "%s: cat says %s" % (n, c.stderr))
print("rows: " + ", ".join("%s %d%s" % (n, s["rows"], " (failed)" if n in full else "")
                           for n, s in m["sources"].items()))
PY
}

check full_disk_plain fill plain none
check full_disk_zstd fill packed zstd
