# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# docs/at-scale.md: `iopsample schema --columns` types every field from the
# schemas, and the DuckDB recipe, run as the page writes it (DuckDB's Node
# API, from the npm registry), gives `export --grid 50ms` and `export
# --episodes` cell for cell, on two episodes of every source from this VM,
# where hardware perf events are null in every row.
. "$(dirname "$0")/lib/common.sh"

DOC=$TESTS/../docs/at-scale.md
SCHEMAS=$TESTS/../schema
NODE_DIR=$BUILD/node/node_modules
SOURCES="proc_io syscall_io perf_event block_io diskstats taskstats cgroup"

# Two episodes: one zstd, one plain; labels that differ (vm-2 has no "run");
# intervals the 50 ms grid splits (20 ms, 30 ms) and ones it holds whole.
# vm-2's target starts 1, 2, ... 6 sleepers at a time, so the gauges (nprocs,
# nthreads) change within rows that straddle cells.
mkdir -p "$WORK/data"
for n in 1 2; do
	if [ $n = 1 ]; then
		labels="{host: vm, run: \"1\"}" compression=zstd
		command="[$IOWORK, --rounds, \"25\", --pause-ms, \"20\", --threads, \"2\", --children, \"1\", --tag, $TAG]"
	else
		labels="{host: vm}" compression=none
		command="'for i in 1 2 3 4 5 6; do for j in \$(seq \$i); do sleep 0.035 & done; dd if=/dev/zero of=$WORK/f bs=4k count=16 status=none; wait; done'"
	fi
	cat >"$WORK/e$n.yaml" <<EOY
episode: {name: vm-$n, output_dir: $WORK/data/episodes, labels: $labels}
target: {command: $command}
sources:
  proc_io: {interval: 20ms}
  syscall_io: {interval: 20ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles, instructions, cache-misses]}
  block_io: {interval: 10ms}
  diskstats: {interval: 10ms}
  taskstats: {interval: 30ms}
  cgroup: {interval: 20ms}
output: {compression: $compression}
EOY
	"$IOPSAMPLE" run "$WORK/e$n.yaml" --quiet >>"$WORK/run.log" 2>&1 || RUN_FAILED=$n
done

# The page's blocks between its recipe markers: sh, then step 2, 3, 4's sql.
"$PY" - "$DOC" "$WORK" <<'PY'
import re, sys
doc, work = sys.argv[1:3]
text = open(doc).read()
recipe = text[text.index("<!-- at-scale recipe"):text.index("<!-- end of at-scale recipe -->")]
blocks = re.findall(r"```(sh|sql)\n(.*?)```", recipe, re.S)
names = ["make-sample.sh", "recipe.sql", "cells.sql", "episodes.sql"]
assert [b[0] for b in blocks] == ["sh", "sql", "sql", "sql"], [b[0] for b in blocks]
for name, (_, body) in zip(names, blocks):
    open(f"{work}/{name}", "w").write(body)
PY

# Runs SQL files in one DuckDB session (cwd: the folder that holds episodes/).
duckdb_run() {
	(cd "$WORK/data" && NODE_PATH=$NODE_DIR node - "$@") <<'JS'
const { DuckDBInstance } = require("@duckdb/node-api");
const fs = require("fs");
(async () => {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  const r = await c.runAndReadAll(process.argv.slice(2).map(f => fs.readFileSync(f, "utf8")).join("\n"));
  for (const row of r.getRowObjectsJson()) console.log(JSON.stringify(row));
})().catch(e => { console.error(e.message); process.exit(1); });
JS
}

# The recipe's table next to export's: the same columns, rows and cells,
# each the same value of the same JSON type; every column typed.
compare() { # TABLE EXPORT_FLAGS...
	local table=$1
	shift
	[ -z "${RUN_FAILED:-}" ] || { echo "episode $RUN_FAILED did not run: $(tail -2 "$WORK/run.log")"; return 1; }
	[ -e "$NODE_DIR/@duckdb/node-api/package.json" ] || { echo "no @duckdb/node-api in $NODE_DIR (make check installs it)"; return 1; }
	mkdir -p "$WORK/bin" && ln -sf "$IOPSAMPLE" "$WORK/bin/iopsample"
	(cd "$WORK/data" && PATH=$WORK/bin:$PATH sh "$WORK/make-sample.sh") || return 1
	printf "COPY %s TO '%s' (FORMAT json);\nDESCRIBE %s;\n" "$table" "$WORK/$table.duck.jsonl" "$table" >"$WORK/out.sql"
	duckdb_run "$WORK/data/sample.sql" "$WORK/recipe.sql" "$WORK/$table.sql" "$WORK/out.sql" >"$WORK/$table.types" || return 1
	(cd "$WORK/data" && "$IOPSAMPLE" export episodes/vm-1 episodes/vm-2 "$@" --format jsonl -o "$WORK/$table.export.jsonl") || return 1
	same_cells "$table"
}

