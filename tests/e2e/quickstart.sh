# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# README's first command: the bundled quickstart episode runs and records the
# writes it makes, the same in proc_io and syscall_io, and its perf counters;
# its verdict names its phases (computing, O_DIRECT writes read back,
# sleeping) as README's first screen shows them, which says nothing a clone
# does not hold.
. "$(dirname "$0")/lib/common.sh"

quickstart() {
	"$IOPSAMPLE" run "$TESTS/../config/examples/quickstart.yaml" --output-dir "$WORK" --quiet || return
	episode_py "$WORK/quickstart" <<'PY'
from epi import expect
expect(ep.manifest["status"] == "complete", "status")
# dd writes 5 x 64 MiB and dd copies them to /dev/null: 640 MiB, plus
# mktemp's few bytes of output to the shell
w = ep.total("proc_io", "wchar")
expect(640 * 2**20 <= w < 640 * 2**20 + 4096, "wchar %d" % w)
expect(ep.total("proc_io", "syscw") >= 2 * 5 * 1024, "syscw %d" % ep.total("proc_io", "syscw"))  # dd alone
expect(max(r["nprocs"] for r in ep.rows["proc_io"]) >= 2, "never saw dd or cat")
expect(len(ep.rows["proc_io"]) >= 10, "rows")
# The deployable and the oracle source agree: every write of the tree is a
# write(2), so wchar and syscall_io's write_bytes count the same bytes.
s = ep.total("syscall_io", "write_bytes")
expect(s == w, "syscall_io write_bytes %d, proc_io wchar %d" % (s, w))
# perf_event counts the same tree: its software events always count, and
# every event the host cannot count is null in every row with a reason.
rows = ep.rows["perf_event"]
expect(sum(r["page_faults"] for r in rows) > 0 and sum(r["task_clock"] for r in rows) > 0, "perf_event counted nothing")
for e in ep.manifest["sources"]["perf_event"]["events"]:
    expect(e["counted"] == (e["reason"] is None or e["scope"] == "user"), "event %s" % e)
    expect(e["counted"] or all(r[e["field"]] is None for r in rows), "%s: a value for an event not counted" % e["field"])
print("wchar = write_bytes = %d" % w)
PY
	# the verdict as `make run` prints it: summary's runs name each phase
	"$IOPSAMPLE" summary "$WORK/quickstart" >"$WORK/summary.txt" || return 1
	local l
	for l in cpu disk idle; do
		grep -qE "^  [0-9.]+-[0-9.]+ s $l \(" "$WORK/summary.txt" ||
			{ echo "no $l run in the verdict: $(grep -A6 '^verdict' "$WORK/summary.txt")"; return 1; }
	done
}

# README's first screen: the two commands, then a verdict as make run
# prints it; nothing a user reads sends them outside the repository
readme_first_screen() {
	local top=$TESTS/..
	head -n 60 "$top/README.md" >"$WORK/first"
	grep -q '^make run ' "$WORK/first" && grep -q '^make check ' "$WORK/first" || { echo "the two commands"; return 1; }
	grep -q '^verdict, by 100 ms windows' "$WORK/first" && grep -qE '^  [0-9.]+-[0-9.]+ s (cpu|disk|idle) \(' "$WORK/first" ||
		{ echo "no verdict in README's first 60 lines"; return 1; }
	grep -q "sed -n '/^verdict/" "$top/Makefile" || { echo "make run does not print the verdict"; return 1; }
	local refs
	refs=$(grep -rln 'CONTRACT\|\.\./shared' "$top/README.md" "$top/docs"/*.md "$top/man" "$top/python/README.md" 2>/dev/null)
	[ -z "$refs" ] || { echo "sends a user to ../shared: $refs"; return 1; }
	[ "$(wc -l <"$top/README.md")" -le 400 ] || { echo "README is $(wc -l <"$top/README.md") lines"; return 1; }
}

check quickstart_example_runs quickstart
check readme_first_screen_shows_a_verdict readme_first_screen
