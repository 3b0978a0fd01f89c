# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample verdict on jobs whose bottleneck is injected phase by phase,
# each phase's ground truth being what the job did (phasework,
# torch_phases.py): one thread computing (cpu), sleeping (idle), O_DIRECT
# reads of this host's disk and of a loop device its cgroup throttles
# (disk), pinned to a CPU that processes outside the tree, in a cgroup
# weighted 8 times above it, hold (cpu_wait), an anonymous working set a
# little larger than its cgroup's memory limit touched at random with
# swap (memory), worker processes on the disk under a waiting parent
# (disk), worker processes computing for a parent reading their results
# (cpu), a file streamed under a memory limit (disk, saying the disk
# re-reads what the limit evicted); a PyTorch loop on this CPU; and the
# GPU, busy and copying, from NVML's test double. 95 % of the windows
# wholly inside each phase carry its label, from deployable sources alone
# and with the oracles; then the command's formats, summary, the report
# and Python agree window for window.
. "$(dirname "$0")/lib/common.sh"

PHASEWORK=$WORKLOADS/phasework
PHASE=2.5 # seconds a phase
# and the stream's: under other load a few of its windows compute more than
# they wait (its reads hit pages read ahead, and copying them outweighs the
# waits: 2 of 24 in one make check, 2 of 62 here beside two busy loops, as
# for cat in programs.sh), so it has twice the windows
STREAM=5
BIG=$WORK/big
LOOP= SWAP= HOGS=
HOG_PIDS=()

