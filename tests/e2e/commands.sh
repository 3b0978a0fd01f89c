# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The commands that read a host or an episode back: probe's facts against
# the kernel's own files and perf stat, summary's figures against the rows
# and the workload's own counts, cat's rows and its truncated-tail report.
. "$(dirname "$0")/lib/common.sh"

SYSIO=$WORKLOADS/sysio

probe() {
	"$IOPSAMPLE" probe >"$WORK/probe.json" || { echo "probe: exit $?"; return 1; }
	"$PY" - "$WORK/probe.json" <<'PY' || return 1
import json, os, subprocess, sys
from epi import expect
p = json.load(open(sys.argv[1]))
h = p["host"]
expect(h["kernel_release"] == os.uname().release, "kernel_release " + str(h["kernel_release"]))
expect(h["cpu_count"] == os.cpu_count(), "cpu_count %s" % h["cpu_count"])
expect(h["perf_event_paranoid"] == int(open("/proc/sys/kernel/perf_event_paranoid").read()), "paranoid")
s = p["sources"]
expect(list(s) == ["proc_io", "syscall_io", "perf_event", "block_io", "diskstats", "taskstats", "cgroup", "gpu", "waits", "offcpu", "net"], "sources %s" % list(s))
# the cgroups, as /proc/self/mountinfo and /proc/self/cgroup say: the trial
# episode cgroup made and gone again
cg = p["cgroups"]
mounts = {l.split()[4]: l.split(" - ")[1].split()[0] for l in open("/proc/self/mountinfo")}
for hy in cg["hierarchies"]:
    expect(mounts.get(hy["mount"]) == ("cgroup2" if hy["version"] == 2 else "cgroup"), "hierarchy %s" % hy)
    expect(hy["writable"] == os.access(hy["mount"] + (hy["cgroup"] if hy["cgroup"] != "/" else ""), os.W_OK), "writable %s" % hy)
v2 = [hy for hy in cg["hierarchies"] if hy["version"] == 2]
expect(all(hy["pressure"] == os.path.exists(hy["mount"] + hy["cgroup"].rstrip("/") + "/cpu.pressure") for hy in v2), "pressure %s" % v2)
expect(cg["system_pressure"] == os.path.exists("/proc/pressure/cpu"), "system_pressure")
expect(cg["episode_cgroup"] and cg["reason"] is None, "root: a cgroup can be made: %s" % cg)
expect(not any(os.path.exists(c["path"]) for c in cg["episode_cgroup"]), "the trial cgroup was left")
expect(s["cgroup"]["status"] == "ok" and s["cgroup"]["available_in_deployment"], "cgroup %s" % s["cgroup"])
# root, as in CI: the eBPF programs load; /proc/diskstats is anyone's
expect(s["block_io"]["status"] == "ok" and s["block_io"]["ebpf"]["works"] and not s["block_io"]["available_in_deployment"], "block_io %s" % s["block_io"])
expect(s["diskstats"]["status"] == "ok" and s["diskstats"]["available_in_deployment"], "diskstats %s" % s["diskstats"])
expect(s["proc_io"]["status"] == "ok" and s["proc_io"]["available_in_deployment"], "proc_io %s" % s["proc_io"])
# waits: root reads every thread's /proc files, and its task iterator loads
# (bpf_task_pt_regs: Linux 5.15); schedstat where the kernel keeps it
w = s["waits"]
expect(w["status"] == "ok" and w["available_in_deployment"] and w["backend"] == "bpf" and w["bpf"]["works"] and
       w["procfs"] == {"works": True, "error": None, "schedstat": os.path.exists("/proc/self/schedstat")}, "waits %s" % w)
# offcpu: its scheduler programs load (bpf_loop: Linux 5.17); an oracle
o = s["offcpu"]
expect(o["status"] == ("ok" if tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2]) >= (5, 17)
                       else "unavailable") and not o["available_in_deployment"], "offcpu %s" % o)
# net: /proc/self/net and mountstats are anyone's
expect(s["net"]["status"] == "ok" and s["net"]["available_in_deployment"], "net %s" % s["net"])
# root: taskstats answers, and probe reports task_delayacct as it is, untouched
da = open("/proc/sys/kernel/task_delayacct").read().strip()
expect(s["taskstats"]["status"] == "ok" and s["taskstats"]["available_in_deployment"] and
       s["taskstats"]["task_delayacct"] == {"value": da, "writable": True}, "taskstats %s" % s["taskstats"])
