# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# docs/recipes/dask_export.py on a real Dask cluster: 13 episodes of proc_io,
# syscall_io and perf_event (zstd and plain, different intervals, labels on
# most, one label a CSV must quote, a perf field null in every row), read by
# the recipe on a distributed.LocalCluster of 2 worker processes on
# 127.0.0.1, give the CSV `iopsample export --grid` writes, cell for cell and
# column for column. Every cluster this test starts runs in a session of its
# own, killed whole on every path out of the test.
. "$(dirname "$0")/lib/common.sh"

RECIPE=$TESTS/../docs/recipes/dask_export.py
EPS=$WORK/episodes
export PATH=$BUILD:$PATH # the recipe runs `iopsample schema`
SESSIONS=""
trap 'for s in $SESSIONS; do kill -9 -- -"$s" 2>/dev/null; done; cleanup' EXIT

# The processes of session $1, but for zombies; none; its Dask workers.
session_left() { ps -eo pid=,sid=,stat= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { print $1 }'; }
session_gone() { [ -z "$(session_left "$1")" ]; }
session_has_workers() { ps -eo sid=,args= | awk -v s="$1" '$1 == s && /spawn_main/' | grep -q .; }

# ---- 12 episodes, and one whose perf field is null in every row ----------------

make_episodes() {
	local i pi si fi zip labels
	for i in $(seq 1 12); do
		pi=$((10 * (i % 4 + 1))) si=$((20 + 10 * (i % 2))) fi=$((10 + 10 * (i % 2)))
		zip=$([ $((i % 2)) = 1 ] && echo zstd || echo none)
		case $((i % 3)) in
		0) labels="{workload: iowork, round: \"$i\"}" ;;
		1) labels="{round: \"$i\"}" ;;
		2) labels="{}" ;;
		esac
		[ $i = 5 ] && labels="{round: \"5\", note: 'a, \"quoted\" label'}"
		cat >"$WORK/e$i.yaml" <<EOY
episode: {name: ep-$(printf %02d $i), output_dir: $EPS, labels: $labels}
target:
  command: [$IOWORK, --rounds, "$((6 + i))", --pause-ms, "20", --threads, "$((1 + i % 2))", --children, "$((i % 3))", --tag, $TAG]
sources:
  proc_io: {interval: ${pi}ms}
  syscall_io: {interval: ${si}ms}
  perf_event: {interval: ${fi}ms, events: [page-faults, context-switches, instructions, cycles]}
output: {compression: $zip}
EOY
		"$IOPSAMPLE" run "$WORK/e$i.yaml" --quiet >>"$WORK/run.log" 2>&1 || return
	done
	# ep-02 again as ep-13 with instructions null in every row (on a VM
	# cycles and instructions are null already; this makes one so on any host)
	cp -r "$EPS/ep-02" "$EPS/ep-13" &&
		"$PY" - "$EPS/ep-13" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
m["episode"] = "ep-13"
json.dump(m, open(f"{d}/manifest.json", "w"))
rows = [json.loads(l) for l in open(f"{d}/perf_event.jsonl")]
with open(f"{d}/perf_event.jsonl", "w") as f:
    for r in rows:
        r.update(episode="ep-13", instructions=None, ipc=None)
        f.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
}
make_episodes || MADE=no
ALL=$(for i in $(seq -w 1 13); do echo "$EPS/ep-$i"; done)

# The recipe's CSV against export's: the same header, rows and cells, integers
# exactly and real numbers to 1e-9 relative.
same_csv() { # RECIPE.csv EXPORT.csv
	"$PY" - "$1" "$2" <<'PY'
import csv, sys
from epi import expect
a, b = (list(csv.reader(open(p, newline=""))) for p in sys.argv[1:3])
expect(a[0] == b[0], "columns: %s" % [(x, y) for x, y in zip(a[0], b[0]) if x != y][:3])
expect(len(a) == len(b), "%d rows, export %d" % (len(a) - 1, len(b) - 1))
def kind(v):
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v
cells = ints = reals = 0
for n, (x, y) in enumerate(zip(a[1:], b[1:]), 2):
    for col, u, v in zip(a[0], x, y):
        p, q = kind(u), kind(v)
        ok = type(p) is type(q) and (p == q if not isinstance(p, float) else abs(p - q) <= 1e-9 * abs(q))
        expect(ok, "line %d, %s: %r, export %r" % (n, col, u, v))
        cells += 1
        ints += isinstance(p, int) and u != ""
        reals += isinstance(p, float)
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "rb") as g:
    same = f.read() == g.read()