verdict_cleanup() {
	touch "$WORK/go" "$WORK/stop" 2>/dev/null
	[ ${#HOG_PIDS[@]} -gt 0 ] && kill "${HOG_PIDS[@]}" 2>/dev/null && wait "${HOG_PIDS[@]}" 2>/dev/null
	[ -n "$HOGS" ] && rmdir "$HOGS" 2>/dev/null
	[ -n "$SWAP" ] && swapoff "$SWAP" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	cleanup
}
trap verdict_cleanup EXIT

# A cgroup for the processes outside the tree, weighted 8 times the
# default: cgroup v1's cpu controller, else v2's.
hog_cgroup() {
	local v2
	if [ -d /sys/fs/cgroup/cpu ] && [ -e /sys/fs/cgroup/cpu/cpu.shares ]; then
		HOGS=/sys/fs/cgroup/cpu/$TAG-hogs
		mkdir "$HOGS" && echo 8192 >"$HOGS/cpu.shares"
		return
	fi
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	grep -qw cpu "$v2/cgroup.subtree_control" || { echo "no cpu controller in $v2"; return 1; }
	HOGS=$v2/$TAG-hogs
	mkdir "$HOGS" && echo 800 >"$HOGS/cpu.weight"
}

setup() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	head -c 268435456 /dev/urandom >"$BIG" && sync "$BIG" || return 1
	truncate -s 64M "$WORK/loop.img" && LOOP=$(losetup -f --show "$WORK/loop.img") || { LOOP=; return 1; }
	LOOP_DEV=$(cat "/sys/block/${LOOP#/dev/}/dev")
	# swap for the memory phase: a file on this disk
	fallocate -l 256M "$WORK/swap" && chmod 600 "$WORK/swap" && mkswap -q "$WORK/swap" >/dev/null &&
		swapon "$WORK/swap" && SWAP=$WORK/swap
	[ -n "$SWAP" ] || { echo "no swap: swapon $WORK/swap refused"; return 1; }
	hog_cgroup || return 1
	local i
	for i in 1 2 3; do
		(echo "$BASHPID" >"$HOGS/cgroup.procs" && exec "$PHASEWORK" hog "$WORK/go" "$WORK/stop") &
		HOG_PIDS+=($!)
	done
	cat >"$WORK/job.yaml" <<EOY
episode: {name: job, output_dir: $WORK/episodes}
target:
  command: [$PHASEWORK, cpu:$PHASE, idle:$PHASE, "dread:$PHASE:$BIG", "rdlimit:$LOOP_DEV:16777216",
            "dread:$PHASE:$LOOP", "rdlimit:$LOOP_DEV:0", "pinned:$PHASE:$WORK/go:$WORK/stop",
            "memlimit:100663296", "anon:$PHASE:112", "swapread:$PHASE:112:$BIG", "memlimit:0", "pool:$PHASE:2:$BIG",
            "decode:$PHASE:2", "memlimit:100663296", "stream:$STREAM:$BIG", "memlimit:0"]
  stdout: file
sources:
  taskstats: {interval: 100ms}
  cgroup: {interval: 100ms}
  diskstats: {interval: 100ms}
  proc_io: {interval: 100ms}
  block_io: {interval: 100ms}
EOY
	"$IOPSAMPLE" run "$WORK/job.yaml" --quiet >"$WORK/job.log" 2>&1 ||
		{ echo "run: exit $?: $(tail -2 "$WORK/job.log")"; return 1; }
	swapoff "$SWAP" && SWAP=
}
setup >"$WORK/setup.out" 2>&1
SETUP_RC=$?
SETUP_OUT=$(tail -n 3 "$WORK/setup.out")
JOB=$WORK/episodes/job
DISK=$(lsblk -no PKNAME "$(df --output=source "$WORK" | tail -n 1)" 2>/dev/null)
[ -n "$DISK" ] || DISK=$(basename "$(df --output=source "$WORK" | tail -n 1)")

# phases PYTHON...: the job's phases in scope as ph, verdicts as v (all
# sources) and d (deployable alone), the binary as iops
job_py() {
	[ $SETUP_RC -eq 0 ] || { echo "setup: $SETUP_OUT"; return 1; }
	"$PY" - "$JOB" "$IOPSAMPLE" "$DISK" <<PY
import json, os, subprocess, sys
from epi import expect
from phases import SHARE, phases, verdict, judge, inside, held, split_held
ep_dir, iops, disk = sys.argv[1:4]
ph = phases(ep_dir)
v, d = verdict(iops, ep_dir), verdict(iops, ep_dir, "--deployable-only")
EXPECTED = {"cpu": "cpu", "idle": "idle", "dread": "disk", "pinned": "cpu_wait", "anon": "memory",
            "pool": "disk", "decode": "cpu", "stream": "disk"}
$(cat)
PY
}

names_each_phase() {
	job_py <<'PY'
# the confusion matrix of the windows wholly inside each phase (docs/benchmarks.md)
LABELS = ["cpu", "cpu_wait", "disk", "memory", "gpu", "gpu_copy", "idle"]
print("confusion (deployable alone): phase | " + " ".join(LABELS))
for i, (name, start, end, _) in enumerate(ph):
    if name in EXPECTED:
        got = [w["verdict"] for w in inside(d, start, end)]
        print("  %s%s (%s) | %s" % (name, "-throttled" if name == "dread" and i > 2 else "", EXPECTED[name],
                                    " ".join(str(got.count(l)) for l in LABELS)))
print(judge(d, ph, EXPECTED, "deployable sources alone"))
print(judge(v, ph, EXPECTED, "with block_io, an oracle"))
expect([w["verdict"] for w in v["windows"]] == [w["verdict"] for w in d["windows"]],
       "an oracle changed a label")
expect(v["sources"]["block_io"]["status"] == "read" and d["sources"]["block_io"]["status"].startswith("left out"),
       "sources: %s / %s" % (v["sources"]["block_io"], d["sources"]["block_io"]))
# the evidence says what each disk phase was: the host's disk busy, the
# loop device's reads held before it, the stream re-read under a limit; in
# 95 % of the phase's disk windows, as the labels: a window where the
# throttle let requests through to a slow backing disk finds the loop
# device busy (60 % once here, with 2 MiB read)
dread = [p for p in ph if p[0] == "dread"]
def evidence(p):
    return [w["evidence"] for w in inside(v, p[1], p[2]) if w["verdict"] == EXPECTED[p[0]]]
def says(what, windows, ok):
    wrong = [e for e in windows if not ok(e)]
    expect(windows and len(wrong) <= 0.05 * len(windows),
           "%s: %d of %d windows: %s" % (what, len(wrong), len(windows), wrong[:2]))
busy = evidence(dread[0])
says("dread on " + disk, busy, lambda e: disk + " " in e and "busy" in e)
says("throttled", evidence(dread[1]), lambda e: "holds the requests before the device" in e)
says("stream", evidence([p for p in ph if p[0] == "stream"][0]), lambda e: "re-reads what the limit evicted" in e)
expect(all("block_io: the tree's" in e for e in busy), "block_io's evidence: %s" % busy[:1])
# swapping beside a reader of the same disk: each thread waits all the
# time, one for pages, one for the file: both shares there, neither eaten
print(split_held(d, [p for p in ph if p[0] == "swapread"][0], "deployable sources alone",
                 json.load(open(os.path.join(ep_dir, "manifest.json")))["sources"]["taskstats"]["kernel_faults"]))
expect(all("block_io" not in w["evidence"] for w in d["windows"]), "an oracle's evidence with --deployable-only")
PY
}
check verdict_names_each_injected_phase_from_deployable_sources_and_with_oracles names_each_phase

json_and_shares() {
	job_py <<'PY'
import jsonschema
schema = json.load(open(os.path.join(os.environ["TESTS"], "..", "schema", "verdict.schema.json")))
for out in (v, d):
    jsonschema.validate(out, schema)
    for w in out["windows"]:
        expect(abs(sum(w["shares"].values()) - 1) < 1e-5, "shares add to %s" % sum(w["shares"].values()))
        expect(max(w["shares"], key=w["shares"].get) == w["verdict"] or
               w["shares"][w["verdict"]] == max(w["shares"].values()), "the label is not the largest share")
# windows on the grid of the sources' interval, the last ending with the rows
ends = [w["t_mono_ns"] for w in v["windows"]]
expect(all(e == 100_000_000 * (k + 1) for k, e in enumerate(ends[:-1])), "window ends %s" % ends[:3])
m = json.load(open(os.path.join(ep_dir, "manifest.json")))
expect(all(w["t_wall_ns"] == m["t_wall_start_ns"] + w["t_mono_ns"] for w in v["windows"]), "t_wall_ns")
# the totals are the windows' shares times their widths
for label, ns in v["totals"]["ns"].items():
    want = sum(w["shares"][label] * w["interval_ns"] for w in v["windows"])
    expect(abs(ns - want) <= 1 + 1e-5 * want, "totals %s: %d, windows %d" % (label, ns, want))
expect(v["totals"]["windows"] == {l: sum(w["verdict"] == l for w in v["windows"]) for l in v["totals"]["windows"]},
       "window counts")
labels = {l for c in v["cannot_tell"] for l in c["labels"]}
expect({"gpu", "gpu_copy"} <= labels, "no gpu source, and cannot_tell does not say so: %s" % v["cannot_tell"])
print("%d windows, schema-valid, shares add to 1; totals %s" % (len(ends), v["totals"]["windows"]))
PY
}
check verdict_json_is_the_schemas_and_its_totals_add_up json_and_shares

# csv and text: the same windows; --window coarsens to a multiple of the
# interval and refuses another
formats() {
	job_py <<'PY'
import csv, io, re
out = subprocess.run([iops, "verdict", ep_dir, "--format", "csv"], capture_output=True, text=True, check=True).stdout
rows = list(csv.DictReader(io.StringIO(out)))
expect(len(rows) == len(v["windows"]), "csv rows")
for r, w in zip(rows, v["windows"]):
    expect(int(r["t_mono_ns"]) == w["t_mono_ns"] and r["verdict"] == w["verdict"] and r["evidence"] == w["evidence"]
           and all(abs(float(r["shares." + k]) - s) < 1e-5 for k, s in w["shares"].items()), "csv row %s" % r)
text = subprocess.run([iops, "verdict", ep_dir], capture_output=True, text=True, check=True).stdout
got = re.findall(r"^  ([\d.]+)-([\d.]+) +(\w+) ", text, re.M)
expect([(round(float(b) * 100), l) for a, b, l in got] == [(round(w["t_mono_ns"] / 1e7), w["verdict"]) for w in v["windows"]],
       "text windows")
coarse = verdict(iops, ep_dir, "--window", "200ms")
expect(coarse["window_ns"] == 200_000_000 and len(coarse["windows"]) == (len(v["windows"]) + 1) // 2, "--window 200ms")
# half as many windows: the same one window of slack a phase of 22 has at
# 100 ms (SHARE), not none (a streamed file's 11 once held 10 under a whole
# check-all: cat's copying outweighed its waits in one, as programs.sh has seen)
print(judge(coarse, ph, EXPECTED, "200 ms windows", share=1 - 2 * (1 - SHARE)))
# a window no interval divides: the rows spread over it by export's rules,
# every window's time accounted for
odd = verdict(iops, ep_dir, "--window", "150ms")
spans = [w["interval_ns"] for w in odd["windows"]]
expect(odd["window_ns"] == 150_000_000 and all(s == 150_000_000 for s in spans[:-1]) and
       sum(spans) == odd["windows"][-1]["t_mono_ns"] == v["windows"][-1]["t_mono_ns"], "150ms: %s" % spans[-3:])
expect(abs(sum(odd["totals"]["ns"].values()) - sum(v["totals"]["ns"].values())) <= len(spans), "150ms totals")
bad = subprocess.run([iops, "verdict", ep_dir, "--window", "50ms"], capture_output=True, text=True)
expect(bad.returncode == 64 and "finer than" in bad.stderr and bad.stdout == "", "50ms: %d %s" % (bad.returncode, bad.stderr))
PY
}
check verdict_csv_text_and_coarser_windows_agree formats

# summary's runs, the report's strip and Episode.verdict(): the same windows
views_agree() {
	job_py <<'PY'
import re, html
labels = [w["verdict"] for w in v["windows"]]
text = subprocess.run([iops, "summary", ep_dir], capture_output=True, text=True, check=True).stdout
runs = re.findall(r"^  ([\d.]+)-([\d.]+) s (\w+) \(", text, re.M)
expect(runs, "summary has no verdict runs: %s" % text[:600])
# each run is the longest stretch of windows of its label (a run's times
# are to 10 ms: the last window may be shorter)
k = 0
for a, b, label in runs:
    first = k
    while k < len(labels) and labels[k] == label:
        k += 1
    expect(k > first, "summary run %s-%s %s, window %d %s" % (a, b, label, first, labels[first:first + 1]))
    start, end = v["windows"][first]["t_mono_ns"] - v["windows"][first]["interval_ns"], v["windows"][k - 1]["t_mono_ns"]
    expect(abs(start / 1e9 - float(a)) <= 0.005 and abs(end / 1e9 - float(b)) <= 0.005,
           "summary run %s-%s, windows %d-%d span %d-%d ns" % (a, b, first, k - 1, start, end))
expect(k == len(labels), "summary's runs end at window %d of %d" % (k, len(labels)))
expect(re.search(r"^  over the episode: ", text, re.M), "summary's totals")
# durations in human units (the manifest's warnings are quoted as they are)
ours = "\n".join(l for l in text.splitlines() if not l.startswith("warning: "))
expect(not re.search(r"\b\d{4,} ns\b", ours), "a duration in raw ns: %s" % re.findall(r"\b\d{4,} ns\b", ours)[:3])
# the report: its data's verdict is the command's
page = os.path.join(os.path.dirname(ep_dir), "job.html")
subprocess.run([iops, "report", ep_dir, "-o", page], check=True)
data = json.loads(re.search(r'<script type="application/json" id="iopsample-data">(.*?)</script>',
                            open(page).read(), re.S).group(1))
expect(data["episodes"][0]["verdict"]["windows"] == json.loads(json.dumps(v["windows"])), "the report's windows")
# Python
sys.path.insert(0, os.path.join(os.environ["TESTS"], "..", "python"))
os.environ["IOPSAMPLE"] = iops
import iopsample
f = iopsample.Episode(ep_dir).verdict()
expect(list(f.index) == [w["t_mono_ns"] for w in v["windows"]] and list(f["verdict"]) == labels, "Episode.verdict()")
for w, (t, row) in zip(v["windows"], f.iterrows()):
    expect(row["evidence"] == w["evidence"] and row["interval_ns"] == w["interval_ns"] and
           all(row["shares." + k] == s for k, s in w["shares"].items()), "Episode.verdict() at %d" % t)
expect(f.attrs["totals"] == v["totals"], "Episode.verdict().attrs")
print("%d windows: %d summary runs, the report's data and Episode.verdict() equal" % (len(labels), len(runs)))
PY
}
check summary_report_and_python_show_the_same_windows views_agree

# The report's first screen draws the strip: its windows' labels, in the
# DOM headless Chromium leaves, are the command's.
strip_drawn() {
	[ $SETUP_RC -eq 0 ] || { echo "setup: $SETUP_OUT"; return 1; }
	"$IOPSAMPLE" report "$JOB" -o "$WORK/strip.html" || return 1
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
		--user-data-dir="$WORK/chromium" --virtual-time-budget=20000 --dump-dom "file://$WORK/strip.html" \
		>"$WORK/strip.dom" 2>/dev/null || { echo "chromium: exit $?"; return 1; }
	# the first screen, as docs/images/verdict-report.png shows it
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
		--hide-scrollbars --user-data-dir="$WORK/chromium-shot" --window-size=1000,1000 \
		--virtual-time-budget=20000 --screenshot="$BUILD/verdict-screenshot.png" "file://$WORK/strip.html" \
		>/dev/null 2>&1
	job_py <<PY
import re
dom = open("$WORK/strip.dom").read()
strip = re.search(r'<canvas[^>]*class="verdict-strip"[^>]*>', dom)
expect(strip, "no verdict strip in the page")
got = re.search(r'data-verdicts="([^"]*)"', strip.group(0)).group(1).split(",")
expect(got == [w["verdict"] for w in v["windows"]], "the strip's labels")
expect('data-errors' not in re.search(r"<body([^>]*)>", dom).group(1), "script errors")
expect(dom.index("verdict-strip") < dom.index('class="header"'), "the overview is not first")
print("the strip's %d windows are the command's" % len(got))
PY
}
check report_opens_with_the_verdict_strip strip_drawn

# A PyTorch training loop on this CPU (Debian's python3-torch), phase by
# phase: workers decoding, workers on a throttled device, a heavy model
# step, idle between epochs; with waits, as the quickstart records (from
# taskstats alone a throttled read of 100 ms or more, charged when it ends,
# left 2 to 4 of the throttled phase's 31 windows idle in 1 of 20 runs
# on a quiet host, more under a whole make check).
torch_loop() {
	[ $SETUP_RC -eq 0 ] || { echo "setup: $SETUP_OUT"; return 1; }
	/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "no python3-torch (make check installs it)"; return 1; }
	cat >"$WORK/torch.yaml" <<EOY
episode: {name: torch, output_dir: $WORK/episodes}
target: {command: [/usr/bin/python3, $TESTS/workloads/torch_phases.py, "3", $LOOP, "$LOOP_DEV", $PHASEWORK], stdout: file}
sources:
  taskstats: {interval: 100ms}
  cgroup: {interval: 100ms}
  diskstats: {interval: 100ms}
  waits: {interval: 10ms}
EOY
	"$IOPSAMPLE" run "$WORK/torch.yaml" --quiet >"$WORK/torch.log" 2>&1 ||
		{ echo "run: exit $?: $(tail -2 "$WORK/torch.log") $(tail -2 "$WORK/episodes/torch/target.stderr")"; return 1; }
	"$PY" - "$WORK/episodes/torch" "$IOPSAMPLE" <<'PY'
import sys
from epi import expect
from phases import phases, verdict, judge, inside
ep_dir, iops = sys.argv[1:3]
ph = phases(ep_dir)
v = verdict(iops, ep_dir)
print(judge(v, ph, {"decode": "cpu", "throttled": "disk", "model": "cpu", "idle": "idle"}, "PyTorch"))
thr = [p for p in ph if p[0] == "throttled"][0]
ev = [w["evidence"] for w in inside(v, thr[1], thr[2]) if w["verdict"] == "disk"]
expect(all("holds the requests before the device" in e for e in ev), "the throttle: %s" % ev[:1])
PY
}
check verdict_names_a_pytorch_loops_phases torch_loop

# gpu and gpu_copy from NVML's test double: 1.5 s idle, 3 s a kernel
# running (the host spinning on it), 3 s copying 12 GB/s host to device
# on a PCIe 5.0 x16 link (the host staging the copy), then idle.
gpu_phases() {
	local py
	"$PY" - "$WORK" <<'PY' || return 1
import sys
work = sys.argv[1]
n = 300  # readings, every 50 ms
util = [0] * 30 + [96] * 60 + [0] * (n - 90)
rx, c = [], 0
for i in range(n):
    if 90 <= i < 150:
        c = (c + 600_000_000) % 2**32
    rx.append(c)
open(work + "/gpu.script", "w").write(
    "gpu GPU-00000000-fake-0000-0000-000000000000 Fake_H100 5 16\n"
    "0 gpu_util %s\n0 pcie_rx %s\n0 pcie_tx 0\n0 mem_util 0\n0 mem_used 1073741824\n0 power 70000\n"
    "0 proc @%s/gpu.pid 1073741824\n" % (" ".join(map(str, util)), " ".join(map(str, rx)), work))
PY
	cat >"$WORK/gpu.yaml" <<EOY
episode: {name: gpu, output_dir: $WORK/episodes}
target: {command: "echo \$\$ >$WORK/gpu.pid; exec $PHASEWORK idle:1.5 cpu:3 cpu:3 idle:1", stdout: file}
sources:
  taskstats: {interval: 100ms}
  cgroup: {interval: 100ms}
  gpu: {interval: 50ms}
EOY
	IOPSAMPLE_TEST_NVML=$BUILD/fixtures/libfake_nvml.so FAKE_NVML_SCRIPT=$WORK/gpu.script \
		"$IOPSAMPLE" run "$WORK/gpu.yaml" --quiet >"$WORK/gpu.log" 2>&1 || { echo "run: exit $?: $(tail -2 "$WORK/gpu.log")"; return 1; }
	"$PY" - "$WORK/episodes/gpu" "$IOPSAMPLE" <<'PY'
import json, sys
from epi import expect
from phases import phases, verdict, judge, inside
ep_dir, iops = sys.argv[1:3]
ph = phases(ep_dir)
v = verdict(iops, ep_dir)
expect(v["window_ns"] == 100_000_000, "the window: taskstats' 100 ms, gpu's 50 ms rows two to a window")
# the script's phases, from the gpu rows themselves: what the double said
rows = [json.loads(l) for l in open(ep_dir + "/gpu.jsonl")]
def span(test):
    t = [r["t_mono_ns"] for r in rows if test(r)]
    return (t[0] - 50_000_000, t[-1])
busy = span(lambda r: (r["gpu_util_pct"] or 0) >= 90)
copy = span(lambda r: (r["pcie_rx_bytes"] or 0) > 0)
# the windows inside both the double's phase and the job's
job = {i: p for i, p in enumerate(p for p in ph)}
gpu_ph = [("gpu", max(busy[0], job[1][1]), min(busy[1], job[1][2]), None),
          ("gpu_copy", max(copy[0], job[2][1]), min(copy[1], job[2][2]), None),
          ("idle", job[0][1], min(job[0][2], busy[0]), None)]
print(judge(v, gpu_ph, {"gpu": "gpu", "gpu_copy": "gpu_copy", "idle": "idle"}, "fake NVML"))
ev = [w["evidence"] for w in inside(v, gpu_ph[1][1], gpu_ph[1][2])]
expect(all("PCIe 12.0 GB/s to the GPU" in e for e in ev), "copy evidence: %s" % ev[:1])
expect(not any("gpu" in c["labels"] for c in v["cannot_tell"]), "cannot_tell with a gpu source: %s" % v["cannot_tell"])
PY
}
check verdict_names_gpu_and_gpu_copy_from_nvmls_test_double gpu_phases

# No source to decide from: one line, exit 69, no file; summary says so
no_verdict() {
	cat >"$WORK/none.yaml" <<EOY
episode: {name: none, output_dir: $WORK/episodes}
target: {command: [true]}
sources: {proc_io: {interval: 100ms}}
EOY
	"$IOPSAMPLE" run "$WORK/none.yaml" --quiet || return 1
	local rc
	"$IOPSAMPLE" verdict "$WORK/episodes/none" -o "$WORK/none.json" 2>"$WORK/none.err"
	rc=$?
	[ $rc -eq 69 ] && [ ! -e "$WORK/none.json" ] && [ "$(wc -l <"$WORK/none.err")" -eq 1 ] &&
		grep -q "no verdict: the episode has no taskstats, cgroup or waits rows" "$WORK/none.err" ||
		{ echo "exit $rc: $(cat "$WORK/none.err")"; return 1; }
	"$IOPSAMPLE" summary "$WORK/episodes/none" 2>&1 | grep -q '^verdict: none (the episode has no taskstats' ||
		{ echo "summary: $("$IOPSAMPLE" summary "$WORK/episodes/none" 2>&1 | head -5)"; return 1; }
	"$IOPSAMPLE" verdict "$WORK/episodes/none" --window 0s 2>&1 | grep -q -- '--window 0s' || return 1
}
check verdict_refuses_an_episode_it_cannot_judge no_verdict

# taskstats' rows end early (its sampler stopped) while cgroup's go on:
# the windows after its last row are decided by the cgroup's figures, and
# say so; the decode phase's two computing workers are cpu there too
taskstats_stops() {
	[ $SETUP_RC -eq 0 ] || { echo "setup: $SETUP_OUT"; return 1; }
	local cut=$WORK/stopped
	rm -rf "$cut" && cp -r "$JOB" "$cut" || return 1
	"$PY" - "$cut" "$IOPSAMPLE" <<'PY'
import json, sys
from epi import expect
from phases import phases, verdict, inside
ep_dir, iops = sys.argv[1:3]
ph = phases(ep_dir)
pinned = [p for p in ph if p[0] == "pinned"][0]
rows = open(ep_dir + "/taskstats.jsonl").read().splitlines()
kept = [r for r in rows if json.loads(r)["t_mono_ns"] <= pinned[1]]
last = json.loads(kept[-1])
last["final"] = True
kept[-1] = json.dumps(last)
open(ep_dir + "/taskstats.jsonl", "w").write("\n".join(kept) + "\n")
v = verdict(iops, ep_dir)
before = [w for w in v["windows"] if w["t_mono_ns"] <= last["t_mono_ns"]]
after = [w for w in v["windows"] if w["t_mono_ns"] - w["interval_ns"] >= last["t_mono_ns"]]
expect(before and after, "windows before %d, after %d" % (len(before), len(after)))
expect(not any("taskstats has no row" in w["evidence"] for w in before), "before the cut: %s" %
       [w["evidence"] for w in before if "taskstats has no row" in w["evidence"]][:1])
expect(all("taskstats has no row here: the cgroup's CPU time" in w["evidence"] for w in after),
       "after the cut: %s" % [w["evidence"] for w in after if "taskstats has no row" not in w["evidence"]][:1])
decode = [p for p in ph if p[0] == "decode"][0]
got = [w["verdict"] for w in inside(v, decode[1], decode[2])]
expect(got and got.count("cpu") >= 0.95 * len(got), "decode after the cut: %s" % got)
print("taskstats cut at %.1f s: %d windows after it from the cgroup's figures, decode %d/%d cpu" %
      (last["t_mono_ns"] / 1e9, len(after), got.count("cpu"), len(got)))
PY
}
check verdict_decides_from_cgroup_where_taskstats_has_no_row taskstats_stops

# Intervals no one of which divides another (30, 70 and 100 ms): the
# verdict, summary and report of it, on windows of the coarsest interval
# that every source's rows spread over; the tree's CPU time in the
# windows is the rows' (taskstats' cpu_run_real_ns summed)
odd_intervals() {
	cat >"$WORK/odd.yaml" <<EOY
episode: {name: odd, output_dir: $WORK/episodes}
target: {command: [sh, -c, 'i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done']}
sources:
  proc_io: {interval: 30ms}
  cgroup: {interval: 70ms}
  taskstats: {interval: 100ms}
EOY
	"$IOPSAMPLE" run "$WORK/odd.yaml" --quiet || return 1
	local ep=$WORK/episodes/odd
	"$IOPSAMPLE" verdict "$ep" --format json >"$WORK/odd.json" || { echo "verdict: exit $?"; return 1; }
	"$IOPSAMPLE" summary "$ep" >"$WORK/odd.summary" || { echo "summary: exit $?"; return 1; }
	grep -q "^verdict, by 100 ms windows" "$WORK/odd.summary" || { echo "summary: $(grep verdict "$WORK/odd.summary")"; return 1; }
	"$IOPSAMPLE" report "$ep" -o "$WORK/odd.html" || { echo "report: exit $?"; return 1; }
	grep -q '"verdict":{"episode":"odd"' "$WORK/odd.html" || { echo "report: no verdict in the page"; return 1; }
	"$PY" - "$WORK/odd.json" "$ep" <<'PY'
import json, sys, epi
from epi import expect
v = json.load(open(sys.argv[1]))
ep = epi.Episode(sys.argv[2])
rows = ep.rows["taskstats"]
expect(v["window_ns"] == 100_000_000, "window %d" % v["window_ns"])
spans = [w["interval_ns"] for w in v["windows"]]
expect(sum(spans) == v["windows"][-1]["t_mono_ns"], "the windows cover the episode")
run = sum(r["cpu_run_real_ns"] for r in rows)
busy = sum(v["totals"]["ns"][l] for l in ("cpu", "cpu_wait", "memory"))
expect(abs(busy - run) <= 0.05 * run and v["totals"]["verdict"] == "cpu", "cpu %d ns of taskstats' %d" % (busy, run))
print("30/70/100 ms: %d windows of 100 ms, verdict %s, taskstats ran %.2f s" % (len(spans), v["totals"]["verdict"], run / 1e9))
PY
}
check verdict_summary_and_report_of_intervals_that_divide_no_other odd_intervals

# A file cut inside a row: refused in a complete episode (65, naming the
# file), judged to the cut in one whose iopsample was killed (running)
damaged() {
	[ $SETUP_RC -eq 0 ] || { echo "setup: $SETUP_OUT"; return 1; }
	local cut=$WORK/cut rc
	cp -r "$JOB" "$cut" && truncate -s -40 "$cut/taskstats.jsonl" || return 1
	"$IOPSAMPLE" verdict "$cut" --format json >"$WORK/cut.json" 2>"$WORK/cut.err"
	rc=$?
	[ $rc -eq 65 ] && grep -q "taskstats.jsonl" "$WORK/cut.err" && [ ! -s "$WORK/cut.json" ] ||
		{ echo "complete, cut: exit $rc: $(cat "$WORK/cut.err")"; return 1; }
	sed -i 's/"status": *"complete"/"status": "running"/' "$cut/manifest.json"
	"$IOPSAMPLE" verdict "$cut" --format json >"$WORK/cut.json" 2>"$WORK/cut.err" ||
		{ echo "running, cut: exit $?: $(cat "$WORK/cut.err")"; return 1; }
	"$PY" - "$WORK/cut.json" "$JOB/taskstats.jsonl" <<'PY'
import json, sys
from epi import expect
v = json.loads(open(sys.argv[1]).read())
rows = open(sys.argv[2]).read().splitlines()
expect(v["status"] == "running", "status %s" % v["status"])
# every whole row but the cut last one: its windows, the last ending where
# the last whole row (cgroup's rows go on to the end)
expect(len(v["windows"]) >= len(rows) - 1, "%d windows of %d rows" % (len(v["windows"]), len(rows)))
print("a running episode cut inside its last taskstats row: %d windows" % len(v["windows"]))
PY
}
check verdict_refuses_a_damaged_file_and_judges_a_killed_episode_to_its_cut damaged
