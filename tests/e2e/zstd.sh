# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# zstd output: a compressed episode holds the rows an uncompressed one does
# (zstd -dc and iopsample cat agree), and a SIGKILL of iopsample at 10 ms
# ticks loses no row that was flushed before it; the target dies with it.
. "$(dirname "$0")/lib/common.sh"

SYSIO=$WORKLOADS/sysio

# The deterministic workload, sampled by every source.
run_sysio() { # name compression
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1}
target: {command: [$SYSIO, --threads, "2", --children, "1", --rounds, "3", --report, $WORK/$1.json]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, instructions]}
output: {compression: $2}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet >/dev/null
}

same_rows() {
	run_sysio plain none && run_sysio packed zstd || return
	local f
	for f in proc_io syscall_io perf_event; do
		"$IOPSAMPLE" cat "$WORK/episodes/packed/$f.jsonl.zst" >"$WORK/$f.cat" || return
		zstd -dcq "$WORK/episodes/packed/$f.jsonl.zst" >"$WORK/$f.zstd" || return
		cmp -s "$WORK/$f.cat" "$WORK/$f.zstd" || { echo "$f: iopsample cat and zstd -dc differ"; return 1; }
		"$IOPSAMPLE" cat "$WORK/episodes/plain/$f.jsonl" | cmp -s - "$WORK/episodes/plain/$f.jsonl" ||
			{ echo "$f.jsonl: iopsample cat changed it"; return 1; }
	done
	# epi.Episode decodes .zst with zstd -dc and checks every row
	"$PY" - "$WORK" <<'PY'
import json, sys
from epi import Episode, expect
w = sys.argv[1]
plain, packed = Episode(w + "/episodes/plain"), Episode(w + "/episodes/packed")
for s in ("proc_io", "syscall_io", "perf_event"):
    a, b = plain.rows[s], packed.rows[s]
    expect(list(a[0]) == list(b[0]), "%s: keys %s vs %s" % (s, list(a[0]), list(b[0])))
    expect(a[-1]["final"] and b[-1]["final"], s + ": final rows")
# the workload does the same syscalls each run: the totals are equal
for f in ("read_calls", "read_bytes", "write_calls", "write_bytes", "error_calls"):
    expect(plain.total("syscall_io", f) == packed.total("syscall_io", f),
           "%s: %d plain, %d zstd" % (f, plain.total("syscall_io", f), packed.total("syscall_io", f)))
for d in ("read", "write"):
    h = [[sum(r[d + "_size_hist"][i] for r in ep.rows["syscall_io"]) for i in range(32)] for ep in (plain, packed)]
    expect(h[0] == h[1] == json.load(open(w + "/packed.json"))[d + "_size_hist"], d + " histograms differ")
print("%d and %d syscall_io rows; equal totals and histograms" % (len(plain.rows["syscall_io"]), len(packed.rows["syscall_io"])))
PY
}
check compressed_episode_decodes_to_the_same_rows same_rows

# Rows iopsample cat can read from a file right now.
rows_now() { "$IOPSAMPLE" cat "$1" 2>/dev/null | wc -l; }
at_least() { [ "$(rows_now "$1")" -ge "$2" ]; }

sigkill() {
	cat >"$WORK/k.yaml" <<EOY
episode: {name: k}
target: {command: [$WORKLOADS/iowork, --threads, "2", --rounds, "100000", --pause-ms, "3", --tag, $TAG]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, task-clock]}
output: {compression: zstd}
EOY
	"$IOPSAMPLE" run "$WORK/k.yaml" --quiet >/dev/null 2>&1 &
	local pid=$! d=$WORK/episodes/k f
	wait_until 20 at_least "$d/syscall_io.jsonl.zst" 150 || { echo "no rows came"; return 1; }
	# what each file holds just before the kill: all of it must survive
	local before=()
	for f in proc_io syscall_io perf_event; do before+=("$(rows_now "$d/$f.jsonl.zst")"); done
	kill -9 $pid
	wait $pid 2>/dev/null
	wait_untagged 5 || { echo "the target outlived iopsample: $(tagged)"; return 1; }
	# the keeper says killed once the tree and its cgroups are gone
	wait_until 5 grep -q '"status": "killed"' "$d/manifest.json" || { echo "the manifest does not say killed"; return 1; }
	"$PY" - "$d" "${before[@]}" <<'PY'
import json, os, subprocess, sys
from epi import expect, schema_validator
d, before = sys.argv[1], [int(n) for n in sys.argv[2:]]
m = json.load(open(d + "/manifest.json"))
expect(m["status"] == "killed", "manifest status " + m["status"])
said = []
for s, had in zip(("proc_io", "syscall_io", "perf_event"), before):
    f = "%s/%s.jsonl.zst" % (d, s)
    cat = subprocess.run([os.environ["IOPSAMPLE"], "cat", f], capture_output=True)
    expect(cat.returncode == 0, "%s: cat exit %d" % (s, cat.returncode))
    rows = [json.loads(l) for l in cat.stdout.decode().splitlines()]
    expect(len(rows) >= had, "%s: %d rows after the kill, %d before" % (s, len(rows), had))
    expect([r["seq"] for r in rows] == list(range(len(rows))), s + ": seq not 0..n-1")
    v = schema_validator(s)
    expect(all(not list(v.iter_errors(r)) for r in rows), s + ": a row fails the schema")
    expect(not any(r["final"] for r in rows), s + ": a final row from a killed run")
    # zstd -dc decodes at least every frame completed: frames end every 100 rows at 10 ms
    z = subprocess.run(["zstd", "-dcq", f], capture_output=True)
    whole = z.stdout.decode().count("\n")
    expect(whole >= len(rows) // 100 * 100, "%s: zstd -dc gave %d rows of %d" % (s, whole, len(rows)))
    tail = cat.stderr.decode().strip()
    said.append("%s %d (%d before the kill, zstd -dc %d%s)" % (s, len(rows), had, whole,
                ", cat: " + tail.split(": ", 2)[-1] if tail else ""))
print("rows recovered: " + "; ".join(said))
PY
}
check sigkill_loses_no_flushed_row sigkill