same_cells() { # TABLE: $WORK/TABLE.export.jsonl against TABLE.duck.jsonl and TABLE.types
	"$PY" - "$WORK" "$1" <<'PY'
import json, sys
from epi import expect
work, table = sys.argv[1:3]
ours = [json.loads(l) for l in open(f"{work}/{table}.export.jsonl")]
duck = [json.loads(l) for l in open(f"{work}/{table}.duck.jsonl")]
types = {r["column_name"]: r["column_type"] for r in map(json.loads, open(f"{work}/{table}.types"))}
expect(len(ours) == len(duck) > 0, "%d rows from export, %d from DuckDB" % (len(ours), len(duck)))
cols = list(ours[0])
expect(set(cols) == set(duck[0]) == set(types),
       "columns only in export: %s; only in DuckDB: %s" % (sorted(set(cols) - set(duck[0]))[:5],
                                                           sorted(set(duck[0]) - set(cols))[:5]))
cells = 0
for o, d in zip(ours, duck):
    for c in cols:
        expect(o[c] == d[c] and type(o[c]) is type(d[c]),
               "%s, t_start_ns %s, %s: export %r, DuckDB %r" % (o["episode"], o.get("t_start_ns"), c, o[c], d[c]))
        cells += 1
# typed from the schemas, not from the values
m = json.load(open(f"{work}/data/episodes/vm-1/manifest.json"))
uncounted = [e["field"] for e in m["sources"]["perf_event"]["events"] if not e["counted"]]
for f in uncounted:
    c = "perf_event." + f
    expect(all(r[c] is None for r in ours), "%s is not null in every row" % c)
    expect(types[c] == "BIGINT", "%s, null in every row, is %s" % (c, types[c]))
for c, t in types.items():
    want = ("DOUBLE" if c.split(".")[-1] in ("running_pct", "util_pct", "ipc", "cache_miss_rate")
            else "VARCHAR" if c in ("episode", "status", "target.signal", "target.stop_reason")
                              or c.startswith("label.") or c.endswith(".status")
            else "BOOLEAN" if c.endswith(".available_in_deployment") else "BIGINT")
    expect(t == want, "%s is %s, not %s" % (c, t, want))
print("%s: %d rows x %d columns, %d cells equal to export's; %s null and BIGINT" %
      (table, len(ours), len(cols), cells, ", ".join(uncounted) or "no event"))
PY
}

check recipe_gives_export_grid_50ms_cell_for_cell compare cells --grid 50ms
check recipe_gives_export_episodes_cell_for_cell compare episodes --episodes

# As the Ray recipe runs it: one episode at a time, `episodes` set to its
# directory and only the sources it has files of; each gives export's cells
# of that episode alone.
one_at_a_time() {
	local n s
	for n in 1 2; do
		{
			echo "SET VARIABLE episodes = 'episodes/vm-$n';"
			echo "CREATE OR REPLACE TEMP VIEW sample AS"
			sep=""
			for s in $SOURCES; do
				ls "$WORK/data/episodes/vm-$n/$s".jsonl* >/dev/null 2>&1 || continue
				printf "%s SELECT '%s' AS src, episode, seq, t_mono_ns, final, to_json(r) AS j FROM read_json('episodes/vm-%s/%s.jsonl*', format = 'newline_delimited', columns = %s) AS r\n" \
					"$sep" "$s" "$n" "$s" "$("$IOPSAMPLE" schema --columns "$s" --dialect duckdb "$WORK/data/episodes/vm-1" "$WORK/data/episodes/vm-2")"
				sep="UNION ALL"
			done
			echo ";"
		} >"$WORK/one.sql"
		printf "COPY cells TO '%s' (FORMAT json);\nDESCRIBE cells;\n" "$WORK/cells.duck.jsonl" >"$WORK/out.sql"
		duckdb_run "$WORK/one.sql" "$WORK/recipe.sql" "$WORK/cells.sql" "$WORK/out.sql" >"$WORK/cells.types" || return 1
		(cd "$WORK/data" && "$IOPSAMPLE" export episodes/vm-$n --grid 50ms --format jsonl -o "$WORK/cells.export.jsonl") || return 1
		same_cells cells || return 1
	done
}
check one_episode_at_a_time_as_ray_tasks_run_it one_at_a_time

