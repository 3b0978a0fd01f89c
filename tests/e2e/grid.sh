# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Samples fall on origin + k * interval: at 10 ms over 3 s, the k-th row is
# the k-th grid tick, missed ticks aside, and no two rows share one. How
# late after its tick each sample was taken is the host's wake-up latency,
# not the program's: printed, not judged.
. "$(dirname "$0")/lib/common.sh"

cat >"$WORK/grid.yaml" <<EOY
episode: {name: grid}
target: {command: [$IOWORK, --rounds, "30", --pause-ms, "100"]}
sources:
  proc_io: {interval: 10ms}
EOY

grid() {
	"$IOPSAMPLE" run "$WORK/grid.yaml" --quiet || return
	episode_py "$WORK/episodes/grid" <<'PY'
from epi import expect
I = 10_000_000
src = ep.manifest["sources"]["proc_io"]
rows = [r for r in ep.rows["proc_io"] if not r["final"]]
expect(len(rows) >= 250, "only %d rows in 3 s" % len(rows))
# the tick a row belongs to, and how late after it the sample was taken
ticks = [r["t_mono_ns"] // I for r in rows]
late = sorted(r["t_mono_ns"] - k * I for r, k in zip(rows, ticks))
p99 = late[int(len(late) * 0.99)]
# no drift: the k-th row is the k-th tick, missed ticks aside
expect(ticks[-1] == len(rows) + src["missed_ticks"],
       "last row at tick %d after %d rows and %d missed ticks" % (ticks[-1], len(rows), src["missed_ticks"]))
expect(len(set(ticks)) == len(ticks), "two rows on one tick")
expect(ep.rows["proc_io"][-1]["t_mono_ns"] <= ep.manifest["duration_ns"], "final row after the end")
print("grid offset at 10 ms: p50 %.3f ms, p99 %.3f ms, max %.3f ms; %d rows, %d missed ticks" % (
    late[len(late) // 2] / 1e6, p99 / 1e6, late[-1] / 1e6, len(rows), src["missed_ticks"]))
PY
}

check samples_stay_on_the_10ms_grid grid

# A sample that runs late (here: its sampler stopped for 150 ms) is one row
# with a wide interval_ns; the rows after it are back on the grid.
late_widens() {
	cat >"$WORK/late.yaml" <<EOY
episode: {name: late}
target: {command: [$IOWORK, --rounds, "10", --pause-ms, "100"]}
sources:
  proc_io: {interval: 10ms}
EOY
	"$IOPSAMPLE" run "$WORK/late.yaml" --quiet &
	local pid=$! sampler
	wait_for_file "$WORK/episodes/late/proc_io.jsonl" || { echo "no rows"; return 1; }
	sleep 0.2
	sampler=$(pgrep -P $pid -x iops-proc_io)
	kill -STOP "$sampler"
	sleep 0.15
	kill -CONT "$sampler"
	wait $pid || return
	episode_py "$WORK/episodes/late" <<'PY'
from epi import expect
I = 10_000_000
src = ep.manifest["sources"]["proc_io"]
rows = [r for r in ep.rows["proc_io"] if not r["final"]]
wide = [i for i, r in enumerate(rows) if r["interval_ns"] > 5 * I]
expect(len(wide) == 1, "%d wide rows" % len(wide))
w = rows[wide[0]]
expect(src["missed_ticks"] >= 10, "missed_ticks %d" % src["missed_ticks"])
expect(w["interval_ns"] >= 140_000_000, "the late row covers %d ns" % w["interval_ns"])
after = rows[wide[0] + 1:]
# a shifted grid would put every later row the same few ms behind its tick
late_after = sorted(r["t_mono_ns"] % I for r in after)
expect(late_after[len(late_after) // 2] < 1_000_000,
       "the grid moved: rows after the stall are %.3f ms late (median)" % (late_after[len(late_after) // 2] / 1e6))
ticks = [r["t_mono_ns"] // I for r in rows]
expect(ticks[-1] == len(rows) + src["missed_ticks"], "grid index %d, rows %d, missed %d" % (ticks[-1], len(rows), src["missed_ticks"]))
# the manifest names it, and every row wider than 3 intervals, as the
# sampler's late start (SIGSTOP), not its reading
named = {x["seq"]: x for x in src["wide_rows"]["rows"]}
over = [r["seq"] for r in ep.rows["proc_io"] if r["interval_ns"] > 3 * I]
expect(src["wide_rows"]["count"] == len(over) and sorted(named) == over, "wide_rows %s; rows over 3 intervals %s" % (
    src["wide_rows"], over))
expect(named[w["seq"]]["why"] == "scheduling" and named[w["seq"]]["interval_ns"] == w["interval_ns"],
       "the stalled row: %s" % named[w["seq"]])
print("a 150 ms stall: one row of %.1f ms, %d missed ticks, next row %.3f ms after its grid point; wide_rows %s" % (
    w["interval_ns"] / 1e6, src["missed_ticks"], (after[0]["t_mono_ns"] % I) / 1e6, named[w["seq"]]))
PY
}

# A row whose reading takes 3 intervals (IOPSAMPLE_TEST_SLOW_ROW, a test
# setting: the sampler sleeps 4 intervals in row 5's reading): the row after it is
# wide, and the manifest says it is the reading's
slow_reading() {
	cat >"$WORK/slow.yaml" <<EOY
episode: {name: slow}
target: {command: [$IOWORK, --rounds, "10", --pause-ms, "50"]}
sources:
  proc_io: {interval: 10ms}
  taskstats: {interval: 10ms}
EOY
	IOPSAMPLE_TEST_SLOW_ROW=proc_io:5 "$IOPSAMPLE" run "$WORK/slow.yaml" --quiet || return
	episode_py "$WORK/episodes/slow" <<'PY'
from epi import expect
I = 10_000_000
src = ep.manifest["sources"]["proc_io"]
rows = ep.rows["proc_io"]
named = {x["seq"]: x for x in src["wide_rows"]["rows"]}
over = [r["seq"] for r in rows if r["interval_ns"] > 3 * I]
expect(6 in over and src["wide_rows"]["count"] == len(over) and sorted(named) == over, "wide_rows %s; over 3 intervals %s" % (
    src["wide_rows"], over))
expect(named[6]["why"] == "reading" and named[6]["busy_ns"] >= 3 * I and named[6]["interval_ns"] == rows[6]["interval_ns"],
       "row 6: %s" % named[6])
# the setting is proc_io's alone
other = ep.manifest["sources"]["taskstats"]
wide = [r["seq"] for r in ep.rows["taskstats"] if r["interval_ns"] > 3 * I]
expect(other.get("wide_rows", {"count": 0})["count"] == len(wide), "taskstats: %s, rows %s" % (other.get("wide_rows"), wide))
print("row 6: %s" % named[6])
PY
}

check a_late_sample_widens_interval_not_the_grid late_widens
check a_wide_row_is_named_with_its_readings_time slow_reading
