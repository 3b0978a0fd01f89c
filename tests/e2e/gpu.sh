# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# gpu without a GPU: the source against NVML's test double
# (tests/fixtures/fake_nvml.c), which plays each reading's values from a
# script, one a call, and logs every value it gives out with the caller's
# pid and the time. The rows are checked against that log (what the source
# was told) by the definitions: a 32-bit counter's change is
# (now - before) mod 2^32; an energy row holds the readings that ended in
# it. Then a reading a GPU does not give, a GPU lost mid-episode, no driver,
# and whose processes count. tests/gpu/check.sh is the same source on a GPU.
. "$(dirname "$0")/lib/common.sh"

FAKE=$BUILD/fixtures/libfake_nvml.so
export IOPSAMPLE_TEST_NVML=$FAKE FAKE_NVML_SCRIPT=$WORK/script FAKE_NVML_LOG=$WORK/nvml.log

# gpu_episode NAME INTERVAL [GPU_KEYS] [COMMAND]: an episode of gpu and
# proc_io, the target COMMAND (a JSON list; default a 0.4 s sleep)
gpu_episode() {
	local name=$1 interval=$2 keys=${3:-} cmd=${4:-'["sleep", "0.4"]'}
	rm -f "$FAKE_NVML_LOG"
	cat >"$WORK/$name.yaml" <<-EOF
		episode: {name: $name, output_dir: $WORK/episodes}
		target: {command: $cmd, stdout: file}
		sources:
		  gpu: {interval: $interval${keys:+, $keys}}
		  proc_io: {interval: $interval}
	EOF
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet || { echo "run $name: exit $?"; return 1; }
}

# Two GPUs. GPU 0: a PCIe TX counter that wraps between two readings, the
# energy climbing; GPU 1 gives no energy, SM clock, temperature or throttle
# reasons (NOT_SUPPORTED), as some GPUs do.
cat >"$WORK/script" <<'EOF'
driver 580.159.04
gpu GPU-00000000-fake-0000-0000-000000000000 Fake_H100 5 16
gpu GPU-11111111-fake-1111-1111-111111111111 Fake_T4 3 16
0 pcie_tx 1000 2000 4000000000 4294000000 4294967000 500 70000 9000000 9000100
0 pcie_rx 0 100 200 300 400 500 600 700 800 900 1000
0 energy 5000 5100 5700 6900 8200 9000 9900 12000 15000
0 delay energy 0 0 0.9 0 0.9 0 0.9 0 0.9 0 0.9 0
0 gpu_util 10 20 30 40 50 60 70
0 mem_util 1 2 3 4
0 mem_used 1073741824 2147483648
0 power 70000 71000 72000 300000
0 sm_clock 1755 1980
0 temperature 33 34 35 36
0 throttle 0 1 4 0x24 0
1 pcie_tx 7 8 9 10 11
1 pcie_rx 7 8 9 10 11
1 gpu_util 5
1 mem_util 5
1 mem_used 1000
1 power 20000
EOF

# arithmetic: each row's PCIe change is the next two logged readings' (the
# first two being open's and begin's baselines), modulo 2^32; the wrap lands
# in one row as 2^32 - before + after; the totals add the GPUs up;
# the energy rows add up to the last reading less begin's, each
# non-zero row at least 100 ms from the previous (every other energy call
# held 0.9 ms: the next is due 100 ms from its end, not from when it was
# asked); gauges are the values logged at that tick.
if gpu_episode arith 20ms; then
	check arithmetic "$PY" - "$WORK/episodes/arith" "$FAKE_NVML_LOG" <<'PY'
import json, sys, epi
ep = epi.Episode(sys.argv[1])
expect = epi.expect
log = [l.split() for l in open(sys.argv[2])]
sampler = log[-1][0]
def logged(gpu, reading):
    return [(int(l[1]), int(l[4])) for l in log if l[0] == sampler and l[2] == str(gpu) and l[3] == reading]