# The recipe's rule table is the schemas' x-gauge and x-cell, no more, no less.
rules_are_the_schemas() {
	"$PY" - "$WORK/recipe.sql" "$SCHEMAS" <<'PY'
import re, sys
from epi import expect
from exported import schema_rules
sql, schemas = sys.argv[1:3]
values = re.search(r"INSERT INTO rule VALUES (.*?);", open(sql).read(), re.S).group(1)
listed = set(re.findall(r"\('(\w+)', '(\w+)'\)", values))
found = schema_rules(schemas)
expect(listed == found, "the recipe lists %s; the schemas say %s" % (sorted(listed - found), sorted(found - listed)))
print("%d rules, as the schemas annotate" % len(found))
PY
}
check recipe_rules_are_the_schemas_annotations rules_are_the_schemas

# Every field of every source, typed as its schema says: the JSON types of
# the schema (read here on their own) against the columns printed, every
# dialect; the fields perf_event's config names come from the episodes.
columns_are_the_schemas_types() {
	[ -z "${RUN_FAILED:-}" ] || { echo "episode $RUN_FAILED did not run"; return 1; }
	local s d
	for s in $SOURCES; do
		for d in duckdb spark dask pandas; do
			"$IOPSAMPLE" schema --columns $s --dialect $d "$WORK/data/episodes/vm-1" >"$WORK/$s.$d" || return 1
		done
	done
	"$PY" - "$WORK" "$SCHEMAS" "$SOURCES" <<'PY'
import ast, json, re, sys
from epi import expect
work, schemas, sources = sys.argv[1], sys.argv[2], sys.argv[3].split()
def load(name):
    return json.load(open(f"{schemas}/{name}.schema.json"))
def deref(doc, s):
    ref = s.get("$ref", "")
    return deref(doc, doc["$defs"][ref.split("/")[-1]]) if ref.startswith("#/$defs/") else s
def duck(doc, s, json_maps=True):
    s = deref(doc, s)
    t = s.get("type")
    if isinstance(t, list):
        (t,) = [x for x in t if x != "null"]
    if t is None:
        t = {str: "string", int: "integer", bool: "boolean"}[type(s.get("const", (s.get("enum") or [None])[0]))]
    if t == "object" and "properties" in s:
        return "STRUCT(%s)" % ", ".join('"%s" %s' % (k, duck(doc, v, json_maps)) for k, v in s["properties"].items())
    if t == "object":
        v = deref(doc, s["additionalProperties"])
        # DuckDB keeps values that may lack a key (by_syscall's metadata
        # entries) as written; Spark reads the missing keys as null
        optional = set(v.get("properties", {})) - set(v.get("required", v.get("properties", {})))
        return "MAP(VARCHAR, %s)" % ("JSON" if optional and json_maps else duck(doc, v, json_maps))
    if t == "array":
        return duck(doc, s["items"], json_maps) + "[]"
    return {"integer": "BIGINT", "number": "DOUBLE", "string": "VARCHAR", "boolean": "BOOLEAN"}[t]
def dask(doc, s):  # pandas: nullable Int64 and boolean where the schema allows null
    s = deref(doc, s)
    t = s.get("type")
    null = isinstance(t, list) and "null" in t
    d = duck(doc, s)
    if d.startswith(("STRUCT", "MAP")) or d.endswith("[]"):
        return "object"
    return {"BIGINT": "Int64" if null else "int64", "DOUBLE": "float64", "VARCHAR": "string",
            "BOOLEAN": "boolean" if null else "bool"}[d]
def pandas(doc, s):  # dask's dtypes, nested as the rows are; a map's entries under "*"
    s = deref(doc, s)
    if s.get("type") == "object" or s.get("type") == ["object"]:
        out = {k: pandas(doc, v) for k, v in s.get("properties", {}).items()}
        each = s.get("additionalProperties")
        if not isinstance(each, dict):
            each = next(iter(s.get("patternProperties", {}).values()), None)
        if isinstance(each, dict):
            out["*"] = pandas(doc, each)
        if out:
            return out
    return dask(doc, s)
def spark(t):  # DuckDB's spelling to Spark's
    t = re.sub(r'"(\w+)" ', r"`\1`: ", t).replace("VARCHAR", "STRING")
    while "[]" in t:
        t = re.sub(r"(\w+(?:<[^<>]*>)?)\[\]", r"ARRAY<\1>", t, count=1)
    return t.replace("STRUCT(", "STRUCT<").replace("MAP(", "MAP<").replace(")", ">")
env = load("envelope")
row = json.loads(open(f"{work}/data/episodes/vm-1/manifest.json").read())
for s in sources:
    doc = load(s)
    want = {k: duck(env, v) for k, v in env["properties"].items()}
    if "patternProperties" in doc:
        (pattern_schema,) = doc["patternProperties"].values()
        for e in row["sources"][s]["events"]:
            want[e["field"]] = duck(doc, pattern_schema)
    want.update({k: duck(doc, v) for k, v in doc["properties"].items() if k not in want})
    got = ast.literal_eval(open(f"{work}/{s}.duckdb").read())
    expect(got == want, "%s duckdb: %s" % (s, {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}))
    expect(list(got)[:9] == list(env["properties"]), "%s: the envelope first: %s" % (s, list(got)[:9]))
    want_dask = {k: dask(env, v) for k, v in env["properties"].items()}
    if "patternProperties" in doc:  # sorted (no digits in these names: natural order is plain)
        for f in sorted(e["field"] for e in row["sources"][s]["events"]):
            want_dask[f] = dask(doc, pattern_schema)
    want_dask.update({k: dask(doc, v) for k, v in doc["properties"].items() if k not in want_dask})
    got_dask = json.loads(open(f"{work}/{s}.dask").read())
    expect(list(got_dask.items()) == list(want_dask.items()) and list(got_dask) == list(got),
           "%s dask: %s" % (s, {k: (got_dask.get(k), want_dask.get(k)) for k in set(got_dask) | set(want_dask) if got_dask.get(k) != want_dask.get(k)}))
    want_pandas = {k: pandas(env, v) for k, v in env["properties"].items()}
    if "patternProperties" in doc:
        for f in sorted(e["field"] for e in row["sources"][s]["events"]):
            want_pandas[f] = pandas(doc, pattern_schema)
    want_pandas.update({k: pandas(doc, v) for k, v in doc["properties"].items() if k not in want_pandas})
    got_pandas = json.loads(open(f"{work}/{s}.pandas").read())
    expect(list(got_pandas.items()) == list(want_pandas.items()),
           "%s pandas: %s" % (s, {k: (got_pandas.get(k), want_pandas.get(k)) for k in set(got_pandas) | set(want_pandas) if got_pandas.get(k) != want_pandas.get(k)}))
    ddl = open(f"{work}/{s}.spark").read().strip()
    as_spark = {k: duck(env, v, False) for k, v in env["properties"].items()}
    as_spark.update({k: duck(doc, v, False) for k, v in doc["properties"].items() if k not in as_spark})
    want_ddl = ", ".join("`%s` %s" % (k, spark(as_spark.get(k, v))) for k, v in got.items())
    expect(ddl == want_ddl, "%s spark: %s" % (s, ddl[:200]))
print("%d sources, all four dialects, every field as its schema types it" % len(sources))
PY
}
check schema_columns_are_the_schemas_types columns_are_the_schemas_types