yama = "/proc/sys/kernel/yama/ptrace_scope"
pt = s["syscall_io"]["ptrace"]
expect(pt["yama_ptrace_scope"] == (int(open(yama).read()) if os.path.exists(yama) else None), "yama %s" % pt)
# root, as in CI: everything each backend needs works, and auto takes ebpf
expect(pt == dict(pt, works=True, error=None, permitted=True, seccomp_filter=True, get_syscall_info=True), "ptrace %s" % pt)
eb = s["syscall_io"]["ebpf"]
# what this kernel allows each backend: bpf_loop (5.17), and with every
# family configured, none the ebpf backend cannot see (io_uring from 6.0),
# io_uring alone under ptrace, each with why
release = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])
expect(eb == {"works": True, "error": None, "btf": os.path.exists("/sys/kernel/btf/vmlinux"),
              "host_pid_ns": os.stat("/proc/self/ns/pid").st_ino == 0xEFFFFFFC,
              "bpf_loop": release >= (5, 17), "unseen": {} if release >= (6, 0) else eb["unseen"]}, "ebpf %s" % eb)
expect(list(pt["unseen"]) == ["io_uring"] and "ptrace" in pt["unseen"]["io_uring"], "ptrace unseen %s" % pt["unseen"])
expect(s["syscall_io"]["status"] == "ok" and s["syscall_io"]["error"] is None, "syscall_io %s" % s["syscall_io"])
expect(s["syscall_io"]["backend"] == "ebpf", "backend %s" % s["syscall_io"]["backend"])
pe = s["perf_event"]
expect("perf" in pe["pmus"], "pmus %s" % pe["pmus"])
events = ["cycles", "instructions", "cache-references", "cache-misses", "branches",
          "branch-misses", "page-faults", "context-switches"]
expect([e["event"] for e in pe["events"]] == events, "events %s" % [e["event"] for e in pe["events"]])
# perf stat says which of them this host counts
for e in pe["events"]:
    out = subprocess.run(["perf", "stat", "-x,", "-e", e["event"], "true"], capture_output=True).stderr.decode()
    counts = any(l.split(",")[2:3] == [e["event"]] and l.split(",")[0][:1].isdigit() for l in out.splitlines())
    expect(e["counted"] == counts, "%s: probe says counted=%s, perf stat: %s" % (e["event"], e["counted"], out.strip()))
    expect((e["reason"] is None) == counts, "%s: reason %s" % (e["event"], e["reason"]))
expect(pe["status"] == ("ok" if any(e["counted"] for e in pe["events"]) else "unavailable"), "perf_event status")
print("%s, %d PMUs, %d of 8 default events count" % (h["kernel_release"], len(pe["pmus"]),
      sum(e["counted"] for e in pe["events"])))
PY
	"$IOPSAMPLE" probe extra 2>/dev/null
	[ $? -eq 64 ] || { echo "probe with an argument: not 64"; return 1; }
}
check probe_reports_what_the_kernel_says probe

# An episode whose target counts its syscalls and leaves a process behind.
cat >"$WORK/s.yaml" <<EOY
episode: {name: s, labels: {case: summary}}
target:
  command: "$SYSIO --threads 2 --rounds 3 --report $WORK/s.json; sleep 30 & echo $TAG >/dev/null"
sources:
  proc_io: {interval: 10ms}
  syscall_io: {interval: 10ms}
  perf_event: {interval: 10ms, events: [page-faults, cycles]}
EOY
"$IOPSAMPLE" run "$WORK/s.yaml" --quiet >/dev/null 2>&1
"$IOPSAMPLE" summary --raw "$WORK/episodes/s" >"$WORK/summary.txt" 2>"$WORK/summary.err"
SUMMARY_RC=$?
"$IOPSAMPLE" summary "$WORK/episodes/s" >"$WORK/human.txt" 2>&1
HUMAN_RC=$?

