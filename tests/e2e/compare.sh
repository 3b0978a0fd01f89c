# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample compare: how closely each deployable field tracks its oracle,
# over export's cells. Every figure of compare's JSON is computed again here
# from export's CSV of the same episodes and grid, with pandas and numpy
# (docs/data-model.md, "Comparing deployable with oracle"), on real
# episodes: iowork's threads and children, a build (buildwork) and fio.
. "$(dirname "$0")/lib/common.sh"

EPS=$WORK/episodes
PANDAS_PY=/usr/bin/python3 # Debian's, which has pandas

episodes() {
	local perf="{interval: 20ms, events: [task-clock, page-faults, context-switches]}"
	mkdir -p "$WORK/bw" && cat >"$WORK/fio.job" <<EOF
[r]
filename=$WORK/fio.data
size=8m
rw=randread
bs=4k
ioengine=psync
EOF
	local every="{proc_io: {interval: 20ms}, syscall_io: {interval: 20ms}, taskstats: {interval: 20ms},
  perf_event: $perf, cgroup: {interval: 20ms}}"
	cat >"$WORK/io.yaml" <<EOY
episode: {name: io, output_dir: $EPS}
target: {command: [$WORKLOADS/iowork, --threads, "2", --children, "2", --rounds, "25", --pause-ms, "10"], stdout: file}
sources: $every
EOY
	cat >"$WORK/build.yaml" <<EOY
episode: {name: build, output_dir: $EPS}
target: {command: [$WORKLOADS/buildwork, $WORK/bw, "2", "6"], stdout: file}
sources: $every
EOY
	cat >"$WORK/fio.yaml" <<EOY
episode: {name: fio, output_dir: $EPS}
target: {command: [fio, --output-format=json, $WORK/fio.job], stdout: file}
sources:
  proc_io: {interval: 20ms}
  syscall_io: {interval: 20ms}
  perf_event: $perf
EOY
	command -v fio >/dev/null || { echo "no fio"; return 1; }
	for e in io build fio; do
		"$IOPSAMPLE" run "$WORK/$e.yaml" --quiet || { echo "$e: exit $?"; return 1; }
	done
}

# compare's every figure, and --by-episode's, from export's CSV with pandas
# (tests/e2e/lib/compare_figures.py)
figures_from_export() {
	"$IOPSAMPLE" compare "$EPS/io" "$EPS/build" "$EPS/fio" --by-episode --format json \
		-o "$WORK/compare.json" || { echo "compare: exit $?"; return 1; }
	"$IOPSAMPLE" export "$EPS/io" "$EPS/build" "$EPS/fio" -o "$WORK/cells.csv" || return 1
	"$PANDAS_PY" - "$WORK/compare.json" "$WORK/cells.csv" <<'PY'
import json, math, sys
import pandas as pd
from compare_figures import figures, side
got = json.load(open(sys.argv[1]))
t = pd.read_csv(sys.argv[2])
bad = []
def same(name, a, b):
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        ok = (a is None) == (b is None or (isinstance(b, float) and math.isnan(b)))
    else:
        ok = a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if not ok:
        bad.append("%s: compare %r, pandas %r" % (name, a, b))

same("grid_ns", got["grid_ns"], int(t["t_end_ns"].iloc[0] - t["t_start_ns"].iloc[0]))
same("episodes", 0, 0 if got["episodes"] == list(dict.fromkeys(t["episode"])) else 1)
names = [(p["deployable"], p["oracle"]) for p in got["pairs"]]
for p in got["pairs"]:
    d, o = side(t, p["deployable"]), side(t, p["oracle"])
    want = figures(t, d, o)
    for k, v in want.items():
        same("%s/%s %s" % (p["deployable"], p["oracle"], k), p[k], v)
    for e in p["by_episode"]:
        sub = t[t["episode"] == e["episode"]]
        w = figures(sub, side(sub, p["deployable"]), side(sub, p["oracle"]))
        for k, v in w.items():
            same("%s/%s %s %s" % (p["deployable"], p["oracle"], e["episode"], k), e[k], v)
expect_pairs = {("proc_io.rchar", "syscall_io.read_bytes"), ("taskstats.cpu_run_real_ns", "perf_event.task_clock"),
                ("cgroup.pgfault", "perf_event.page_faults"),
                ("taskstats.voluntary_ctxsw+taskstats.involuntary_ctxsw", "perf_event.context_switches")}
missing = expect_pairs - set(names)
if missing:
    bad.append("pairs missing: %s" % missing)
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
n = sum(1 for p in got["pairs"] for k in p) + sum(1 for p in got["pairs"] for e in p["by_episode"] for k in e)
print("%d pairs over %d cells of %d episodes: %d figures equal pandas' to 1e-9" % (
    len(got["pairs"]), len(t), len(got["episodes"]), n))
PY
}