# What it cannot type is refused with one line and the usage status.
schema_refusals() {
	expect_exit() { refuses "$1" "$2" "$IOPSAMPLE" schema "${@:3}"; } # STATUS TEXT ARGS...
	expect_exit 64 "usage: iopsample schema" --columns proc_io || return 1
	expect_exit 64 "--dialect sqlite: not duckdb, spark, dask or pandas" --columns proc_io --dialect sqlite || return 1
	expect_exit 64 "--columns nope: not a source; the sources are proc_io" --columns nope --dialect spark || return 1
	expect_exit 64 "perf_event has fields its config names" --columns perf_event --dialect duckdb || return 1
	expect_exit 66 "$WORK/none: No such file or directory" --columns perf_event --dialect duckdb "$WORK/none" || return 1
	mkdir -p "$WORK/empty"
	expect_exit 66 "not an episode directory" --columns proc_io --dialect spark "$WORK/empty"
}
check schema_refuses_what_it_cannot_type schema_refusals

# The Spark and Ray recipes, which no CI here can run, are Python that
# parses, each in a section that says in place that it is untested.
other_recipes_parse() {
	"$PY" - "$DOC" <<'PY'
import ast, re, sys
sections = re.split(r"\n(?=## )", open(sys.argv[1]).read())
blocks = [(s.splitlines()[0], b) for s in sections for b in re.findall(r"```python\n(.*?)```", s, re.S)]
assert len(blocks) == 2, "%d python blocks" % len(blocks)
for title, b in blocks:
    ast.parse(b)
    section = next(s for s in sections if s.startswith(title))
    assert "(untested)" in title and "> **Untested.**" in section, "%s: not marked untested" % title
print("%d python blocks parse, each marked untested: %s" % (len(blocks), ", ".join(t for t, _ in blocks)))
PY
}
check spark_and_ray_recipes_are_python other_recipes_parse
