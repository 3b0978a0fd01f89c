# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample export: many episodes, one grid, one table (docs/data-model.md,
# "Exporting"). Real episodes of a workload that counts its own I/O check the
# sums; synthetic episodes written here, with rows at known times, check the
# grid arithmetic against a table worked out by hand.
. "$(dirname "$0")/lib/common.sh"

EPS=$WORK/episodes
export_py() { "$PY" -c "import sys; from epi import expect; from exported import *; exec(sys.stdin.read())" "$@"; }

# ---- two real episodes: every source, different intervals, zstd and plain ----

real_episodes() {
	cat >"$WORK/real.yaml" <<EOY
episode: {name: real-a, labels: {workload: iowork, round: "1"}}
target:
  command: [$IOWORK, --threads, "2", --children, "2", --rounds, "25", --pause-ms, "20"]
sources:
  proc_io: {interval: 20ms}
  syscall_io: {interval: 30ms}
  perf_event: {interval: 50ms, events: [page-faults, context-switches, task-clock, instructions, cycles]}
output: {compression: zstd}
EOY
	"$IOPSAMPLE" run "$WORK/real.yaml" --quiet &&
		"$IOPSAMPLE" run "$WORK/real.yaml" --quiet --name real-b --set output.compression=none \
			--set sources.proc_io.interval=40ms --set sources.syscall_io.interval=40ms \
			--set sources.perf_event.interval=40ms --set episode.labels.round=2 \
			--set sources.syscall_io.available_in_deployment=true
}

# Every counter column sums to its source's rows, on the default grid (50 ms,
# the coarsest interval) and on one that divides no interval (70 ms); gauges
# keep their highest level, running_pct its lowest, ratios are their sums'.
sums_equal_the_rows() {
	"$IOPSAMPLE" export "$EPS/real-a" "$EPS/real-b" -o "$WORK/all.csv" || return
	"$IOPSAMPLE" export "$EPS/real-a" "$EPS/real-b" --grid 70ms -o "$WORK/g70.jsonl" || return
	export_py "$EPS" "$WORK" <<'PY'
import epi, math
eps, work = sys.argv[1], sys.argv[2]
schemas = {s: epi.schema_validator(s).schema for s in ("proc_io", "syscall_io", "perf_event")}
def rule(source, leaf):
    p = schemas[source]["properties"].get(leaf.split(".")[0], {})
    return p.get("x-cell", "max" if p.get("x-gauge") else "sum")
for table, grid, reader in (("all.csv", 50_000_000, read_csv), ("g70.jsonl", 70_000_000, read_jsonl)):
    df = reader("%s/%s" % (work, table))
    checked = 0
    for name in ("real-a", "real-b"):
        ep = epi.Episode("%s/%s" % (eps, name))
        c = cells(df, name)
        ends = []
        for source, rows in ep.rows.items():
            interval = ep.manifest["sources"][source]["interval_ns"]
            last = rows[-1]["t_mono_ns"]
            ends.append(last)
            flat = [flatten(r) for r in rows]
            for leaf in flat[0]:
                col, values = "%s.%s" % (source, leaf), [f[leaf] for f in flat]
                expect(col in c.columns, "%s: no column %s" % (table, col))
                r = rule(source, leaf)
                if r == "sum" and None in values:
                    expect(values.count(None) == len(values) and c[col].isna().all(),
                           "%s %s: null in some rows only" % (name, col))
                elif r == "sum":
                    got = column_sum(c, col)
                    expect(got == sum(values), "%s %s %s: %d, rows %d" % (table, name, col, got, sum(values)))
                    checked += 1
                elif r == "max":
                    expect(c[col].max() == max(values), "%s %s: max %s, rows %s" % (name, col, c[col].max(), max(values)))
                elif r == "min":
                    known = [v for v in values if v is not None]
                    expect(c[col].min() == min(known), "%s %s: min" % (name, col))
        # ipc from the cell's sums; null when either is
        for _, cell in c.iterrows():
            i, y = cell["perf_event.instructions"], cell["perf_event.cycles"]
            want = None if pd.isna(i) or pd.isna(y) or y == 0 else i / y
            got = cell["perf_event.ipc"]
            expect((want is None and pd.isna(got)) or got == want, "%s: ipc %s, sums say %s" % (name, got, want))
        # one row per cell, [k × grid, (k + 1) × grid), the last ending with the rows
        end = max(ends)
        expect(len(c) == math.ceil(end / grid), "%s %s: %d cells for %d ns" % (table, name, len(c), end))
        expect(list(c["t_start_ns"]) == [k * grid for k in range(len(c))], "t_start_ns")
        expect(list(c["t_end_ns"]) == [(k + 1) * grid for k in range(len(c) - 1)] + [end], "t_end_ns")
        expect(c["episode"].dtype == "string" and (c["label.round"] == {"real-a": "1", "real-b": "2"}[name]).all(), "labels")
        # and the ground truth: what the workload counted itself
        w = ep.target_report()
        expect(column_sum(c, "proc_io.wchar") == w["wchar"], "%s: wchar %d, workload %d" % (name, column_sum(c, "proc_io.wchar"), w["wchar"]))
        expect(column_sum(c, "syscall_io.write_bytes") == w["wchar"], "%s: syscall_io write_bytes" % name)
    print("%s: %d counter columns sum to their rows exactly; wchar = workload's" % (table, checked))
PY
}

