# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# schema/ is exact: real rows and manifests pass (every test's Episode load
# checks that); a row or manifest with a key too many or too few, or a value
# of the wrong type or range, does not.
. "$(dirname "$0")/lib/common.sh"

cat >"$WORK/s.yaml" <<EOY
episode: {name: s}
target: {command: [$IOWORK, --rounds, "3", --pause-ms, "10"]}
sources:
  proc_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles, task-clock]}
EOY

strict() {
	"$IOPSAMPLE" run "$WORK/s.yaml" --quiet || return
	episode_py "$WORK/episodes/s" <<'PY'
import copy
from epi import expect, schema_errors
row = ep.rows["proc_io"][0]
expect(not schema_errors("proc_io", row), "a real row fails")
def bad(what, change, schema="proc_io", base=row):
    r = copy.deepcopy(base)
    change(r)
    expect(schema_errors(schema, r), "accepted a row with " + what)
bad("an extra key", lambda r: r.update(extra=1))
bad("no wchar", lambda r: r.pop("wchar"))
bad("no seq", lambda r: r.pop("seq"))
bad("a string count", lambda r: r.update(wchar="12"))
bad("a negative count", lambda r: r.update(syscr=-1))
bad("a float time", lambda r: r.update(t_mono_ns=1.5))
bad("another source", lambda r: r.update(source="perf_event"))
bad("a non-string label", lambda r: r.update(labels={"a": 1}))
bad("a bad episode name", lambda r: r.update(episode="a/b"))
pe = ep.rows["perf_event"][0]
expect(not schema_errors("perf_event", pe), "a real perf_event row fails")
bad("an event field that is not a name", lambda r: r.update({"Page-Faults": 1}), "perf_event", pe)
bad("a string count", lambda r: r.update(page_faults="1"), "perf_event", pe)
bad("a fractional count", lambda r: r.update(page_faults=1.5), "perf_event", pe)
bad("a negative count", lambda r: r.update(task_clock=-1), "perf_event", pe)
bad("no running_pct", lambda r: r.pop("running_pct"), "perf_event", pe)
bad("running_pct over 100", lambda r: r.update(running_pct=100.5), "perf_event", pe)
bad("a string ipc", lambda r: r.update(ipc="1.2"), "perf_event", pe)
bad("a non-boolean final", lambda r: r.update(final=1), "perf_event", pe)
bad("no seq", lambda r: r.pop("seq"), "perf_event", pe)
m = ep.manifest
ev = m["sources"]["perf_event"]["events"]
expect([e["field"] for e in ev] == ["page_faults", "cycles", "task_clock"], "events %s" % ev)
bad("an event without its reason", lambda x: x["sources"]["perf_event"]["events"][0].pop("reason"), "manifest", m)
bad("an event with an unknown scope", lambda x: x["sources"]["perf_event"]["events"][0].update(scope="kernel"), "manifest", m)
bad("no cpu_ns", lambda x: x["sources"]["proc_io"].pop("cpu_ns"), "manifest", m)
bad("an extra manifest key", lambda x: x.update(extra=1), "manifest", m)
bad("no target", lambda x: x.pop("target"), "manifest", m)
bad("an unknown status", lambda x: x.update(status="done"), "manifest", m)
bad("an unknown source", lambda x: x["sources"].update(nope=x["sources"]["proc_io"]), "manifest", m)
bad("an interval below 1 ms", lambda x: x["sources"]["proc_io"].update(interval_ns=999), "manifest", m)
PY
}

check schemas_reject_what_iopsample_never_writes strict

