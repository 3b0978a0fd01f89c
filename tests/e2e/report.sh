# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample report: a real episode with every source, drawn by headless
# Chromium (Debian's) with the network off; the data in the page read back
# and compared with `iopsample cat` of the same files; zstd, interrupted and
# several episodes; bad input refused with nothing left behind.
. "$(dirname "$0")/lib/common.sh"

CHROMIUM=$(command -v chromium)
IMG=/dev/shm/iopsample-e2e-report-$$.img
LOOP=

report_cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -f "$IMG"
	cleanup
}
trap report_cleanup EXIT

# render HTML NAME [WRAPPER...]: the DOM after the page's scripts ran, in
# $WORK/NAME.dom, what Chromium logged (console messages included) in
# $WORK/NAME.log
render() {
	local html=$1 name=$2
	shift 2
	"$@" "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/chromium-$name" \
		--enable-logging=stderr --v=0 --virtual-time-budget=20000 --dump-dom "file://$html" \
		>"$WORK/$name.dom" 2>"$WORK/$name.log"
}

# The DOM says it drew, with no script error and nothing on the console.
rendered_clean() { # NAME
	"$PY" - "$WORK/$1.dom" "$WORK/$1.log" <<'PY'
import re, sys
from epi import expect
dom, log = open(sys.argv[1]).read(), open(sys.argv[2]).read()
body = re.search(r"<body([^>]*)>", dom)
expect(body and 'data-rendered="yes"' in body.group(1), "the page did not finish drawing: %s" % (body and body.group(1)))
expect("data-errors" not in body.group(1), "script errors: %s" % re.findall(r'<ul id="errors">(.*?)</ul>', dom))
# the page's own (Chromium's internal pages log theirs too)
console = [l for l in log.splitlines() if ":CONSOLE" in l and "source: file://" in l]
expect(not console, "console: %s" % console[:3])
PY
}