episodes = len({r[0] for r in a[1:]})
nulls = {c: all(r[i] == "" for r in a[1:] if r[0] == "ep-13") for i, c in enumerate(a[0])}
expect(nulls["perf_event.instructions"] and not nulls["perf_event.page_faults"], "ep-13's null field")
print("%d episodes, %d rows x %d columns: %d integers, %d reals, the rest empty or text; "
      "byte for byte %s" % (episodes, len(a) - 1, len(a[0]), ints, reals, "the same" if same else "different"))
PY
}

# ---- a cluster of our own, reached by its address, as a multi-host one is ------

# (a file, not stdin: Dask's worker processes are spawned, and import it)
cat >"$WORK/cluster.py" <<'PY'
import logging, os, signal, sys, threading
from dask.distributed import LocalCluster

if __name__ == "__main__":
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                      silence_logs=logging.ERROR) as cluster:
        with open(sys.argv[1] + ".part", "w") as f:
            f.write(cluster.scheduler_address)
        os.rename(sys.argv[1] + ".part", sys.argv[1])
        while not stop.wait(0.1):
            pass
PY

start_cluster() {
	setsid "$PY" "$WORK/cluster.py" "$WORK/scheduler" >"$WORK/cluster.log" 2>&1 &
	CLUSTER=$!
	SESSIONS="$SESSIONS $CLUSTER"
	wait_for_file "$WORK/scheduler" 60
}

# Which worker ran each task of the recipe, from the scheduler's task stream.
task_stream() { # start | workers
	"$PY" - "$(cat "$WORK/scheduler")" "$1" <<'PY'
import collections, sys
from dask.distributed import Client
with Client(sys.argv[1], timeout=30) as c:
    stream = c.get_task_stream()  # the first call starts the recording
    if sys.argv[2] == "workers":
        by = collections.Counter(t["worker"] for t in stream if t["key"].startswith("source_cells"))
        print(" ".join("%s:%d" % kv for kv in sorted(by.items())))
PY
}

on_its_own_cluster() {
	[ -z "${MADE:-}" ] || { echo "episodes: $(tail -3 "$WORK/run.log")"; return 1; }
	start_cluster || { echo "no cluster: $(tail -3 "$WORK/cluster.log")"; return 1; }
	local addr pids listen workers g out
	addr=$(cat "$WORK/scheduler")
	# scheduler and workers listen on 127.0.0.1, nothing else
	pids=$(session_left "$CLUSTER" | paste -sd'|')
	listen=$(ss -ltnpH | grep -E "pid=($pids)," | awk '{print $4}')
	[ "$(wc -l <<<"$listen")" -ge 3 ] || { echo "listening: $listen"; return 1; }
	if grep -v '^127\.0\.0\.1:' <<<"$listen"; then echo "the cluster listens beyond 127.0.0.1"; return 1; fi
	task_stream start || return 1
	for g in 50ms 70ms; do
		# shellcheck disable=SC2086
		"$PY" "$RECIPE" $ALL --grid $g --scheduler "$addr" -o "$WORK/dask-$g.csv" || return 1
		# shellcheck disable=SC2086
		"$IOPSAMPLE" export $ALL --grid $g -o "$WORK/export-$g.csv" || return 1
		out=$(same_csv "$WORK/dask-$g.csv" "$WORK/export-$g.csv") || { echo "--grid $g: $out"; return 1; }
		echo "--grid $g: $out"
	done
	workers=$(task_stream workers) || return 1
	echo "source files per worker: $workers"
	[ "$(wc -w <<<"$workers")" = 2 ] || { echo "the work did not reach both workers"; return 1; }
	echo "cluster on 127.0.0.1 only: $(tr '\n' ' ' <<<"$listen")"
	kill -TERM "$CLUSTER" && wait "$CLUSTER"
	wait_until 20 session_gone "$CLUSTER" || { echo "left running: $(session_left "$CLUSTER")"; return 1; }
}
check dask_recipe_on_a_cluster_by_its_address_equals_export on_its_own_cluster

# ---- the recipe's own LocalCluster, on every path ------------------------------

# Runs the recipe in a session of its own; after it exits, nothing of the
# session may be left.
recipe_alone() { # ARGS...
	setsid "$PY" "$RECIPE" "$@" 2>"$WORK/recipe.err" &
	local pid=$! rc
	SESSIONS="$SESSIONS $pid"
	wait $pid
	rc=$?
	wait_until 20 session_gone $pid || { echo "left running after exit $rc: $(session_left $pid)"; return 99; }
	return $rc
}

