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
figures_from_export() {
	"$IOPSAMPLE" compare "$EPS/io" "$EPS/build" "$EPS/fio" --by-episode --format json \
		-o "$WORK/compare.json" || { echo "compare: exit $?"; return 1; }
	"$IOPSAMPLE" export "$EPS/io" "$EPS/build" "$EPS/fio" -o "$WORK/cells.csv" || return 1
	"$PANDAS_PY" - "$WORK/compare.json" "$WORK/cells.csv" <<'PY'
import json, math, sys
import numpy as np
import pandas as pd
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

def side(df, name):
    cols = name.split("+")
    return df[cols].sum(axis=1, min_count=len(cols)).where(df[cols].notna().all(axis=1))

def pearson(x, y):
    m = x.notna() & y.notna()
    x, y = x[m].to_numpy(float), y[m].to_numpy(float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    return float(np.corrcoef(x, y)[0, 1])

def figures(df, d, o):
    both = d.notna() & o.notna()
    dd, oo = d[both].astype(float), o[both].astype(float)
    f = {"cells": int(both.sum()), "deployable_total": float(dd.sum()), "oracle_total": float(oo.sum())}
    f["total_diff_pct"] = 100 * (dd.sum() - oo.sum()) / oo.sum() if oo.sum() != 0 else None
    f["mae"] = float((dd - oo).abs().mean()) if len(dd) else None
    f["pearson_r"] = pearson(d, o)
    pos = oo > 0
    rel = ((dd - oo).abs() / oo)[pos].to_numpy()
    f["rel_err_p50"] = float(np.percentile(rel, 50)) if len(rel) else None
    f["rel_err_p95"] = float(np.percentile(rel, 95)) if len(rel) else None
    f["within_1pct"] = float((rel <= 0.01).mean()) if len(rel) else None
    best = None
    for lag in sorted(range(-5, 6), key=lambda L: (abs(L), L > 0)):
        shifted = d.groupby(df["episode"]).shift(-lag)  # d[t + lag] beside o[t]
        r = pearson(shifted, o)
        if r is not None and (best is None or r > best[1]):
            best = (lag, r)
    f["best_lag_cells"], f["r_at_best_lag"] = best if best else (None, None)
    return f

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

if out=$(episodes 2>&1); then
	check compare_figures_equal_pandas_from_export figures_from_export
	check compare_text_table_of_a_build text_table
	check compare_pairs_file_and_exit_statuses pairs_file_and_errors
else
	for t in compare_figures_equal_pandas_from_export compare_text_table_of_a_build \
		compare_pairs_file_and_exit_statuses; do
		fail $t "the episodes: $out"
	done
fi