rows = ep.rows["gpu"]
m = ep.manifest["sources"]["gpu"]
expect(m["nvml"]["test_double"] and m["nvml"]["library"].endswith("libfake_nvml.so"), "manifest nvml: %s" % m["nvml"])
expect(m["late_rows"] == 0, "late rows: %d" % m["late_rows"])
for gpu in (0, 1):
    for field, reading in (("pcie_tx_bytes", "pcie_tx"), ("pcie_rx_bytes", "pcie_rx")):
        vals = [v for _, v in logged(gpu, reading)]
        expect(len(vals) == len(rows) + 2, "GPU %d %s: %d readings for %d rows" % (gpu, reading, len(vals), len(rows)))
        want = [(b - a) % 2**32 for a, b in zip(vals[1:], vals[2:])]
        got = [r["by_device"][str(gpu)][field] for r in rows]
        expect(got == want, "GPU %d %s: rows %s, want %s" % (gpu, field, got, want))
tx0 = [r["by_device"]["0"]["pcie_tx_bytes"] for r in rows]
expect(2**32 - 4294967000 + 500 in tx0, "the wrap's row (796 B) is not among %s" % tx0)
for r in rows:
    for f in ("pcie_tx_bytes", "pcie_rx_bytes", "mem_used_bytes", "power_mw"):
        expect(r[f] == r["by_device"]["0"][f] + r["by_device"]["1"][f], "row %d %s: total %s" % (r["seq"], f, r[f]))
    expect(r["gpu_util_pct"] == (r["by_device"]["0"]["gpu_util_pct"] + r["by_device"]["1"]["gpu_util_pct"]) / 2,
           "row %d gpu_util_pct is not the mean" % r["seq"])
    # the GPUs that give a field: GPU 0 alone
    for f in ("energy_mj", "sm_clock_mhz", "temperature_c"):
        expect(r[f] == r["by_device"]["0"][f], "row %d %s: %s" % (r["seq"], f, r[f]))
    expect(r["throttle_reasons"] == r["by_device"]["0"]["throttle_reasons"], "row %d throttle" % r["seq"])
# energy: what the readings after begin's added, in rows, none lost
energy = logged(0, "energy")
expect(sum(r["energy_mj"] for r in rows) == energy[-1][1] - energy[1][1],
       "energy rows add up to %d, the readings to %d" % (sum(r["energy_mj"] for r in rows), energy[-1][1] - energy[1][1]))
times = [t for t, _ in energy[2:-1]]  # the thread's own readings
expect(all(b - a >= 100e6 for a, b in zip(times, times[1:])), "energy read less than 100 ms apart: %s" % times)
# begin's baselines (each reading's second call; open's is the first) come
# from the reader thread, as every row's do: never from the sampler's own
for reading in ("pcie_tx", "energy", "gpu_util", "power"):
    calls = [l for l in log if l[0] == sampler and l[2] == "0" and l[3] == reading]
    expect(calls[0][5] == sampler, "open's %s from thread %s" % (reading, calls[0][5]))
    expect(all(l[5] != sampler for l in calls[1:]), "%s read on the sampler's thread after open: %s" % (
        reading, [l[1] for l in calls[1:] if l[5] == sampler]))
# gauges: the tick's own reading (GPU 0's third utilization call is row 0's)
util = [v for _, v in logged(0, "gpu_util")]
expect([r["by_device"]["0"]["gpu_util_pct"] for r in rows] == util[2:], "gpu_util_pct against the log")
thr = [v for _, v in logged(0, "throttle")][2:]
for r, bits in zip(rows, thr):
    t = r["by_device"]["0"]["throttle_reasons"]
    expect(t["gpu_idle"] == bits & 1 and t["sw_power_cap"] == (bits >> 2) & 1 and t["sw_thermal"] == (bits >> 5) & 1,
           "row %d throttle_reasons %s for bits %#x" % (r["seq"], t, bits))
print("    %d rows; GPU 0's PCIe TX rows %s" % (len(rows), tx0[:8]))
PY
fi

