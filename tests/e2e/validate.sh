# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample validate: every file a real episode writes passes it and an
# independent validator (python3-jsonschema); a row or manifest broken in
# any way either can see is rejected by both, naming the file and the line;
# what a schema cannot say (seq, time, final, counts, files) is checked too.
. "$(dirname "$0")/lib/common.sh"

SYSIO=$WORKLOADS/sysio

episode() { # name compression
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, labels: {case: validate}}
target: {command: [$SYSIO, --threads, "2", --children, "1", --rounds, "3", --report, $WORK/$1.json]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles, task-clock]}
output: {compression: $2}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet >/dev/null
}

episode plain none && episode packed zstd || { fail episodes "iopsample run failed: $?"; exit 1; }

real_episodes_pass_both() {
	local out rc
	out=$("$IOPSAMPLE" validate "$WORK/episodes/plain" "$WORK/episodes/packed/")
	rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ] || { echo "validate: exit $rc: $out"; return 1; }
	# epi.Episode validates the manifest and every row with jsonschema
	for d in plain packed; do
		episode_py "$WORK/episodes/$d" <<'PY' || return
from epi import expect
expect(set(ep.rows) == {"proc_io", "syscall_io", "perf_event"}, "sources %s" % list(ep.rows))
print("%s: %s rows" % (ep.manifest["episode"], {k: len(v) for k, v in ep.rows.items()}))
PY
	done
}
check real_episodes_validate_with_iopsample_and_jsonschema real_episodes_pass_both

# broken NAME FROM FILE LINE PYTHON: a copy of episode FROM whose FILE
# (a source's rows, or manifest.json) has PYTHON applied to the object `r`
# on LINE (1-based; 0 for the manifest); both validators must reject it.
broken() {
	local name=$1 from=$2 file=$3 line=$4 change=$5 dir=$WORK/broken/$1
	mkdir -p "$WORK/broken"
	cp -r "$WORK/episodes/$from" "$dir"
	"$PY" - "$dir" "$file" "$line" "$change" <<'PY' || return
import json, subprocess, sys
from epi import expect, schema_errors
d, file, line, change = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
path = d + "/" + file
if line == 0:
    r = json.load(open(path))
    exec(change)
    expect(schema_errors("manifest", r), "jsonschema accepted the manifest after " + change)
    json.dump(r, open(path, "w"))
    sys.exit(0)
zst = path.endswith(".zst")
text = subprocess.run(["zstd", "-dcq", path], capture_output=True, check=True).stdout.decode() if zst else open(path).read()
rows = text.splitlines()
r = json.loads(rows[line - 1])
exec(change)
expect(schema_errors(file.split(".")[0], r), "jsonschema accepted a row after " + change)
rows[line - 1] = json.dumps(r, separators=(",", ":"))
data = ("\n".join(rows) + "\n").encode()
if zst:
    data = subprocess.run(["zstd", "-cq"], input=data, capture_output=True, check=True).stdout
open(path, "wb").write(data)
PY
	local out rc
	out=$("$IOPSAMPLE" validate "$dir")
	rc=$?
	[ $rc -eq 65 ] || { echo "exit $rc for $name: $out"; return 1; }
	local where="$dir/$file:$line: "
	[ "$line" = 0 ] && where="$dir/$file: "
	grep -qF "$where" <<<"$out" || { echo "$name: no line starting $where in: $out"; return 1; }
	echo "$(grep -F "$where" <<<"$out" | head -1 | sed "s|$WORK/broken/||")"
}

schema_cases() {
	broken extra plain proc_io.jsonl 3 'r["extra"] = 1' &&
	broken missing plain syscall_io.jsonl 2 'del r["write_bytes"]' &&
	broken type plain proc_io.jsonl 4 'r["wchar"] = "12"' &&
	broken negative plain proc_io.jsonl 1 'r["syscr"] = -1' &&
	broken hist31 plain syscall_io.jsonl 3 'r["read_size_hist"].pop()' &&
	broken hist33 packed syscall_io.jsonl.zst 2 'r["write_size_hist"].append(0)' &&
	broken bysyscall plain syscall_io.jsonl 2 'r["by_syscall"]["read"]["calls"] = 1.5' &&
	broken event_name plain perf_event.jsonl 2 'r["Page-Faults"] = 1' &&
	broken running_pct packed perf_event.jsonl.zst 1 'r["running_pct"] = 101' &&
	broken manifest_extra plain manifest.json 0 'r["extra"] = 1' &&
	broken manifest_status plain manifest.json 0 'r["status"] = "done"' &&
	broken manifest_rows plain manifest.json 0 'r["sources"]["proc_io"]["rows"] = "7"'
}
check rows_with_wrong_fields_are_rejected_by_both schema_cases