# the text table, for one real episode (the build)
text_table() {
	"$IOPSAMPLE" compare "$EPS/build" >"$WORK/build.txt" || { echo "compare: exit $?"; return 1; }
	sed 's/^/    /' "$WORK/build.txt"
	grep -q '^  perf_event.task_clock ' "$WORK/build.txt" && [ "$(awk '{ if (length > 100) n++ } END { print n + 0 }' "$WORK/build.txt")" = 0 ]
}

# a pairs file: its pairs only; a field no schema has is FILE:LINE:COL; the
# exit statuses are export's
pairs_file_and_errors() {
	cat >"$WORK/pairs.yaml" <<'EOY'
- {deployable: proc_io.wchar, oracle: syscall_io.write_bytes}
EOY
	cat >"$WORK/bad.yaml" <<'EOY'
- deployable: proc_io.rchar
  oracle: syscall_io.red_bytes
EOY
	"$IOPSAMPLE" compare "$EPS/io" --pairs "$WORK/pairs.yaml" --format json -o "$WORK/one.json" || return 1
	"$PY" -c 'import json, sys
p = json.load(open(sys.argv[1]))["pairs"]
assert [(x["deployable"], x["oracle"]) for x in p] == [("proc_io.wchar", "syscall_io.write_bytes")], p' "$WORK/one.json" || return 1
	local err rc
	err=$("$IOPSAMPLE" compare "$EPS/io" --pairs "$WORK/bad.yaml" 2>&1 >/dev/null); rc=$?
	echo "bad pairs: exit $rc: $err"
	[ $rc = 65 ] && [[ $err == *"bad.yaml:2:11: \"syscall_io.red_bytes\" is no field"* ]] || return 1
	"$IOPSAMPLE" compare "$WORK/nowhere" 2>/dev/null; rc=$?
	echo "no episode: exit $rc"
	[ $rc = 66 ] || return 1
	"$IOPSAMPLE" compare 2>/dev/null; rc=$?
	echo "no argument: exit $rc"
	[ $rc = 64 ]
}