summary() {
	[ $SUMMARY_RC -eq 0 ] || { echo "summary: exit $SUMMARY_RC: $(cat "$WORK/summary.err")"; return 1; }
	episode_py "$WORK/episodes/s" "$WORK/summary.txt" "$WORK/s.json" <<'PY'
import json, re
from epi import expect
text = open(sys.argv[2]).read()
w = json.load(open(sys.argv[3]))
m = ep.manifest
expect(text.startswith(sys.argv[1] + ": episode s, complete, "), "header: " + text[:200])
expect("label case: summary" in text, "labels")
expect(len(m["warnings"]) == 1 and ("warning: " + m["warnings"][0]) in text, "warnings %s" % m["warnings"])
sections = dict(re.findall(r"^(\w+) \((?:deployable|oracle)\): (.*?)(?=^\w+ \(|\Z)", text, re.M | re.S))
expect(list(sections) == ["proc_io", "syscall_io", "perf_event"], "sections %s" % list(sections))
for s, body in sections.items():
    rows = ep.rows[s]
    expect(" %d rows over " % len(rows) in body, "%s: row count" % s)
    secs = rows[-1]["t_mono_ns"] / 1e9
    for f in ("wchar", "syscw", "read_calls", "write_bytes", "error_calls", "page_faults",
              "by_syscall.pwrite64.bytes"):
        if f.split(".")[0] not in rows[0]:
            continue
        total = sum(r["by_syscall"]["pwrite64"]["bytes"] if f.startswith("by_") else r[f] for r in rows)
        got = re.search(r"^  %s +(\d+) +([\d.]+)$" % re.escape(f), body, re.M)
        expect(got and int(got.group(1)) == total, "%s %s: summary %s, rows %d" % (s, f, got and got.group(0), total))
        expect(abs(float(got.group(2)) - total / secs) <= 0.05 + total / secs * 1e-6, "%s rate" % f)
expect(re.search(r"^  cycles +null in every row$", sections["perf_event"], re.M) or
       re.search(r"^  cycles +\d+ ", sections["perf_event"], re.M), "cycles line")
expect(re.search(r"^  nprocs .*mean [\d.]+, min 0, max \d+ over \d+ rows$", sections["proc_io"], re.M), "nprocs is a gauge")
# the size histograms: one bar per bucket the rows used, their sums, which
# hold the workload's own counts (and what sh and sleep read besides)
def label(i):
    unit = lambda k: "%d %s" % (1 << (k % 10), ["B", "KiB", "MiB", "GiB"][k // 10])
    return "0 B" if i == 0 else unit(0) if i == 1 else ">= " + unit(30) if i == 31 else "%s to < %s" % (unit(i - 1), unit(i))
for d in ("read", "write"):
    hist = [sum(r[d + "_size_hist"][i] for r in ep.rows["syscall_io"]) for i in range(32)]
    expect(all(h >= n for h, n in zip(hist, w[d + "_size_hist"])), "%s: rows %s, workload %s" % (d, hist, w[d + "_size_hist"]))
    bars = re.search(r"^  %s_size_hist: (\d+) in all\n((?:    .*\n)*)" % d, sections["syscall_io"], re.M)
    expect(bars and int(bars.group(1)) == sum(hist), d + " histogram total")
    want = ["%s %d" % (label(i), n) for i, n in enumerate(hist) if n]
    got = [re.sub(r"\s+#+$", "", l.strip()) for l in bars.group(2).splitlines()]
    got = [re.sub(r"\s{2,}", " ", g) for g in got]
    expect(got == want, "%s bars %s, rows %s" % (d, got, want))
    top = max(hist)
    expect(all(len(l) - len(l.rstrip("#")) == -(-n * 40 // top) for l, n in
               zip(bars.group(2).splitlines(), [n for n in hist if n])), d + " bar lengths")
print("%d read and %d write calls in %d and %d bars; warning shown" % (
    sum(w["read_size_hist"]), sum(w["write_size_hist"]),
    sum(1 for n in w["read_size_hist"] if n), sum(1 for n in w["write_size_hist"] if n)))
PY
}
check summary_shows_the_rows_totals_and_the_workloads_histograms summary

# Without --raw: bytes in KiB/MiB and per second, counts per second of
# their unit; read back, each is the rows' total to its printed precision.
summary_human() {
	[ $HUMAN_RC -eq 0 ] || { echo "summary: exit $HUMAN_RC: $(cat "$WORK/human.txt")"; return 1; }
	episode_py "$WORK/episodes/s" "$WORK/human.txt" <<'PY'
import re
from epi import expect
text = open(sys.argv[2]).read()
sections = dict(re.findall(r"^(\w+) \((?:deployable|oracle)\): (.*?)(?=^\w+ \(|\Z)", text, re.M | re.S))
SCALE = {"B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
checked = 0
for s, f, unit in (("proc_io", "wchar", "bytes"), ("proc_io", "rchar", "bytes"), ("syscall_io", "write_bytes", "bytes"),
                   ("proc_io", "syscw", "calls"), ("syscall_io", "write_calls", "calls")):
    rows = ep.rows[s]
    total, secs = sum(r[f] for r in rows), rows[-1]["t_mono_ns"] / 1e9
    line = re.search(r"^  %s +(.*)$" % f, sections[s], re.M)
    expect(line, "%s.%s: no line" % (s, f))
    if unit == "bytes":
        m = re.match(r"([\d.]+) (B|KiB|MiB|GiB) +([\d.]+) (B|KiB|MiB|GiB)/s$", line.group(1))
        expect(m, "%s.%s: %r is not bytes and bytes/s" % (s, f, line.group(1)))
        got, rate = float(m.group(1)) * SCALE[m.group(2)], float(m.group(3)) * SCALE[m.group(4)]
        expect(abs(got - total) <= 0.005 * SCALE[m.group(2)] + 0.5, "%s.%s: %s, rows %d" % (s, f, m.group(0), total))
        expect(abs(rate - total / secs) <= 0.005 * SCALE[m.group(4)] + 0.5, "%s.%s rate: %s" % (s, f, m.group(0)))
    else:
        m = re.match(r"(\d+) +([\d.]+) calls/s$", line.group(1))
        expect(m and int(m.group(1)) == total and abs(float(m.group(2)) - total / secs) <= 0.05 + total / secs * 1e-6,
               "%s.%s: %r, rows %d" % (s, f, line.group(1), total))
    checked += 1
print("%d fields in human units equal the rows; e.g. %s" % (checked, re.search(r"^  wchar +(.*)$", sections["proc_io"], re.M).group(1)))
PY
}
check summary_shows_human_units_and_raw_exact_integers summary_human

cat_cmd() {
	local d=$WORK/episodes/s out err rc
	# several files, one after another, byte for byte
	"$IOPSAMPLE" cat "$d/proc_io.jsonl" "$d/perf_event.jsonl" >"$WORK/both" || return
	cat "$d/proc_io.jsonl" "$d/perf_event.jsonl" | cmp -s - "$WORK/both" || { echo "two files differ"; return 1; }
	"$IOPSAMPLE" cat - <"$d/proc_io.jsonl" | cmp -s - "$d/proc_io.jsonl" || { echo "stdin differs"; return 1; }
	# a tail cut mid-row: the rows before it, and one line saying what happened
	local n
	n=$(wc -l <"$d/proc_io.jsonl")
	head -c -20 "$d/proc_io.jsonl" >"$WORK/cut.jsonl"
	out=$("$IOPSAMPLE" cat "$WORK/cut.jsonl" 2>"$WORK/err")
	rc=$?
	err=$(cat "$WORK/err")
	[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq $((n - 1)) ] &&
		[ "$err" = "iopsample: $WORK/cut.jsonl: after row $((n - 1)): the last row is unfinished ($(( $(tail -n 1 "$d/proc_io.jsonl" | wc -c) - 20 )) bytes, no newline)" ] ||
		{ echo "cut: exit $rc, $(wc -l <<<"$out") rows of $((n - 1)), stderr: $err"; return 1; }
	# nothing readable: exit 65, no output
	printf '\x28\xb5\x2f\xfdnot zstd at all' >"$WORK/bad.zst"
	out=$("$IOPSAMPLE" cat "$WORK/bad.zst" 2>"$WORK/err")
	rc=$?
	[ $rc -eq 65 ] && [ -z "$out" ] && grep -q "bad.zst: after row 0: zstd data does not decode" "$WORK/err" ||
		{ echo "garbage: exit $rc, stdout $out, stderr $(cat "$WORK/err")"; return 1; }
	"$IOPSAMPLE" cat "$WORK/none.jsonl" 2>/dev/null
	rc=$?
	[ $rc -eq 66 ] || { echo "missing file: exit $rc"; return 1; }
	# a reader that goes away ends cat quietly, like cat(1)
	err=$( { "$IOPSAMPLE" cat "$d/syscall_io.jsonl" "$d/syscall_io.jsonl" | head -n 1 >/dev/null; } 2>&1)
	[ -z "$err" ] || { echo "| head: $err"; return 1; }
	echo "$n rows; a cut tail, garbage, a missing file and | head each as cat(1) users expect"
}
check cat_prints_rows_and_reports_a_cut_tail cat_cmd