# columns for SQL engines, and export's table: a deployable source's
# columns, its counters summing to the rows' sums on another grid
columns_and_export() {
	"$IOPSAMPLE" schema --columns gpu --dialect duckdb >"$WORK/cols.txt" &&
		"$IOPSAMPLE" export "$WORK/episodes/arith" --grid 50ms --deployable-only -o "$WORK/arith.csv" || return 1
	"$PY" - "$WORK/cols.txt" "$WORK/arith.csv" "$WORK/episodes/arith" <<'PY'
import ast, sys
import pandas as pd
import epi
cols = ast.literal_eval(open(sys.argv[1]).read())  # DuckDB's columns={...}
epi.expect(cols["pcie_tx_bytes"] == "BIGINT" and cols["gpu_util_pct"] == "DOUBLE", "columns %s" % cols)
epi.expect(cols["by_device"].startswith("MAP(VARCHAR, STRUCT(") and '"throttle_reasons" STRUCT(' in cols["by_device"], cols["by_device"])
t = pd.read_csv(sys.argv[2])
ep = epi.Episode(sys.argv[3])
for col, get in (("gpu.pcie_tx_bytes", lambda r: r["pcie_tx_bytes"]),
                 ("gpu.by_device.0.pcie_tx_bytes", lambda r: r["by_device"]["0"]["pcie_tx_bytes"]),
                 ("gpu.by_device.1.pcie_rx_bytes", lambda r: r["by_device"]["1"]["pcie_rx_bytes"]),
                 ("gpu.energy_mj", lambda r: r["energy_mj"])):
    want = sum(get(r) for r in ep.rows["gpu"])
    epi.expect(int(t[col].sum()) == want, "%s: the table sums to %d, the rows to %d" % (col, t[col].sum(), want))
epi.expect("gpu.throttle_reasons.sw_power_cap" in t.columns and not any(c.startswith("syscall_io.") for c in t.columns),
           "deployable-only columns")
PY
}
check columns_and_export columns_and_export

# unsupported: GPU 1's refused readings are null in every row, and the
# manifest gives NVML's reason for each
check unsupported episode_py "$WORK/episodes/arith" <<'PY'
m = ep.manifest["sources"]["gpu"]
nf = m["gpus"][1]["null_fields"]
epi.expect(set(nf) == {"energy_mj", "sm_clock_mhz", "temperature_c", "throttle_reasons"}, "GPU 1 null_fields: %s" % nf)
epi.expect(all("Not Supported" in why for why in nf.values()), "reasons: %s" % nf)
epi.expect(m["gpus"][0]["null_fields"] == {}, "GPU 0 null_fields: %s" % m["gpus"][0]["null_fields"])
for r in ep.rows["gpu"]:
    d = r["by_device"]["1"]
    epi.expect(d["energy_mj"] is None and d["sm_clock_mhz"] is None and d["temperature_c"] is None,
               "row %d: GPU 1 %s" % (r["seq"], d))
    epi.expect(set(d["throttle_reasons"].values()) == {None}, "row %d: GPU 1 throttle" % r["seq"])
    epi.expect(d["power_mw"] == 20000, "row %d: GPU 1 power %s" % (r["seq"], d["power_mw"]))
PY

# lost: GPU 1 answers NVML_ERROR_GPU_IS_LOST from its 8th power reading on
# (open's and begin's are the first two): its cells are null from that row
# on, with a warning; GPU 0, proc_io and the episode carry on
sed -i 's/^1 power 20000$/1 power 20000 20000 20000 20000 20000 20000 20000 lost/' "$WORK/script"
if gpu_episode lost 20ms; then
	check lost episode_py "$WORK/episodes/lost" <<'PY'
rows = ep.rows["gpu"]
epi.expect(ep.manifest["status"] == "complete", "status %s" % ep.manifest["status"])
power1 = [r["by_device"]["1"]["power_mw"] for r in rows]
epi.expect(power1[:5] == [20000] * 5 and power1[5:] == [None] * (len(rows) - 5), "GPU 1 power: %s" % power1)
for r in rows[5:]:
    d = r["by_device"]["1"]
    epi.expect(all(v is None for k, v in d.items() if k != "throttle_reasons"), "row %d: GPU 1 %s" % (r["seq"], d))
    epi.expect(r["by_device"]["0"]["power_mw"] is not None and r["power_mw"] == r["by_device"]["0"]["power_mw"],
               "row %d: totals %s" % (r["seq"], r["power_mw"]))