# invariant NAME FROM EXPECTED-TEXT SHELL...: a copy of FROM changed by the
# shell commands (run in the copy) must fail validate with EXPECTED-TEXT.
invariant() {
	local name=$1 from=$2 want=$3 dir=$WORK/inv/$1
	shift 3
	mkdir -p "$WORK/inv"
	cp -r "$WORK/episodes/$from" "$dir"
	(cd "$dir" && eval "$*") || return
	local out rc
	out=$("$IOPSAMPLE" validate "$dir")
	rc=$?
	[ $rc -eq 65 ] && grep -qF -- "$want" <<<"$out" ||
		{ echo "$name: exit $rc, wanted \"$want\" in: $out"; return 1; }
	echo "$(grep -F -- "$want" <<<"$out" | head -1 | sed "s|$WORK/inv/||")"
}

# A row of proc_io.jsonl rewritten with python: jq-free, exact.
edit_row() { # file line python-on-r
	"$PY" - "$@" <<'PY'
import json, sys
path, line, change = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = open(path).read().splitlines()
r = json.loads(rows[line - 1])
exec(change)
rows[line - 1] = json.dumps(r, separators=(",", ":"))
open(path, "w").write("\n".join(rows) + "\n")
PY
}

invariant_cases() {
	invariant gap plain "proc_io.jsonl:5: seq 5, expected 4" "sed -i 5d proc_io.jsonl" &&
	invariant count plain "rows, the manifest says" "sed -i 5d proc_io.jsonl" &&
	invariant time plain "proc_io.jsonl:3: t_mono_ns" \
		"edit_row proc_io.jsonl 3 'r[\"t_mono_ns\"] = 1'" &&
	invariant interval plain "proc_io.jsonl:2: interval_ns" \
		"edit_row proc_io.jsonl 2 'r[\"interval_ns\"] += 1'" &&
	invariant final2 plain "proc_io.jsonl:2: a second final row" \
		"edit_row proc_io.jsonl 1 'r[\"final\"] = True'; edit_row proc_io.jsonl 2 'r[\"final\"] = True'" &&
	invariant nofinal plain "no final row" \
		"n=\$(wc -l <proc_io.jsonl); edit_row proc_io.jsonl \$n 'r[\"final\"] = False'" &&
	invariant labels plain "syscall_io.jsonl:2: labels differ" \
		"edit_row syscall_io.jsonl 2 'r[\"labels\"] = {\"case\": \"other\"}'" &&
	invariant deploy plain "proc_io.jsonl:1: available_in_deployment false" \
		"edit_row proc_io.jsonl 1 'r[\"available_in_deployment\"] = False'" &&
	invariant truncated plain "proc_io.jsonl:" \
		"truncate -s -7 proc_io.jsonl" &&
	invariant truncated_zst packed "the zstd stream ends inside a frame" \
		"truncate -s -9 perf_event.jsonl.zst" &&
	invariant notjson plain "syscall_io.jsonl:2: not a JSON row" \
		"sed -i '2s/^{/[/' syscall_io.jsonl" &&
	invariant nofile plain "perf_event.jsonl: No such file or directory" "rm perf_event.jsonl" &&
	invariant stray plain "extra.jsonl: rows no source of the manifest names" \
		"cp proc_io.jsonl extra.jsonl" &&
	invariant running plain "manifest.json: status is running" \
		"sed -i 's/\"status\": *\"complete\"/\"status\": \"running\"/' manifest.json"
}
check envelope_invariants_are_checked invariant_cases

usage() {
	local out rc
	"$IOPSAMPLE" validate 2>/dev/null
	rc=$?
	[ $rc -eq 64 ] || { echo "no arguments: exit $rc"; return 1; }
	out=$("$IOPSAMPLE" validate "$WORK/nope" "$WORK/episodes/plain")
	rc=$?
	[ $rc -eq 65 ] && [ "$out" = "$WORK/nope: No such file or directory" ] ||
		{ echo "missing dir: exit $rc: $out"; return 1; }
}
check validate_usage_and_missing_directory usage