# With the grid at a source's interval, a row that covers one grid interval
# is its cell, value for value.
grid_at_the_interval_is_the_rows() {
	local s iv
	for s in proc_io:20ms syscall_io:30ms perf_event:50ms; do
		"$IOPSAMPLE" export "$EPS/real-a" --sources "${s%%:*}" --grid "${s#*:}" -o "$WORK/${s%%:*}.csv" || return
	done
	export_py "$EPS/real-a" "$WORK" <<'PY'
import epi
ep = epi.Episode(sys.argv[1])
for source, rows in ep.rows.items():
    c = read_csv("%s/%s.csv" % (sys.argv[2], source))
    interval = ep.manifest["sources"][source]["interval_ns"]
    expect(all(col.startswith((source + ".", "label.")) for col in c.columns[3:]), source + ": other sources' columns")
    prev, same = 0, 0
    for r in rows:
        t = r["t_mono_ns"]
        end = t if r["final"] else t - t % interval
        if end - prev == interval and not r["final"]:
            cell = c.iloc[end // interval - 1]
            for leaf, v in flatten(r).items():
                got = cell["%s.%s" % (source, leaf)]
                expect((v is None and pd.isna(got)) or got == v or leaf in ("ipc", "cache_miss_rate"),
                       "%s row %d %s: cell %s" % (source, r["seq"], leaf, got))
            same += 1
        prev = end
    expect(same >= 0.9 * (len(rows) - 1), "%s: only %d of %d rows one interval long" % (source, same, len(rows)))
    print("%s: %d of %d rows equal their cell" % (source, same, len(rows)))
PY
}

# ---- synthetic episodes: rows at known times, a table worked out by hand ----

# syn-a: proc_io every 100 ms, a late sample, a missed tick, a final row;
# perf_event every 40 ms (rows straddle the 100 ms cells), a null count.
# syn-b: proc_io only, every 50 ms, zstd. Labels that CSV must quote.
synthetic() {
	export_py "$EPS/real-a/manifest.json" "$EPS" <<'PY'
import json
from synthetic import MS, proc_io_row as proc, write_episode
template = json.load(open(sys.argv[1]))
def perf(t, cycles, instructions, pct=100.0, final=False):
    return dict(t=t, final=final, cycles=cycles, instructions=instructions, ipc=None,
                cache_miss_rate=None, running_pct=pct)
def write(name, labels, sources, zstd=()):
    write_episode(template, sys.argv[2], name, labels, sources, zstd)
write("syn-a", {"case": 'a,b "q"\nnext'}, {
    "proc_io": (100 * MS, [proc(100 * MS + 200_000, 1000, 2), proc(300 * MS + 50_000, 600, 3),
                           proc(340 * MS, 40, 0, final=True)], True),
    "perf_event": (40 * MS, [perf(40 * MS + 100_000, 200, 400), perf(80 * MS, 100, 100, 50.0),
                             perf(120 * MS + 300_000, 100, 300), perf(160 * MS, 0, 0), perf(200 * MS, 40, 80),
                             perf(240 * MS, 10, None), perf(280 * MS, 40, 40), perf(320 * MS, 40, 40),
                             perf(345 * MS, 5, 5, final=True)], False)})
write("syn-b", {"other": "x"}, {
    "proc_io": (50 * MS, [proc(50 * MS, 5, 1, 3), proc(100 * MS + 400_000, 7, 1, 4),
                          proc(120 * MS, 1, 0, 5, final=True)], True)}, zstd=("proc_io",))
PY
}

# Worked out by hand (docs/data-model.md, "Exporting"): the grid is 100 ms,
# syn-a's coarsest interval. proc_io's late rows count at their grid point;
# its row over the missed tick, (100, 300], gives 300 to each cell, and the
# gauge nprocs is empty in the cell where no sample ended. perf_event's row
# (80, 120] gives half to each side (150 + 150 instructions, 50 + 50
# cycles); ipc is the cell's instructions / cycles (650 / 350); the null
# instructions of (200, 240] make that cell's empty; running_pct is the
# lowest of the rows a cell overlaps. The last cell ends with the last row.
known_table() {
	"$IOPSAMPLE" export "$EPS/syn-a" "$EPS/syn-b" -o "$WORK/syn.csv" || return
	"$IOPSAMPLE" export "$EPS/syn-a" "$EPS/syn-b" -o "$WORK/syn.jsonl" || return
	"$IOPSAMPLE" export "$EPS/syn-a" --sources proc_io --grid 150ms -o "$WORK/syn150.csv" || return
	cat >"$WORK/syn.want" <<'EOT'
episode,t_start_ns,t_end_ns,label.case,label.other,perf_event.cycles,perf_event.instructions,perf_event.ipc,perf_event.cache_miss_rate,perf_event.running_pct,proc_io.rchar,proc_io.wchar,proc_io.syscr,proc_io.syscw,proc_io.read_bytes,proc_io.write_bytes,proc_io.cancelled_write_bytes,proc_io.nprocs
syn-a,0,100000000,"a,b ""q""
next",,350,650,1.8571428571428572,,50.0,,1000,0,0,0,0,0,2
syn-a,100000000,200000000,"a,b ""q""
next",,90,230,2.5555555555555554,,100.0,,300,0,0,0,0,0,
syn-a,200000000,300000000,"a,b ""q""
next",,70,,,,100.0,,300,0,0,0,0,0,3
syn-a,300000000,345000000,"a,b ""q""
next",,25,25,1.0,,100.0,,40,0,0,0,0,0,0
syn-b,0,100000000,,x,,,,,,7,12,0,0,0,0,0,1
syn-b,100000000,120000000,,x,,,,,,5,1,0,0,0,0,0,0
EOT
	# (0,100] 1000 + a quarter of (100,300]; then the rest; then the final row
	cat >"$WORK/syn150.want" <<'EOT'
episode,t_start_ns,t_end_ns,label.case,proc_io.rchar,proc_io.wchar,proc_io.syscr,proc_io.syscw,proc_io.read_bytes,proc_io.write_bytes,proc_io.cancelled_write_bytes,proc_io.nprocs
syn-a,0,150000000,"a,b ""q""
next",,1150,0,0,0,0,0,2
syn-a,150000000,300000000,"a,b ""q""
next",,450,0,0,0,0,0,3
syn-a,300000000,340000000,"a,b ""q""
next",,40,0,0,0,0,0,0
EOT
	diff -u "$WORK/syn.want" "$WORK/syn.csv" && diff -u "$WORK/syn150.want" "$WORK/syn150.csv" || return
	# the columns do not depend on the order the episodes are given in
	"$IOPSAMPLE" export "$EPS/syn-b" "$EPS/syn-a" -o "$WORK/ba.csv" || return
	[ "$(head -1 "$WORK/ba.csv")" = "$(head -1 "$WORK/syn.want")" ] || { echo "syn-b first: other columns"; return 1; }
	# the JSON Lines table says the same, with null for every empty field
	export_py "$WORK" <<'PY'
import csv, json
want = list(csv.DictReader(open(sys.argv[1] + "/syn.want", newline="")))
got = [json.loads(l) for l in open(sys.argv[1] + "/syn.jsonl")]
expect([list(g) for g in got] == [list(w) for w in want], "JSONL keys and order differ from CSV's columns")
for w, g in zip(want, got):
    for k, v in w.items():
        if k == "episode" or k.startswith("label."):
            expect(g[k] == (v or None), "%s: %r, want %r" % (k, g[k], v))
        else:
            expect(g[k] == (json.loads(v) if v else None) and type(g[k]) == type(json.loads(v) if v else None),
                   "%s: %r, want %s" % (k, g[k], v))
print("%d rows, CSV as worked out by hand, JSONL the same" % len(got))
PY
}

# Debian's pandas loads both formats with the documented dtypes (the same
# frame from each); --deployable-only and --oracle-only pick each episode's
# sources by its manifest (real-b made syscall_io deployable).
pandas_and_picking() {
	local f
	"$IOPSAMPLE" export "$EPS/real-a" "$EPS/real-b" --format jsonl -o "$WORK/all.json" || return
	for f in deployable oracle; do
		"$IOPSAMPLE" export "$EPS/real-a" "$EPS/real-b" --$f-only -o "$WORK/$f.csv" || return
	done
	export_py "$WORK" <<'PY'
w = sys.argv[1]
c, j = read_csv(w + "/all.csv"), read_jsonl(w + "/all.json")
pd.testing.assert_frame_equal(c, j)
for col, dtype in c.dtypes.items():
    if col == "episode" or col.startswith("label."):
        want = "string"
    elif col in ("t_start_ns", "t_end_ns") or (col.endswith(("_calls", "_bytes", "nprocs")) and c[col].notna().all()):
        want = "int64"
    else:
        want = ("int64", "float64")
    expect(str(dtype) in (want if isinstance(want, tuple) else (want,)), "%s: %s, want %s" % (col, dtype, want))
    if str(dtype) == "int64" or col.endswith(("ipc", "cache_miss_rate", "running_pct")):
        continue
    if str(dtype) == "float64" and not col.endswith(("ipc", "cache_miss_rate", "running_pct")):
        expect(c[col].isna().any(), col + ": float64 without an empty cell")
print("%d columns, %d rows: dtypes as documented, CSV == JSONL" % (len(c.columns), len(c)))
dep, orc = read_csv(w + "/deployable.csv"), read_csv(w + "/oracle.csv")
src = lambda df: {col.split(".")[0] for col in df.columns[3:] if not col.startswith("label.")}
expect(src(dep) == {"proc_io", "syscall_io"}, "deployable: %s" % src(dep))
expect(src(orc) == {"syscall_io", "perf_event"}, "oracle: %s" % src(orc))
a, b = dep["episode"] == "real-a", dep["episode"] == "real-b"
expect(dep.loc[a, "syscall_io.write_calls"].isna().all() and dep.loc[b, "syscall_io.write_calls"].notna().all(),
       "deployable: syscall_io only where the manifest says so")
a, b = orc["episode"] == "real-a", orc["episode"] == "real-b"
expect(orc.loc[b, "syscall_io.write_calls"].isna().all() and orc.loc[a, "syscall_io.write_calls"].notna().all(),
       "oracle: syscall_io only where the manifest says so")
PY
}

# One row per episode: the manifest's account and each source's totals.
episodes_table() {
	"$IOPSAMPLE" export --episodes "$EPS/real-a" "$EPS/real-b" "$EPS/syn-b" -o "$WORK/episodes.csv" || return
	export_py "$EPS" "$WORK/episodes.csv" <<'PY'
import epi
t = read_csv(sys.argv[2]).set_index("episode")
expect(list(t.index) == ["real-a", "real-b", "syn-b"], "rows %s" % list(t.index))
for name in ("real-a", "real-b"):
    ep = epi.Episode("%s/%s" % (sys.argv[1], name))
    m, row = ep.manifest, t.loc[name]
    expect(row["status"] == "complete" and row["duration_ns"] == m["duration_ns"] and
           row["target.exit_code"] == 0 and row["target.stop_reason"] == "exited", name + ": manifest fields")
    expect(row["label.workload"] == "iowork" and row["label.round"] == m["labels"]["round"], name + ": labels")
    for source, rows in ep.rows.items():
        s = m["sources"][source]
        expect(row[source + ".rows"] == s["rows"] == len(rows) and row[source + ".interval_ns"] == s["interval_ns"]
               and row[source + ".available_in_deployment"] == s["available_in_deployment"], name + " " + source)
        for leaf, v in flatten(rows[0]).items():
            values = [flatten(r)[leaf] for r in rows]
            if isinstance(v, int) and leaf != "nprocs" and None not in values:
                expect(row["%s.%s" % (source, leaf)] == sum(values), "%s %s.%s total" % (name, source, leaf))
    expect(row["proc_io.nprocs"] == max(r["nprocs"] for r in ep.rows["proc_io"]), "nprocs: the highest")
expect(pd.isna(t.loc["syn-b", "syscall_io.rows"]) and t.loc["syn-b", "proc_io.wchar"] == 13, "syn-b")
print("%d columns: manifest fields, labels, per-source totals" % len(t.columns))
PY
}

# ---- refusals -------------------------------------------------------------

# A running (killed) or failed episode is refused, and nothing written; with
# --include-incomplete its rows are exported, a cut zstd file up to the cut.
# A complete episode with a damaged file is refused either way.
incomplete_episodes() {
	local dir out status
	cp -r "$EPS/real-a" "$WORK/killed" && cp -r "$EPS/real-a" "$WORK/damaged" || return
	"$PY" - "$WORK/killed/manifest.json" <<'PY' || return 1
import json, sys
m = json.load(open(sys.argv[1])); m["status"] = "running"; json.dump(m, open(sys.argv[1], "w"))
PY
	for dir in killed damaged; do
		truncate -s -60 "$WORK/$dir/proc_io.jsonl.zst"
	done
	echo old >"$WORK/out.csv"
	out=$("$IOPSAMPLE" export "$WORK/killed" -o "$WORK/out.csv" 2>&1)
	status=$?
	[ $status -eq 65 ] || { echo "running: exit $status: $out"; return 1; }
	[[ $out == "iopsample: $WORK/killed: episode real-a is running: "*"--include-incomplete exports it anyway" ]] ||
		{ echo "message: $out"; return 1; }
	[ "$(cat "$WORK/out.csv")" = old ] || { echo "the old output was touched"; return 1; }
	out=$("$IOPSAMPLE" export "$WORK/damaged" --include-incomplete -o "$WORK/out.csv" 2>&1)
	[ $? -eq 65 ] && [[ $out == *"proc_io.jsonl.zst: "* ]] || { echo "damaged: $out"; return 1; }
	[ "$(cat "$WORK/out.csv")" = old ] && [ -z "$(ls -A "$WORK" | grep '^\.out')" ] || { echo "a temporary file was left"; return 1; }
	"$IOPSAMPLE" export "$WORK/killed" --include-incomplete --sources proc_io -o "$WORK/out.csv" || return
	"$IOPSAMPLE" cat "$WORK/killed/proc_io.jsonl.zst" 2>/dev/null >"$WORK/killed.rows"
	export_py "$WORK" <<'PY' || return 1
import json
rows = [json.loads(l) for l in open(sys.argv[1] + "/killed.rows")]
c = read_csv(sys.argv[1] + "/out.csv")
expect(column_sum(c, "proc_io.wchar") == sum(r["wchar"] for r in rows), "wchar of the rows before the cut")
t = rows[-1]["t_mono_ns"]
last = t if rows[-1]["final"] else t - t % 20_000_000
expect(c["t_end_ns"].iloc[-1] == last, "ends at %d, the last whole row at %d" % (c["t_end_ns"].iloc[-1], last))
print("killed: %d rows before the cut, %d cells" % (len(rows), len(c)))
PY
	# failed: refused with the failure's reason
	cp -r "$EPS/syn-b" "$WORK/failed" && "$PY" - "$WORK/failed/manifest.json" <<'PY' || return 1
import json, sys
m = json.load(open(sys.argv[1])); m["status"] = "failed"
m["sources"]["proc_io"].update(status="failed", error="proc_io.jsonl: No space left on device")
json.dump(m, open(sys.argv[1], "w"))
PY
	out=$("$IOPSAMPLE" export "$WORK/failed" -o - 2>&1)
	[ $? -eq 65 ] && [ "$out" = "iopsample: $WORK/failed: episode syn-b is failed: proc_io.jsonl: No space left on device; --include-incomplete exports it anyway" ] ||
		{ echo "failed: $out"; return 1; }
	"$IOPSAMPLE" export "$WORK/failed" --include-incomplete -o - | grep -q '^syn-b,0,50000000,x,3,5,' || { echo "failed, included"; return 1; }
	# killed before a source wrote its file: that source has no rows
	rm "$WORK/killed/syscall_io.jsonl.zst"
	"$IOPSAMPLE" export "$WORK/killed" --include-incomplete -o "$WORK/out.csv" || return
	! grep -q syscall_io "$WORK/out.csv" && grep -q proc_io.wchar "$WORK/out.csv" || { echo "killed, no syscall_io file"; return 1; }
}

# Each mistake: its exit status and one line, and no output file.
usage_errors() {
	local bad=0
	expect_error() { # status message-part args...
		local want=$1 part=$2 out status
		shift 2
		out=$("$IOPSAMPLE" export "$@" 2>&1)
		status=$?
		if [ $status -ne "$want" ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] ||
			[[ $out != "iopsample: "*"$part"* ]] || [ -e "$WORK/x.csv" ]; then
			echo "export $*: exit $status (want $want): $out"
			bad=1
		fi
	}
	expect_error 64 "--grid 10ms is finer than proc_io's interval (20ms) in $EPS/real-a" "$EPS/real-a" --grid 10ms -o "$WORK/x.csv"
	expect_error 64 "episode real-a twice" "$EPS/real-a" "$EPS/real-a" -o "$WORK/x.csv"
	expect_error 64 "--sources: no source called \"proc-io\"" "$EPS/real-a" --sources proc-io -o "$WORK/x.csv"
	expect_error 64 "--sources syscall_io: none of the episodes has it" "$EPS/syn-b" --sources syscall_io -o "$WORK/x.csv"
	expect_error 64 "would write into episode directory" "$EPS/real-a" -o "$EPS/real-a/x.csv"
	expect_error 64 "no output (-o FILE" "$EPS/real-a"
	expect_error 64 "exclude each other" "$EPS/real-a" --deployable-only --oracle-only -o "$WORK/x.csv"
	expect_error 64 "--format xml: csv or jsonl" "$EPS/real-a" --format xml -o "$WORK/x.csv"
	expect_error 64 "--grid: the --episodes table has one row per episode" "$EPS/real-a" --episodes --grid 1s -o "$WORK/x.csv"
	expect_error 64 "unknown option --frobnicate" "$EPS/real-a" --frobnicate -o "$WORK/x.csv"
	expect_error 66 "$WORK/nope: No such file or directory" "$WORK/nope" -o "$WORK/x.csv"
	expect_error 73 "No such file or directory" "$EPS/real-a" -o "$WORK/no/such/dir/x.csv"
	expect_error 65 "nothing to export" "$EPS/syn-b" --oracle-only -o "$WORK/x.csv"
	mkdir -p "$WORK/bad" && echo '{"episode": "bad"' >"$WORK/bad/manifest.json"
	expect_error 65 "$WORK/bad/manifest.json:2:0: " "$WORK/bad" -o "$WORK/x.csv"
	# rows that break the rules: the file and line, and what
	local change want
	while IFS='|' read -r change want; do
		rm -rf "$WORK/rows" && cp -r "$EPS/syn-a" "$WORK/rows" || return
		"$PY" - "$WORK/rows/proc_io.jsonl" "$change" <<'PY' || return 1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
exec(sys.argv[2])
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
		expect_error 65 "$WORK/rows/proc_io.jsonl:$want" "$WORK/rows" -o "$WORK/x.csv"
	done <<'EOT'
rows[1]["wchar"] = -3|2: wchar: a negative count
rows[1]["wchar"] = 2.5|2: wchar: not an integer count
rows[2]["extra"] = 1|3: its keys differ from the first row's
del rows[1]["nprocs"]; rows[1]["x"] = 1|2: nprocs: missing, unlike in the first row
rows[0]["rchar"] = 0.5|1: rchar: a real number, and the proc_io schema does not say how it combines in a grid cell (x-cell)
rows[0]["wchar"] = "9"|1: wchar: not a number
rows[2]["t_mono_ns"] = 5|3: t_mono_ns is before the previous row's
EOT
	return $bad
}

# docs/data-model.md's worked example, its sh and python blocks as written,
# from a copy of the repository's layout: the table's header and cells as
# shown, and the split it claims.
worked_example() {
	local doc=$TESTS/../docs/data-model.md dir=$WORK/example
	mkdir -p "$dir/config/examples" "$dir/build" &&
		cp "$TESTS/../config/examples/readback.yaml" "$dir/config/examples/" &&
		ln -s "$IOPSAMPLE" "$dir/build/iopsample" || return
	block() { # LANG: the worked example's fenced block in that language
		"$PY" -c '
import re, sys
doc = open(sys.argv[1]).read()
ex = doc[doc.index("<!-- worked example"):doc.index("<!-- end of worked example")]
m = re.search(r"^```%s\n(.*?)^```$" % sys.argv[2], ex, re.S | re.M)
print(m.group(1) if m else "", end="")' "$doc" "$1"
	}
	[ -n "$(block sh)" ] && [ -n "$(block python)" ] || { echo "no worked example in $doc"; return 1; }
	(cd "$dir" && bash -e <(block sh) >shown.txt) || { echo "the sh block failed"; return 1; }
	block text >"$dir/doc.txt"
	cut -d, -f1-4 "$dir/doc.txt" >"$dir/doc.keys"
	cut -d, -f1-4 "$dir/shown.txt" >"$dir/shown.keys"
	diff -u "$dir/doc.keys" "$dir/shown.keys" && [ "$(head -1 "$dir/doc.txt")" = "$(head -1 "$dir/shown.txt")" ] ||
		{ echo "the table's first rows differ from the doc's"; return 1; }
	(cd "$dir" && block python >example.py && "$PY" - "$doc" <<'PY'
import sys
exec(open("example.py").read())
import re
doc = open(sys.argv[1]).read()
said = int(re.search(r"The table has (\d+) columns", doc).group(1))
said_oracle = int(re.search(r"perf_event's (\d+);", doc).group(1))
cols = list(pd.read_csv("cells.csv", nrows=0).columns)
assert len(cols) == said, "%d columns, the doc says %d" % (len(cols), said)
assert list(X_deploy.columns) and all(c.startswith("proc_io.") for c in X_deploy.columns), list(X_deploy.columns)
assert len(X_deploy.columns) == 8 and len(X_oracle.columns) == said_oracle, (len(X_deploy.columns), len(X_oracle.columns))
assert all(c.startswith(("syscall_io.", "perf_event.")) for c in X_oracle.columns)
assert str(cells["episode"].dtype) == "string" and set(cells["episode"]) == {"qs-1", "qs-2"}
print("worked example: %d rows; deployable %d columns, oracle %d" % (len(cells), len(X_deploy.columns), len(X_oracle.columns)))
PY
	)
}

check real_episodes_run real_episodes
check sums_equal_the_source_rows sums_equal_the_rows
check grid_at_the_interval_is_the_rows grid_at_the_interval_is_the_rows
check synthetic_episodes_written synthetic
check straddling_rows_give_the_table_worked_out_by_hand known_table
check pandas_dtypes_and_deployable_oracle_columns pandas_and_picking
check episodes_table_has_totals_per_source episodes_table
check running_and_failed_episodes_need_include_incomplete incomplete_episodes
check usage_errors_say_one_line_and_write_nothing usage_errors
check the_worked_example_in_the_data_model_runs worked_example