w = [x for x in ep.manifest["warnings"] if "lost" in x]
epi.expect(len(w) == 1 and "GPU 1" in w[0] and "GPU_IS_LOST" in w[0], "warnings: %s" % ep.manifest["warnings"])
pio = ep.manifest["sources"]["proc_io"]
epi.expect(pio["status"] == "ok" and pio["rows"] == len(ep.rows["proc_io"]) >= 15, "proc_io: %s" % pio)
PY
fi
sed -i 's/^1 power .*$/1 power 20000/' "$WORK/script"

# attribution: the double lists the target, its child, this test's shell,
# pid 1 and a pid no process has; only the target's two count. The target
# is on GPU 1 too: the total counts it once, its memory on both
cat >>"$WORK/script" <<EOF
0 proc @$WORK/target.pid 1000000
0 proc @$WORK/child.pid 20000
0 proc $$ 400000000
0 proc 1 300000000
0 proc 4194301 5000000
1 proc @$WORK/target.pid 500000
EOF
rm -f "$WORK/target.pid" "$WORK/child.pid"
if gpu_episode tree 20ms "" "[\"/bin/sh\", \"-c\", \"echo \$\$ >$WORK/target.pid; sleep 0.6 & echo \$! >$WORK/child.pid; wait\"]"; then
	check attribution episode_py "$WORK/episodes/tree" <<'PY'
rows = ep.rows["gpu"]
both = [r for r in rows if r["by_device"]["0"]["tree_processes"] == 2]
epi.expect(len(both) >= 10, "rows with both of the tree's processes: %d of %d" % (len(both), len(rows)))
epi.expect(all(r["by_device"]["0"]["tree_mem_bytes"] == 1020000 for r in both),
           "tree_mem_bytes %s" % sorted({r["by_device"]["0"]["tree_mem_bytes"] for r in both}))
epi.expect(max(r["tree_processes"] for r in rows) == 2, "more than the tree counted: %s" % sorted(
    {r["tree_processes"] for r in rows}))
epi.expect(all(r["by_device"]["1"]["tree_processes"] == 1 and r["tree_processes"] == 2 and
               r["tree_mem_bytes"] == 1520000 for r in both),
           "totals of rows with both: %s" % sorted({(r["tree_processes"], r["tree_mem_bytes"]) for r in both}))
# in the host's pid namespace a pid /proc does not show has exited: no
# other namespace to blame
epi.expect(not any("pid namespace" in w for w in ep.manifest["warnings"]),
           "a pid namespace blamed from the host's: %s" % ep.manifest["warnings"])
PY
fi

# the same from a pid namespace of its own (unshare, /proc mounted for it):
# NVML's pids are the host's, and one listed at reading after reading that
# this /proc does not show is another namespace's, said once
pidns() {
	unshare --pid --fork --mount-proc "$IOPSAMPLE" run "$WORK/tree.yaml" --name tree-ns --quiet ||
		{ echo "run in a pid namespace: exit $?"; return 1; }
	episode_py "$WORK/episodes/tree-ns" <<'PY'
w = [x for x in ep.manifest["warnings"] if "pid namespace" in x]
epi.expect(len(w) == 1 and "4194301" in w[0], "warnings: %s" % ep.manifest["warnings"])
print(w[0])
PY
}
check nested_pid_namespace_says_why pidns

# an interval longer than PCIe 5.0 x16's 32-bit counters can span (67 ms):
# PCIe null in each row whose readings were that far apart, counted and said
if gpu_episode slow 100ms; then
	check interval_too_long episode_py "$WORK/episodes/slow" <<'PY'