# docs/data-model.md's field tables and schema/ list the same fields.
docs_agree() {
	"$PY" - "$TESTS/../docs/data-model.md" <<'PY'
import json, os, re, sys
from epi import expect, SCHEMA_DIR
doc = open(sys.argv[1]).read()

def table_rows(heading):
    """(name, type, last cell) of the first table under heading, for the
    rows whose first cell is a backticked name."""
    part = doc.split(heading, 1)[1]
    part = re.split(r"\n#+ ", part, 1)[0]
    part = part[part.index("\n|"):].split("\n\n", 1)[0]
    return [(m[0], m[1], m[2]) for m in re.findall(r"^\| `([a-z_<>]+)` \| ([^|]+?) \|(?:.*\|)? ([^|]*) \|$", part, re.M)]

def table_fields(heading):
    return [r[0] for r in table_rows(heading)]

def schema(name):
    return json.load(open(os.path.join(SCHEMA_DIR, name + ".schema.json")))

def doc_type(s, root):
    """How the docs spell a property's JSON type: "int or null", "array of 32 ints"."""
    if "$ref" in s:
        s = dict(root["$defs"][s["$ref"].split("/")[-1]], **{k: v for k, v in s.items() if k != "$ref"})
    words = {"integer": "int", "boolean": "bool", "number": "number", "string": "string",
             "object": "object", "null": "null"}
    t = s.get("type")
    if t == "array":
        expect(s.get("minItems") == s.get("maxItems"), "arrays in rows have one length")
        return "array of %d %ss" % (s["maxItems"], words[s["items"]["type"]])
    return " or ".join(words[x] for x in (t if isinstance(t, list) else [t]))

env = list(schema("envelope")["properties"])
got = table_fields("### The envelope")
expect(got == env, "envelope: docs %s, schema %s" % (got, env))
typed = 0
# every source the manifest may name, in registry order
sources = schema("manifest")["$defs"]["source_name"]["enum"]
expect(sorted(sources) == sorted(f[:-12] for f in os.listdir(SCHEMA_DIR)
                                 if f.endswith(".schema.json") and f[:-12] not in ("envelope", "manifest", "compare", "verdict")),
       "schema/ holds a row schema the manifest does not name, or the reverse")
for source in ["envelope"] + sources:
    s = schema(source)
    rows = table_rows("### The envelope" if source == "envelope" else "## " + source)
    if source != "envelope":
        # perf_event's event fields are a pattern, one row "<event>" in the docs
        props = ["<event>"] * len(s.get("patternProperties", {})) + [k for k in s["properties"] if k != "source"]
        expect([r[0] for r in rows] == props, "%s: docs %s, schema %s" % (source, [r[0] for r in rows], props))
    for name, typ, meaning in rows:
        p = list(s["patternProperties"].values())[0] if name == "<event>" else s["properties"][name]
        expect(typ == doc_type(p, s), "%s.%s: docs say %s, schema %s" % (source, name, typ, doc_type(p, s)))
        expect(meaning.startswith("gauge") == bool(p.get("x-gauge")), "%s.%s: gauge in one, not the other" % (source, name))
        typed += 1
print("%d row fields: names, types and gauges agree" % typed)

def doc_units(heading):
    """{name: the unit column} of the first table under heading."""
    part = doc.split(heading, 1)[1]
    part = re.split(r"\n#+ ", part, 1)[0]
    lines = part[part.index("\n|") + 1:].split("\n\n", 1)[0].split("\n")
    cells = lambda line: [c.strip() for c in line.strip().strip("|").split("|")]
    at = cells(lines[0]).index("unit")
    return {re.sub(r"^`(.*)`$", r"\1", cells(l)[0]): cells(l)[at] for l in lines[2:]}

# x-unit (what `iopsample report` labels axes with): every field's, as the
# docs' unit column says; "—" and "the event's" (set by the config) are none
units = 0
for source in sources:
    s, du = schema(source), doc_units("## " + source)
    props = dict(s["properties"], **{"<event>": v for v in s.get("patternProperties", {}).values()})
    for name, p in props.items():
        if name == "source":
            continue
        want = None if du[name] in ("—", "the event's") else du[name]
        expect(p.get("x-unit") == want, "%s.%s: x-unit %s, the docs' unit %s" % (source, name, p.get("x-unit"), du[name]))
        units += 1
print("%d row fields: x-unit as the docs' unit" % units)

# the envelope each row schema embeds (so that the file stands alone) is
# envelope.schema.json itself: tools/bundle-envelope writes the copies
for source in sources:
    expect(schema(source)["$defs"]["envelope"] == schema("envelope"),
           "schema/%s.schema.json: its envelope differs from envelope.schema.json (run tools/bundle-envelope)" % source)
print("%d row schemas embed envelope.schema.json as it is" % len(sources))
man = list(schema("manifest")["properties"])
got = [f for cell in re.findall(r"^\| ((?:`[a-z_]+`(?:, )?)+) \|", doc.split("## manifest.json", 1)[1], re.M)
       for f in re.findall(r"`([a-z_]+)`", cell)]
expect(got == man, "manifest: docs %s, schema %s" % (got, man))
entry = schema("manifest")["properties"]["sources"]["additionalProperties"]["properties"]
row = re.search(r"^\| `sources` \|(.*)$", doc, re.M).group(1)
named = re.findall(r"`([a-z_]+)`", row)
missing = [k for k in list(entry) + list(entry["events"]["items"]["properties"]) if k not in named]
expect(not missing, "manifest sources: the docs do not name %s" % missing)
# export's rules (x-cell, x-gauge): every field that is not summed is in the
# Exporting table under its rule, and every summed field is a count
rules = dict(re.findall(r"^\| `(sum|max|min|ratio|mean)` \| ([^|]*) \|", doc.split("## Exporting", 1)[1], re.M))
expect(sorted(rules) == ["max", "mean", "min", "ratio", "sum"], "Exporting: rules %s" % sorted(rules))
for source in sources:
    s = schema(source)
    # by_device's members: each device's fields, under their own rules
    nested = [(n, p) for k, d in s.get("$defs", {}).items() if k != "envelope" for n, p in d.get("properties", {}).items()]
    for name, p in list(s["properties"].items()) + [("<event>", v) for v in s.get("patternProperties", {}).values()] + nested:
        if name == "source":
            continue
        t = p.get("type")
        if t == "string" or (isinstance(t, list) and "string" in t):
            continue  # a name (a mount's point, its type): no column (reader/row_shape.h)
        rule = p.get("x-cell", "max" if p.get("x-gauge") else "sum")
        if rule == "sum":
            expect(doc_type(p, s).split(" or ")[0] in ("int", "object") or doc_type(p, s).endswith("ints"),
                   "%s.%s: summed in a cell but not a count" % (source, name))
        else:
            expect("`%s`" % name in rules[rule], "%s.%s: Exporting does not list it under %s" % (source, name, rule))
PY
}

check docs_tables_match_the_schemas docs_agree