own_cluster() {
	[ -z "${MADE:-}" ] || return 1
	# shellcheck disable=SC2086
	recipe_alone $ALL --grid 40ms --workers 2 -o "$WORK/dask-40ms.csv" || { cat "$WORK/recipe.err"; return 1; }
	# shellcheck disable=SC2086
	"$IOPSAMPLE" export $ALL --grid 40ms -o "$WORK/export-40ms.csv" || return 1
	local out
	out=$(same_csv "$WORK/dask-40ms.csv" "$WORK/export-40ms.csv") || { echo "--grid 40ms: $out"; return 1; }
	echo "--grid 40ms, its own cluster: $out"
	# a file damaged on the workers: a one-line refusal, the cluster gone, no table
	cp -r "$EPS/ep-01" "$WORK/cut" && sed -i 's/"ep-01"/"cut"/' "$WORK/cut/manifest.json" &&
		head -c $(($(stat -c %s "$EPS/ep-01/syscall_io.jsonl.zst") - 3)) "$EPS/ep-01/syscall_io.jsonl.zst" \
			>"$WORK/cut/syscall_io.jsonl.zst" || return 1
	recipe_alone "$EPS/ep-02" "$WORK/cut" --grid 40ms -o "$WORK/cut.csv"
	local rc=$?
	[ $rc = 65 ] || { echo "damaged file: exit $rc, not 65: $(cat "$WORK/recipe.err")"; return 1; }
	[ "$(wc -l <"$WORK/recipe.err")" = 1 ] && grep -q 'cut/syscall_io.jsonl.zst: the zstd stream ends inside a frame' "$WORK/recipe.err" ||
		{ echo "damaged file: $(cat "$WORK/recipe.err")"; return 1; }
	[ ! -e "$WORK/cut.csv" ] && [ -z "$(find "$WORK" -maxdepth 1 -name '.cut.csv.*')" ] || { echo "damaged file: a table was left"; return 1; }
	echo "damaged: $(cat "$WORK/recipe.err")"
	# killed while it runs: the cluster goes with it
	# shellcheck disable=SC2086
	setsid "$PY" "$RECIPE" $ALL --grid 40ms -o "$WORK/killed.csv" 2>/dev/null &
	local pid=$!
	SESSIONS="$SESSIONS $pid"
	wait_until 30 session_has_workers $pid ||
		{ echo "no worker appeared"; return 1; }
	kill -TERM $pid
	wait $pid
	wait_until 20 session_gone $pid || { echo "SIGTERM left running: $(session_left $pid)"; return 1; }
	[ ! -e "$WORK/killed.csv" ] && [ -z "$(find "$WORK" -maxdepth 1 -name '.killed.csv.*')" ] ||
		{ echo "SIGTERM: a table was left: $(ls -a "$WORK")"; return 1; }
}
check dask_recipe_starts_and_stops_its_own_cluster own_cluster

# Refusals found before any cluster starts: one line, export's status, no table.
refusals() {
	refused() { refuses "$1" "$2" "$PY" "$RECIPE" "${@:3}"; } # STATUS TEXT ARGS...
	refused 64 "--grid 10ms is finer than proc_io's interval" "$EPS/ep-01" --grid 10ms -o "$WORK/r.csv" || return
	refused 64 "--grid 5: not a duration" "$EPS/ep-01" --grid 5 -o "$WORK/r.csv" || return
	refused 64 "episode ep-01 twice" "$EPS/ep-01" "$EPS/ep-01" --grid 50ms -o "$WORK/r.csv" || return
	refused 66 "$WORK/none: No such file or directory" "$WORK/none" --grid 50ms -o "$WORK/r.csv" || return
	cp -r "$EPS/ep-03" "$WORK/running" && sed -i 's/"status": *"complete"/"status": "running"/' "$WORK/running/manifest.json"
	refused 65 "episode ep-03 is running" "$WORK/running" --grid 50ms -o "$WORK/r.csv" || return
	refused 73 "-o $WORK/no/r.csv: No such file or directory" "$EPS/ep-01" --grid 50ms -o "$WORK/no/r.csv" || return
	[ ! -e "$WORK/r.csv" ] || { echo "a table was written"; return 1; }
}
check dask_recipe_refuses_what_export_refuses refusals

# The recipe's rule table is the schemas' x-gauge and x-cell, no more, no less.
rules() {
	"$PY" - "$RECIPE" "$TESTS/../schema" <<'PY'
import ast, sys
from epi import expect
from exported import schema_rules
tree = ast.parse(open(sys.argv[1]).read())
(rules,) = [ast.literal_eval(n.value) for n in tree.body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "RULES"]
listed, found = set(rules.items()), schema_rules(sys.argv[2])
expect(listed == found, "the recipe lists %s; the schemas say %s" % (sorted(listed - found), sorted(found - listed)))
print("%d rules, as the schemas annotate" % len(found))
PY
}
check dask_recipe_rules_are_the_schemas_annotations rules