m = ep.manifest["sources"]["gpu"]
rows = ep.rows["gpu"]
epi.expect(m["gpus"][0]["pcie_max_interval_ns"] == 67108864, "bound %s" % m["gpus"][0]["pcie_max_interval_ns"])
wide = [r for r in rows if r["interval_ns"] >= 67108864]
epi.expect(wide and all(r["by_device"]["0"]["pcie_tx_bytes"] is None for r in wide), "rows of 100 ms with PCIe")
# GPU 1 (PCIe 3.0 x16: 268 ms) keeps its counts
epi.expect(all(r["by_device"]["1"]["pcie_tx_bytes"] is not None for r in rows), "GPU 1 lost its PCIe")
nulled = sum(1 for r in rows if r["by_device"]["0"]["pcie_tx_bytes"] is None)
epi.expect(m["pcie_rows_nulled"] == nulled, "pcie_rows_nulled %d, null rows %d" % (m["pcie_rows_nulled"], nulled))
epi.expect(any("GPU 0: pcie_tx_bytes and pcie_rx_bytes are null" in w for w in ep.manifest["warnings"]),
           "warnings: %s" % ep.manifest["warnings"])
PY
fi

# a held call: the driver holds GPU 0's 5th PCIe reading (open's and
# begin's are the first two) 65 ms at 10 ms, in which its TX counter moves
# 5e9 bytes, more than 2^32 (read back as 5e9 mod 2^32). PCIe 5.0 x16's
# counters can span 67.1 ms: the readings were asked 10 ms apart, and the
# next one 65 ms after the held one, both under the bound, but the two
# values compared were sampled 75 ms apart; so the row that holds the
# change is null, counted. The rows at the held tick are late (null gauges,
# counted in late_rows) and the grid goes on.
cat >"$WORK/held.script" <<'EOF'
gpu GPU-22222222-fake-2222-2222-222222222222 Fake_Held 5 16
0 pcie_tx 0 0 1000 2000 705034704 705035704 705036704
0 delay pcie_tx 0 0 0 0 65 0
0 pcie_rx 0
0 power 70000
EOF
if FAKE_NVML_SCRIPT=$WORK/held.script gpu_episode held 10ms "" '["sleep", "0.3"]'; then
	check held_call_spanning_a_wrap_is_null_and_late episode_py "$WORK/episodes/held" <<'PY'
m = ep.manifest["sources"]["gpu"]
rows = ep.rows["gpu"]
epi.expect(m["gpus"][0]["pcie_max_interval_ns"] == 67108864, "bound %s" % m["gpus"][0]["pcie_max_interval_ns"])
tx = [r["by_device"]["0"]["pcie_tx_bytes"] for r in rows]
nulled = [r["seq"] for r in rows if r["by_device"]["0"]["pcie_tx_bytes"] is None]
# 705034704 - 2000 is what the wrapped counter reads as: a silent wrong count
epi.expect(705032704 not in tx and all(v is None or v <= 1000 for v in tx), "PCIe TX by row: %s" % tx)
late = [r["seq"] for r in rows if r["by_device"]["0"]["power_mw"] is None]
epi.expect(m["late_rows"] >= 1 and m["late_rows"] == len(late), "late_rows %s, rows with null gauges %s" % (
    m["late_rows"], late))
# a late row's change waits for the next row that gets its reading: that
# one spans the held call, and is the one nulled for it
ambiguous = [q for q in nulled if q not in late]
epi.expect(m["pcie_rows_nulled"] == len(ambiguous) == 1 and ambiguous[0] == late[-1] + 1,
           "pcie_rows_nulled %s; PCIe null in %s, late %s" % (m["pcie_rows_nulled"], nulled, late))
epi.expect(any("late rows hold null gauges" in w for w in ep.manifest["warnings"]), "warnings %s" % ep.manifest["warnings"])
print("%d rows: PCIe null in %s, late rows %s, the rest %d bytes" % (
    len(rows), nulled, late, sum(v for v in tx if v is not None)))
PY
fi

# devices: by index and by UUID, the manifest and by_device naming the one
# chosen; a GPU NVML does not have stops the run before the target starts
if gpu_episode one 20ms 'devices: ["GPU-11111111-fake-1111-1111-111111111111"]'; then
	check devices_by_uuid episode_py "$WORK/episodes/one" <<'PY'