# The episode with every source: syscall_io's and block_io's histograms,
# proc_io next to syscall_io, perf events one of which may be null here.
setup() {
	[ "$(id -u)" = 0 ] || return 1
	truncate -s 64M "$IMG" && LOOP=$(losetup -f --show "$IMG") || { LOOP=; return 1; }
	cat >"$WORK/all.yaml" <<EOY
episode: {name: all, output_dir: $WORK/episodes, labels: {suite: report}}
target:
  command: [sh, -c, "$IOWORK --rounds 20 --pause-ms 15 --threads 2 --children 1 --tag $TAG >/dev/null && $WORKLOADS/blkwork direct $LOOP 0 2 10 >/dev/null"]
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles, task-clock]}
  block_io: {interval: 10ms, devices: [${LOOP#/dev/}]}
  diskstats: {interval: 10ms, devices: [${LOOP#/dev/}]}
  taskstats: {interval: 10ms}
  cgroup: {interval: 10ms, devices: [${LOOP#/dev/}]}
  gpu: {interval: 10ms}
EOY
	# gpu from NVML's test double (tests/e2e/gpu.sh): PCIe beside the
	# tree's read bytes, utilization, memory
	printf '%s\n' "gpu GPU-00000000-fake-0000-0000-000000000000 Fake_H100 5 16" \
		"0 pcie_rx 0 4096 1052672 2101248 3149824 4198400" "0 pcie_tx 0 512 1024" \
		"0 gpu_util 0 35 80 97 64" "0 mem_util 0 12 40" "0 mem_used 641728512 1715470336" \
		"0 power 71000 250000 402000" "0 sm_clock 345 1980" "0 temperature 31 33 36" \
		"0 energy 1000 1100 2300 4900" "0 throttle 1 0 4 0" >"$WORK/nvml.script"
	IOPSAMPLE_TEST_NVML=$BUILD/fixtures/libfake_nvml.so FAKE_NVML_SCRIPT=$WORK/nvml.script \
		"$IOPSAMPLE" run "$WORK/all.yaml" --quiet &&
		"$IOPSAMPLE" report "$WORK/episodes/all" -o "$WORK/all.html"
}

every_source() {
	[ -s "$WORK/all.html" ] || { echo "no report of the episode"; return 1; }
	render "$WORK/all.html" all || { echo "chromium: exit $?"; tail -3 "$WORK/all.log"; return 1; }
	rendered_clean all || return 1
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$WORK/chromium-shot" \
		--virtual-time-budget=20000 --window-size=1000,2400 --screenshot="$BUILD/report-screenshot.png" \
		"file://$WORK/all.html" >/dev/null 2>&1
	"$PY" - "$WORK/all.dom" "$WORK/episodes/all" "$IOPSAMPLE" "$BUILD/report-screenshot.png" <<'PY'
import html, json, os, re, subprocess, sys
from epi import expect, SCHEMA_DIR
ENVELOPE = set(json.load(open(os.path.join(SCHEMA_DIR, "envelope.schema.json")))["properties"])
dom, ep_dir, iops, png = sys.argv[1:5]
dom = open(dom).read()
caps = [(k.split()[0], c) for k, c in re.findall(r'<figure class="chart ([\w ]+)"[^>]*><figcaption>(.*?)</figcaption>', dom)]
body = re.search(r"<body([^>]*)>", dom).group(1)
expect('data-charts="%d"' % len(caps) in body, "data-charts %s, %d figures" % (body, len(caps)))
drawn = dom.count('class="uplot') + dom.count('class="heatmap"') + dom.count('class="verdict-strip"')
expect(drawn == len(caps), "%d figures, %d drawn" % (len(caps), drawn))
m = json.load(open(ep_dir + "/manifest.json"))
want = 0
for src in m["sources"]:
    rows = subprocess.run([iops, "cat", ep_dir + "/" + m["sources"][src]["file"]], capture_output=True, text=True, check=True).stdout
    first = json.loads(rows.splitlines()[0])
    for field, v in first.items():
        if field in ENVELOPE:
            continue
        mine = [(k, c) for k, c in caps if c.startswith("%s.%s" % (src, field)) and " vs " not in c and k != "scatter"]
        if field.endswith("_hist"):  # the two charts of iops-profiler (bytes only for sizes) and the heatmap
            kinds = sorted(k for k, _ in mine)
            expect(kinds == (["bars", "bars", "heatmap"] if "size" in field else ["bars", "heatmap"]),
                   "%s.%s: %s" % (src, field, mine))
        else:
            expect(len(mine) >= 1, "%s.%s: no chart" % (src, field))
        want += len(mine)
over = [c for k, c in caps if " vs " in c]
# wchar, rchar, syscw, syscr against syscall_io; gpu's PCIe received against rchar
expect(len(over) == 5 and "gpu.pcie_rx_bytes (deployable) vs proc_io.rchar (deployable)" in over, "overlays %s" % over)
# the totals an overlay states are the rows' sums
sums = {}
for src in ("proc_io", "syscall_io", "gpu"):
    out = subprocess.run([iops, "cat", ep_dir + "/" + m["sources"][src]["file"]], capture_output=True, text=True, check=True).stdout
    for r in map(json.loads, out.splitlines()):
        for k, v in r.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in ENVELOPE:
                sums[src + "." + k] = sums.get(src + "." + k, 0) + v
stated = re.findall(r'data-totals="\[(\d+),(\d+)\]"><figcaption>(\w+\.\w+) \(\w+\) vs (\w+\.\w+) ', dom)
expect(len(stated) == 5, "overlay totals %s" % stated)
for ta, tb, fa, fb in stated:
    expect((int(ta), int(tb)) == (sums[fa], sums[fb]), "overlay %s vs %s: totals %s %s, rows %d %d" % (fa, fb, ta, tb, sums[fa], sums[fb]))
    expect("difference %d" % (int(ta) - int(tb)) in dom, "the difference of %s and %s is not stated" % (fa, fb))
# the deployable fields against their oracles: a scatter of each pair of
# iopsample compare's, over as many cells
cmp = json.loads(subprocess.run([iops, "compare", ep_dir, "--format", "json"], capture_output=True, text=True, check=True).stdout)
scat = re.findall(r'<figure class="chart scatter" data-cells="(\d+)"><figcaption>(.*?)</figcaption>', dom)
want_scat = [(str(p["cells"]), "%s against %s" % (p["deployable"], p["oracle"])) for p in cmp["pairs"] if p["cells"]]
expect(scat == want_scat and scat, "scatters %s, compare's pairs %s" % (scat, want_scat))
# the overview: the verdict's strip, and the read and write throughput of
# proc_io (the first source the schemas mark x-overview)
overview = [c for k, c in caps if k == "strip" or c.startswith("Read and write throughput")]
expect(len(overview) == 2 and "Read and write throughput (proc_io.rchar, proc_io.wchar)" in overview,
       "overview %s" % overview)
tp = re.search(r'<figure class="chart lines throughput"[^>]*data-totals="\[(\d+),(\d+)\]"', dom)
expect(tp and (int(tp.group(1)), int(tp.group(2))) == (sums["proc_io.rchar"], sums["proc_io.wchar"]),
       "the throughput's totals %s, rows %d %d" % (tp and tp.groups(), sums["proc_io.rchar"], sums["proc_io.wchar"]))
# ... and the devices' bytes: block_io's causes beside the rest of the
# device, the sums of its rows
db = re.search(r'<table class="facts device-bytes" data-bytes="([^"]*)"', dom)
expect(db, "no table of the devices' bytes")
said = json.loads(html.unescape(db.group(1)))
bio = [json.loads(l) for l in subprocess.run([iops, "cat", ep_dir + "/" + m["sources"]["block_io"]["file"]],
                                             capture_output=True, text=True, check=True).stdout.splitlines()]
bsum = lambda f: sum(f(r) for r in bio)
want_db = {"the tree: " + c: [bsum(lambda r: r["by_cause"][c]["read_bytes"]), bsum(lambda r: r["by_cause"][c]["write_bytes"])]
           for c in bio[0]["by_cause"]}
for k in ("other", "unattributed"):
    want_db["other processes" if k == "other" else k] = [bsum(lambda r: r[k + "_read_bytes"]), bsum(lambda r: r[k + "_write_bytes"])]
want_db["all"] = [bsum(lambda r: r["all_read_bytes"]), bsum(lambda r: r["all_write_bytes"])]
expect(said == want_db, "the devices' bytes %s, the rows' %s" % (said, want_db))
expect(said["the tree: direct"][1] > 0, "blkwork's O_DIRECT writes are not direct: %s" % said)
expect(len(caps) == want + len(over) + len(scat) + len(overview),
       "%d figures, %d accounted for" % (len(caps), want + len(over) + len(scat) + len(overview)))
expect(re.search(r"totals: proc_io\.wchar .*?difference", dom), "the overlay does not state the totals")
expect("suite=report" in dom, "the labels are not in the header")
null_events = [e for e in m["sources"]["perf_event"]["events"] if e["counted"] is False]
for e in null_events:  # cycles on a host without a PMU
    expect("perf_event.%s (%s): null: %s" % (e["field"], e["event"], e["reason"]) in dom.replace("&amp;", "&"),
           "the null event %s is not in the header" % e["field"])
head = open(png, "rb").read(8)
expect(head == b"\x89PNG\r\n\x1a\n", "no screenshot")
print("%d charts (%d overlays, %d pairs against their oracle), no script error; screenshot in build/report-screenshot.png" % (len(caps), len(over), len(scat)))
PY
}

# The page's data, read back out of the HTML, against `iopsample cat`.
data_equals_rows() { # HTML EPISODE_DIR...
	"$PY" - "$IOPSAMPLE" "$@" <<'PY'
import json, os, re, subprocess, sys
from epi import expect, SCHEMA_DIR
ENVELOPE = set(json.load(open(os.path.join(SCHEMA_DIR, "envelope.schema.json")))["properties"])
iops, html, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(html).read()
data = json.loads(re.search(r'<script type="application/json" id="iopsample-data">(.*?)</script>', text, re.S).group(1))
expect([e["dir"] for e in data["episodes"]] == dirs, "episodes %s" % [e["dir"] for e in data["episodes"]])
cells = 0
for ep, d in zip(data["episodes"], dirs):
    expect(ep["manifest"] == json.load(open(d + "/manifest.json")), "%s: the manifest differs" % d)
    for src in ep["sources"]:
        f = ep["manifest"]["sources"][src["name"]]["file"]
        out = subprocess.run([iops, "cat", d + "/" + f], capture_output=True, text=True).stdout
        rows = [json.loads(l) for l in out.splitlines()]
        expect(len(rows) == src["rows"] == len(src["t"]), "%s/%s: %d rows, the page %d" % (d, f, len(rows), src["rows"]))
        expect(src["t"] == [r["t_mono_ns"] for r in rows], "%s: t_mono_ns" % f)
        expect(src["interval"] == [r["interval_ns"] for r in rows], "%s: interval_ns" % f)
        names = [l["name"] for l in src["leaves"]]
        for i, name in enumerate(names):
            want = []
            for r in rows:
                v = r
                for part in name.split("."):
                    v = v[int(part)] if isinstance(v, list) else v[part]
                want.append(v)
            got = src["columns"][i]
            expect(got == want and [type(x) for x in got] == [type(x) for x in want],
                   "%s %s: the page %s, the rows %s" % (f, name, got[:5], want[:5]))
            cells += len(got)
        # every number of a row is some leaf's
        def leaves(v, p):
            if isinstance(v, dict):
                return [x for k, s in v.items() for x in leaves(s, p + [k])]
            if isinstance(v, list):
                return [x for i, s in enumerate(v) for x in leaves(s, p + [str(i)])]
            return [".".join(p)]
        want_names = [x for k, v in rows[0].items() if k not in ENVELOPE for x in leaves(v, [k])] if rows else []
        expect(sorted(want_names) == sorted(names), "%s: leaves %s, rows %s" % (f, names, want_names))
print("%d values in %d episodes equal the rows" % (cells, len(dirs)))
PY
}

no_network() {
	"$PY" - "$WORK/all.html" "$WORK/all.dom" <<'PY' || return 1
import sys
from html.parser import HTMLParser
from epi import expect
class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []
    def handle_starttag(self, tag, attrs):
        self.found += [(tag, k, v) for k, v in attrs if k in ("src", "href", "srcset", "action", "data") or (k == "rel" and v == "stylesheet")]
for f in sys.argv[1:]:
    p = Links()
    p.feed(open(f).read())
    outside = [x for x in p.found if not (x[1] == "href" and (x[2] or "").startswith("#"))]
    expect(not outside, "%s: %s" % (f, outside[:5]))
    print("%s: %d links, all within the page" % (f.rsplit("/", 1)[1], len(p.found)))
PY
	# the same page with no network at all: a namespace with no interface up
	render "$WORK/all.html" offline unshare -n || { echo "chromium offline: exit $?"; tail -3 "$WORK/offline.log"; return 1; }
	rendered_clean offline || return 1
	local a b
	a=$(grep -o 'data-charts="[0-9]*"' "$WORK/all.dom") b=$(grep -o 'data-charts="[0-9]*"' "$WORK/offline.dom")
	[ -n "$a" ] && [ "$a" = "$b" ] || { echo "online $a, offline $b"; return 1; }
	echo "offline: the same $b"
}

# A zstd episode and one whose iopsample was SIGKILLed, in one report, to
# stdout.
several() {
	cat >"$WORK/z.yaml" <<EOY
episode: {name: z, output_dir: $WORK/episodes}
target: {command: [$IOWORK, --rounds, "8", --pause-ms, "10", --tag, $TAG]}
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
output: {compression: zstd}
EOY
	sed -e 's/name: z,/name: cut,/' -e 's/"8"/"400"/' "$WORK/z.yaml" >"$WORK/cut.yaml"
	"$IOPSAMPLE" run "$WORK/z.yaml" --quiet || { echo "run z: exit $?"; return 1; }
	"$IOPSAMPLE" run "$WORK/cut.yaml" --quiet &
	local pid=$!
	wait_until 10 grep -q . "$WORK/episodes/cut/proc_io.jsonl.zst" 2>/dev/null
	sleep 0.3
	kill -9 $pid
	wait $pid 2>/dev/null
	# the keeper, which outlives iopsample, stops the tree and says killed
	wait_until 5 grep -q '"status": "killed"' "$WORK/episodes/cut/manifest.json" ||
		{ echo "the cut episode's manifest does not say killed"; return 1; }
	"$IOPSAMPLE" report "$WORK/episodes/z" "$WORK/episodes/cut" -o - >"$WORK/two.html" || { echo "report: exit $?"; return 1; }
	render "$WORK/two.html" two || return 1
	rendered_clean two || return 1
	grep -q "This episode is killed: iopsample was killed mid-episode" "$WORK/two.dom" || { echo "the cut episode does not say so"; return 1; }
	local n
	n=$(grep -o '<section class="compare">.*</section>' "$WORK/two.dom" | grep -o '<figure class="chart' | wc -l)
	[ "$n" -ge 6 ] || { echo "$n charts over the two episodes"; return 1; }
	echo "$n charts over both episodes; the interrupted one says so"
	data_equals_rows "$WORK/two.html" "$WORK/episodes/z" "$WORK/episodes/cut"
}

# refused CODE MESSAGE_PART OUTPUT ARGS...: one line naming the thing at
# fault, the code, and OUTPUT (or a temporary file beside it) not written
refused() {
	local code=$1 what=$2 out=$3 err rc
	shift 3
	err=$("$IOPSAMPLE" report "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq "$code" ] || { echo "report $*: exit $rc, not $code: $err"; return 1; }
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == "iopsample: "*"$what"* ]] ||
		{ echo "report $*: said \"$err\", not one line naming $what"; return 1; }
	[ ! -e "$out" ] || [ "$(cat "$out")" = old ] || { echo "$out was written"; return 1; }
	[ -z "$(ls -A "$(dirname "$out")" 2>/dev/null | grep '^\.')" ] || { echo "a temporary file was left"; return 1; }
}

bad_input() {
	mkdir -p "$WORK/out" "$WORK/notep" && echo old >"$WORK/out/old.html"
	cp -r "$WORK/episodes/all" "$WORK/damaged"
	# a complete episode whose rows end inside a line (or a zstd frame)
	local rows
	rows=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["sources"]["proc_io"]["file"])' \
		"$WORK/damaged/manifest.json")
	truncate -s -40 "$WORK/damaged/$rows"
	refused 66 "$WORK/notep: not an episode directory" "$WORK/out/x.html" "$WORK/notep" -o "$WORK/out/x.html" &&
		refused 65 "$WORK/damaged/$rows" "$WORK/out/old.html" "$WORK/damaged" -o "$WORK/out/old.html" &&
		refused 73 "$WORK/no/such/dir/x.html" "$WORK/no/such/dir/x.html" "$WORK/episodes/all" -o "$WORK/no/such/dir/x.html" &&
		refused 64 "-o" "$WORK/out/x.html" "$WORK/episodes/all" &&
		refused 64 "--bogus" "$WORK/out/x.html" "$WORK/episodes/all" --bogus -o "$WORK/out/x.html" || return 1
	echo "not an episode: 66; damaged rows: 65; unwritable -o: 73; usage: 64; nothing written"
}

# An episode longer than the page is wide: a short one stretched to 3
# minutes at 10 ms (tests/e2e/lib/stretch.py), 18 000 rows a source. Its
# series are thinned to buckets (at most 2000), each a cell as export
# combines one with the lowest and highest its rows drew, and the verdict's
# strip the same; the page says so, stays small and renders.
thinned() {
	cat >"$WORK/short.yaml" <<EOY
episode: {name: short, output_dir: $WORK/short}
target: {command: [sh, -c, 'i=0; while [ \$i -lt 30000 ]; do i=\$((i+1)); done; head -c 2097152 /dev/zero >$WORK/f; sync $WORK/f; sleep 0.3']}
sources:
  taskstats: {interval: 10ms}
  cgroup: {interval: 10ms}
  proc_io: {interval: 10ms}
EOY
	"$IOPSAMPLE" run "$WORK/short.yaml" --quiet || { echo "run: exit $?"; return 1; }
	IOPSAMPLE=$IOPSAMPLE "$PY" "$TESTS/e2e/lib/stretch.py" "$WORK/short/short" "$WORK/episodes" long 180 >/dev/null ||
		return 1
	"$IOPSAMPLE" report "$WORK/episodes/long" -o "$WORK/long.html" || { echo "report: exit $?"; return 1; }
	render "$WORK/long.html" long || { echo "chromium: exit $?"; return 1; }
	rendered_clean long || return 1
	grep -q "Thinned for the page: 18000 rows drawn as" "$WORK/long.dom" || { echo "the page does not say it thinned"; return 1; }
	"$PY" - "$WORK/long.html" "$WORK/episodes/long" "$IOPSAMPLE" <<'PY'
import json, re, subprocess, sys
from epi import expect
page, ep_dir, iops = sys.argv[1:4]
text = open(page).read()
data = json.loads(re.search(r'<script type="application/json" id="iopsample-data">(.*?)</script>', text, re.S).group(1))
ep = data["episodes"][0]
for src in ep["sources"]:
    th = src["thinned"]
    rows = [json.loads(l) for l in subprocess.run([iops, "cat", "%s/%s.jsonl.zst" % (ep_dir, src["name"])],
                                                  capture_output=True, text=True, check=True).stdout.splitlines()]
    n, per = len(src["t"]), th["per_bucket"]
    expect(th["rows"] == len(rows) == 18000 and 1000 <= n <= 2000 and n == -(-len(rows) // per),
           "%s: %s, %d buckets" % (src["name"], th, n))
    expect(src["t"][-1] == rows[-1]["t_mono_ns"] and sum(src["interval"]) == sum(r["interval_ns"] for r in rows),
           "%s: the buckets' times" % src["name"])
    for l, leaf in enumerate(src["leaves"]):
        name, col = leaf["name"], src["columns"][l]
        if "." in name or leaf["kind"] != "counter":
            continue
        vals = [r[name] for r in rows]
        if None in vals:
            continue
        expect(sum(col) == sum(vals), "%s.%s: buckets sum to %s, rows %s" % (src["name"], name, sum(col), sum(vals)))
        for b in range(n):  # a bucket's mean rate within its rows' lowest and highest
            rate = col[b] / (src["interval"][b] / 1e9)
            lo, hi = src["lo"][l][b], src["hi"][l][b]
            expect(lo is not None and lo * (1 - 1e-9) <= rate <= hi * (1 + 1e-9),
                   "%s.%s bucket %d: rate %s outside %s..%s" % (src["name"], name, b, rate, lo, hi))
v = ep["verdict"]
cmd = json.loads(subprocess.run([iops, "verdict", ep_dir, "--format", "json"], capture_output=True, text=True, check=True).stdout)
expect(v["thinned"]["windows"] == len(cmd["windows"]) and len(v["windows"]) <= 2000, "strip: %s" % v["thinned"])
expect(v["totals"] == cmd["totals"], "the strip's totals are the command's")
# the same windows every time (each source is read in a thread of its own)
again = json.loads(subprocess.run([iops, "verdict", ep_dir, "--format", "json"], capture_output=True, text=True, check=True).stdout)
expect(again == cmd, "a second verdict of the episode differs from the first")
expect(sum(w["windows"] for w in v["windows"]) == len(cmd["windows"]), "every window in a bucket")
size = len(text)
expect(size < 4_000_000, "the page is %d bytes" % size)
print("18000 rows a source thinned to %d buckets of %d; the strip %d buckets; the page %.1f MB" % (
    n, per, len(v["windows"]), size / 1e6))
PY
}

if [ -z "$CHROMIUM" ]; then
	for t in report_of_every_source_renders report_data_equals_the_rows report_opens_without_network \
		report_of_zstd_interrupted_and_several_episodes report_refuses_bad_input report_thins_a_long_episode; do
		skip $t "no chromium"
	done
	exit 0
fi
setup >"$WORK/setup.log" 2>&1 || echo "setup failed: $(tail -3 "$WORK/setup.log")"
check report_of_every_source_renders every_source
check report_data_equals_the_rows data_equals_rows "$WORK/all.html" "$WORK/episodes/all"
check report_opens_without_network no_network
check report_of_zstd_interrupted_and_several_episodes several
check report_refuses_bad_input bad_input
check report_thins_a_long_episode thinned
