# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Each file under schema/ validates real rows with a stock JSON Schema
# 2020-12 validator given that file alone: Debian's python3-jsonschema
# (plain jsonschema.validate) and ajv (npm), with no registry and no network
# (a network namespace with nothing up). The envelope each row schema
# $refs is embedded in it (tools/bundle-envelope); a row that breaks the
# envelope is refused, so the $ref was followed.
. "$(dirname "$0")/lib/common.sh"

AJV_DIR=$BUILD/node/node_modules
SCHEMAS=$TESTS/../schema

cat >"$WORK/every.yaml" <<EOY
episode: {name: every, output_dir: $WORK/episodes, labels: {suite: stock}}
target: {command: [$IOWORK, --rounds, "6", --pause-ms, "10", --threads, "2", --children, "1", --tag, $TAG]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles]}
  block_io: {interval: 10ms}
  diskstats: {interval: 10ms}
  taskstats: {interval: 10ms}
  cgroup: {interval: 10ms}
  gpu: {interval: 10ms}
  waits: {interval: 10ms}
  offcpu: {interval: 10ms}
  net: {interval: 10ms, interfaces: [lo]}
EOY
# gpu from NVML's test double (tests/e2e/gpu.sh): two GPUs, one giving less
cat >"$WORK/nvml.script" <<'EOS'
gpu GPU-00000000-fake-0000-0000-000000000000 Fake_H100 5 16
gpu GPU-11111111-fake-1111-1111-111111111111 Fake_T4 3 16
0 pcie_tx 1000 2000 4000000000 4294000000 4294967000 500 70000
0 pcie_rx 0 100 200 300
0 energy 5000 5100 5700 6900
0 gpu_util 10 20 30
0 mem_util 1 2 3 4
0 mem_used 1073741824
0 power 70000 71000
0 sm_clock 1755 1980
0 temperature 33 34
0 throttle 0 1 4
1 pcie_tx 7 8 9
1 pcie_rx 7 8 9
1 gpu_util 5
1 mem_util 5
1 mem_used 1000
1 power 20000
EOS
IOPSAMPLE_TEST_NVML=$BUILD/fixtures/libfake_nvml.so FAKE_NVML_SCRIPT=$WORK/nvml.script \
	"$IOPSAMPLE" run "$WORK/every.yaml" --quiet >"$WORK/run.log" 2>&1
RUN_RC=$?
EP=$WORK/episodes/every

# Rows of each source with a file, as JSON Lines, and the manifest as one.
rows_of() {
	[ $RUN_RC -eq 0 ] || { echo "run: exit $RUN_RC: $(tail -2 "$WORK/run.log")"; return 1; }
	local s f
	for s in $("$PY" -c 'import json, sys; print(" ".join(k for k, v in json.load(open(sys.argv[1]))["sources"].items() if v["file"]))' "$EP/manifest.json"); do
		f=$(ls "$EP/$s".jsonl*) && "$IOPSAMPLE" cat "$f" >"$WORK/$s.rows" || return 1
	done
	"$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$EP/manifest.json" >"$WORK/manifest.rows"
	# iopsample compare's JSON, as one
	"$IOPSAMPLE" compare "$EP" --by-episode --format json -o "$WORK/compare.json" &&
		"$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$WORK/compare.json" >"$WORK/compare.rows" &&
	# iopsample verdict's JSON: a line an episode, with and without the oracles
		"$IOPSAMPLE" verdict "$EP" --format json -o "$WORK/verdict.rows" &&
		"$IOPSAMPLE" verdict "$EP" --deployable-only --format json >>"$WORK/verdict.rows"
}

python_jsonschema() {
	rows_of || return 1
	unshare -n "$PY" - "$SCHEMAS" "$WORK" <<'PY'
import glob, json, os, sys
import jsonschema
from epi import expect
schemas, work = sys.argv[1:3]
checked = []
for path in sorted(glob.glob(os.path.join(work, "*.rows"))):
    name = os.path.basename(path)[:-5]
    schema = json.load(open(os.path.join(schemas, name + ".schema.json")))
    rows = [json.loads(l) for l in open(path)]
    expect(rows, "%s: no rows" % name)
    for r in rows:
        jsonschema.validate(r, schema)  # the stock call: no resolver, no registry
    if name not in ("manifest", "compare", "verdict"):
        bad = dict(rows[0], seq=-1)  # the envelope's rule, not the source's
        try:
            jsonschema.validate(bad, schema)
            expect(False, "%s: a row with seq -1 passed: the envelope was not applied" % name)
        except jsonschema.ValidationError:
            pass
    checked.append("%s %d" % (name, len(rows)))
# every schema of schema/ but the envelope: each source's rows, the manifest,
# compare's and verdict's JSON
want = len([f for f in os.listdir(schemas) if f.endswith(".schema.json")]) - 1
expect(len(checked) == want, "checked %s, of %d schemas" % (checked, want))
from importlib.metadata import version
print("jsonschema %s, offline: %s" % (version("jsonschema"), ", ".join(checked)))
PY
}

ajv() {
	[ -e "$AJV_DIR/ajv/package.json" ] || { echo "no ajv in $AJV_DIR (make check installs it)"; return 1; }
	rows_of || return 1
	NODE_PATH=$AJV_DIR unshare -n node - "$SCHEMAS" "$WORK" <<'JS'
// ajv's strict mode wants annotation keywords declared: ours are x-...
const fs = require("fs"), path = require("path");
const Ajv2020 = require("ajv/dist/2020");
const [schemas, work] = process.argv.slice(2);
const warned = [];
const logger = {log: () => {}, warn: (...a) => warned.push(a.join(" ")), error: (...a) => warned.push(a.join(" "))};
const out = [];
for (const f of fs.readdirSync(work).filter((f) => f.endsWith(".rows")).sort()) {
  const name = f.slice(0, -5);
  const ajv = new Ajv2020({allErrors: true, logger});
  ajv.addVocabulary(["x-unit", "x-gauge", "x-cell", "x-histogram", "x-compare", "x-main", "x-overview", "x-keys"]);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(schemas, name + ".schema.json"), "utf8")));
  const rows = fs.readFileSync(path.join(work, f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  for (const r of rows)
    if (!validate(r)) { console.log(name + ": " + JSON.stringify(validate.errors.slice(0, 2))); process.exit(1); }
  if (name !== "manifest" && name !== "compare" && name !== "verdict" && validate({...rows[0], seq: -1})) { console.log(name + ": seq -1 passed"); process.exit(1); }
  out.push(name + " " + rows.length);
}
if (warned.length) { console.log("ajv warned: " + warned.slice(0, 3).join("; ")); process.exit(1); }
// every schema of schema/ but the envelope: each source's rows, the manifest,
// compare's and verdict's JSON
const want = fs.readdirSync(schemas).filter((f) => f.endsWith(".schema.json")).length - 1;
if (out.length !== want) { console.log("checked " + out + " of " + want); process.exit(1); }
console.log("ajv " + require("ajv/package.json").version + " (strict), offline: " + out.join(", "));
JS
}

check schema_files_validate_alone_with_python_jsonschema python_jsonschema
check schema_files_validate_alone_with_ajv ajv