g = ep.manifest["sources"]["gpu"]["gpus"]
epi.expect([x["index"] for x in g] == [1] and g[0]["name"] == "Fake_T4", "gpus %s" % g)
epi.expect(list(ep.rows["gpu"][0]["by_device"]) == ["1"], "by_device %s" % list(ep.rows["gpu"][0]["by_device"]))
epi.expect(ep.manifest["config"]["sources"]["gpu"]["devices"] == ["GPU-11111111-fake-1111-1111-111111111111"], "config")
PY
fi
printf 'episode: {name: nine, output_dir: %s}\ntarget: {command: [true]}\nsources:\n  gpu: {devices: [0, 9]}\n' \
	"$WORK/episodes" >"$WORK/nine.yaml"
check no_such_gpu refuses 77 "source gpu cannot run on this host: devices: no GPU 9 (NVML sees 2)" \
	"$IOPSAMPLE" run "$WORK/nine.yaml"
printf 'episode: {name: bad, output_dir: %s}\ntarget: {command: [true]}\nsources:\n  gpu:\n    devices: [0, cuda0]\n' \
	"$WORK/episodes" >"$WORK/bad.yaml"
check bad_device_name refuses 78 "bad.yaml:5:18: GPU \"cuda0\": give an NVML index" "$IOPSAMPLE" check "$WORK/bad.yaml"

# probe: the GPUs, their UUIDs, the driver, and what each does not give
probe_gpus() {
	"$IOPSAMPLE" probe | "$PY" -c '
import json, sys
g = json.load(sys.stdin)["sources"]["gpu"]
assert g["status"] == "ok" and g["nvml"]["driver_version"] == "580.159.04", g
assert [(x["index"], x["name"], x["uuid"][:12]) for x in g["gpus"]] == [
    (0, "Fake_H100", "GPU-00000000"), (1, "Fake_T4", "GPU-11111111")], g["gpus"]
assert sorted(g["gpus"][1]["null_fields"]) == ["energy_mj", "sm_clock_mhz", "temperature_c", "throttle_reasons"], g
'
}
check probe probe_gpus

# the driver is there but not working: unavailable with NVML's words,
# the episode goes on (required: false)
printf 'init driver_not_loaded\n' >"$WORK/script"
if gpu_episode nodrv 20ms "required: false"; then
	check driver_not_loaded episode_py "$WORK/episodes/nodrv" <<'PY'
g = ep.manifest["sources"]["gpu"]
epi.expect(g["status"] == "unavailable" and "nvmlInit: Driver Not Loaded" in g["error"], "gpu %s" % g)
epi.expect(ep.manifest["status"] == "complete" and ep.manifest["sources"]["proc_io"]["status"] == "ok", "episode")
PY
fi

# no NVML at all, as on this host and in CI: unavailable naming
# libnvidia-ml.so.1 (required: false), or the run refused naming it
unset IOPSAMPLE_TEST_NVML
if ldconfig -p | grep -q 'libnvidia-ml\.so\.1 '; then
	skip no_driver "this host has libnvidia-ml.so.1"
else
	if gpu_episode none 20ms "required: false"; then
		check no_driver episode_py "$WORK/episodes/none" <<'PY'
g = ep.manifest["sources"]["gpu"]
epi.expect(g["status"] == "unavailable" and "libnvidia-ml.so.1" in g["error"] and g["rows"] == 0, "gpu %s" % g)
epi.expect(g["nvml"] == {"library": "libnvidia-ml.so.1", "test_double": False}, "nvml %s" % g["nvml"])
epi.expect(ep.manifest["status"] == "complete" and ep.manifest["sources"]["proc_io"]["rows"] > 0, "episode")
PY
	fi
	printf 'episode: {name: req, output_dir: %s}\ntarget: {command: [true]}\nsources:\n  gpu: {}\n' \
		"$WORK/episodes" >"$WORK/req.yaml"
	check no_driver_required refuses 77 "source gpu cannot run on this host: no NVIDIA driver: libnvidia-ml.so.1" \
		"$IOPSAMPLE" run "$WORK/req.yaml"
	check no_driver_no_directory test ! -e "$WORK/episodes/req"
fi