# Seven cells: two series that track each other (r about 0.99 at lag 0).
# Shifted by 5 cells only two pairs are left, whose r is 1 whenever both
# rise: such a lag does not count (fewer than max(3, half the cells)
# pairs), and the best lag is 0. The episode is written here, its rows at
# known times (100 ms apart: 7 cells of the grid).
seven_cells() {
	mkdir -p "$WORK/syn" && cat >"$WORK/seven.yaml" <<'EOY'
- {deployable: proc_io.syscr, oracle: perf_event.instructions}
EOY
	"$PY" - "$EPS/io/manifest.json" "$WORK/syn" <<'PY' || return
import json, sys
from synthetic import MS, proc_io_row, write_episode
d = [12, 49, 23, 78, 31, 43, 69]
o = [10, 50, 20, 80, 30, 40, 70]
def perf(t, instructions, final):
    return dict(t=t, final=final, cycles=instructions, instructions=instructions, ipc=None,
                cache_miss_rate=None, running_pct=100.0)
write_episode(json.load(open(sys.argv[1])), sys.argv[2], "seven", {}, {
    "proc_io": (100 * MS, [proc_io_row((k + 1) * 100 * MS, 0, 1, syscr=v, final=k == 6)
                           for k, v in enumerate(d)], True),
    "perf_event": (100 * MS, [perf((k + 1) * 100 * MS, v, k == 6) for k, v in enumerate(o)], False)})
PY
	"$IOPSAMPLE" compare "$WORK/syn/seven" --pairs "$WORK/seven.yaml" --format json -o "$WORK/seven.json" ||
		{ echo "compare: exit $?"; return 1; }
	"$IOPSAMPLE" export "$WORK/syn/seven" -o "$WORK/seven.csv" || return
	"$PANDAS_PY" - "$WORK/seven.json" "$WORK/seven.csv" <<'PY'
import json, sys
import pandas as pd
from compare_figures import figures, pearson, side
from epi import expect
p = json.load(open(sys.argv[1]))["pairs"][0]
t = pd.read_csv(sys.argv[2])
d, o = side(t, "proc_io.syscr"), side(t, "perf_event.instructions")
want = figures(t, d, o)
expect(want["cells"] == 7 and want["best_lag_cells"] == 0, "pandas: %s" % want)
# what every lag would give, two pairs or not
r5 = pearson(d.shift(-5), o)
expect(r5 == 1.0, "lag 5 over two pairs: r %s" % r5)
for k in ("cells", "best_lag_cells"):
    expect(p[k] == want[k], "%s: compare %s, pandas %s" % (k, p[k], want[k]))
expect(abs(p["r_at_best_lag"] - want["r_at_best_lag"]) <= 1e-9, "r@lag %s, pandas %s" % (p["r_at_best_lag"], want["r_at_best_lag"]))
print("7 cells: best lag %d, r@lag %.4f, as pandas (lags -3..3 count; at lag 5 two pairs give r %.1f)" % (
    p["best_lag_cells"], p["r_at_best_lag"], r5))
PY
}

# export's table goes under $TMPDIR (as mktemp's does), and is gone after;
# a TMPDIR that cannot hold it is named, exit 73
scratch_in_tmpdir() {
	mkdir -p "$WORK/tmp" || return 1
	# (LeakSanitizer cannot run under ptrace: make asan's leak check is
	# the other compare tests')
	TMPDIR=$WORK/tmp ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=mkdir -o "$WORK/mkdir.trace" \
		"$IOPSAMPLE" compare "$EPS/io" --format json -o "$WORK/tmpdir.json" || { echo "compare: exit $?"; return 1; }
	grep -q "mkdir(\"$WORK/tmp/iopsample-compare\.[A-Za-z0-9]*\", 0700) = 0" "$WORK/mkdir.trace" ||
		{ echo "made: $(grep mkdir "$WORK/mkdir.trace" | head -3)"; return 1; }
	[ -z "$(ls -A "$WORK/tmp")" ] || { echo "left in TMPDIR: $(ls -A "$WORK/tmp")"; return 1; }
	echo "scratch: $(grep -o "$WORK/tmp/iopsample-compare\.[A-Za-z0-9]*" "$WORK/mkdir.trace" | head -1), removed"
	local err rc
	err=$(TMPDIR=$WORK/nowhere "$IOPSAMPLE" compare "$EPS/io" 2>&1 >/dev/null); rc=$?
	echo "TMPDIR=nowhere: exit $rc: $err"
	[ $rc = 73 ] && [[ $err == *"$WORK/nowhere: No such file or directory"* ]]
}

if out=$(episodes 2>&1); then
	check compare_figures_equal_pandas_from_export figures_from_export
	check compare_text_table_of_a_build text_table
	check compare_pairs_file_and_exit_statuses pairs_file_and_errors
	check compare_seven_cells_lag_needs_enough_pairs seven_cells
	check compare_scratch_folder_under_tmpdir scratch_in_tmpdir
else
	for t in compare_figures_equal_pandas_from_export compare_text_table_of_a_build \
		compare_pairs_file_and_exit_statuses compare_seven_cells_lag_needs_enough_pairs \
		compare_scratch_folder_under_tmpdir; do
		fail $t "the episodes: $out"
	done
fi
