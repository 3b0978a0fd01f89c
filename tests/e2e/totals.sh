# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# proc_io over a tree of threads, children, grandchildren and an orphan: the
# episode's sums equal what the workload counted itself.
. "$(dirname "$0")/lib/common.sh"

# rchar/syscr also hold what exec reads of the program (kernel_read of the ELF
# and interpreter headers) and what ld.so reads of each shared library:
# docs/data-model.md documents this slack.
RCHAR_SLACK=16384
SYSCR_SLACK=16

run_totals() { # name compression cgroup backend
	cat >"$WORK/$1.yaml" <<EOY
episode: {name: $1, labels: {case: totals}, cgroup: $3}
target:
  command: [$IOWORK, --threads, "3", --children, "2", --orphan, --rounds, "20", --pause-ms, "10"]
sources:
  proc_io: {interval: 10ms, backend: $4}
output: {compression: $2}
EOY
	"$IOPSAMPLE" run "$WORK/$1.yaml" --quiet || return
	episode_py "$WORK/episodes/$1" <<PY
from epi import expect
w = ep.target_report()
rows = ep.rows["proc_io"]
expect(ep.manifest["status"] == "complete", "status " + ep.manifest["status"])
expect(ep.total("proc_io", "wchar") == w["wchar"], "wchar %d, workload %d" % (ep.total("proc_io", "wchar"), w["wchar"]))
expect(ep.total("proc_io", "syscw") == w["syscw"], "syscw %d, workload %d" % (ep.total("proc_io", "syscw"), w["syscw"]))
r, s = ep.total("proc_io", "rchar"), ep.total("proc_io", "syscr")
expect(w["rchar"] <= r <= w["rchar"] + $RCHAR_SLACK, "rchar %d, workload %d" % (r, w["rchar"]))
expect(w["syscr"] <= s <= w["syscr"] + $SYSCR_SLACK, "syscr %d, workload %d" % (s, w["syscr"]))
expect(all(v >= 0 for row in rows for k, v in row.items() if k in ("rchar","wchar","syscr","syscw")), "a negative change")
expect(w["processes"] == 7 and w["threads"] == 3, "workload shape %s" % w)
expect(max(row["nprocs"] for row in rows) >= 4, "nprocs never saw the children")
expect(rows[-1]["nprocs"] == 0, "final nprocs %d" % rows[-1]["nprocs"])
expect(all(row["labels"] == {"case": "totals"} for row in rows), "labels")
tree = ep.manifest["sources"]["proc_io"]["tree"]
expect(tree == ("fork" if "$4" == "bpf" else "walk" if "$3" == "off" else "cgroup"), "the tree found by " + tree)
expect(ep.manifest["sources"]["proc_io"]["backend"] == "$4", "backend " + ep.manifest["sources"]["proc_io"]["backend"])
print("wchar %d = %d, syscw %d = %d, rchar +%d, syscr +%d over %d rows" % (
    ep.total("proc_io", "wchar"), w["wchar"], ep.total("proc_io", "syscw"), w["syscw"],
    r - w["rchar"], s - w["syscr"], len(rows)))
PY
}

check proc_io_totals_equal_the_workloads run_totals plain none auto procfs
check proc_io_totals_equal_the_workloads_zstd run_totals packed zstd auto procfs
# no episode cgroup: the tree is walked through the children files
check proc_io_totals_equal_the_workloads_walking run_totals walked none off procfs
# the task iterator: the tree kept in the kernel by fork and free
check proc_io_totals_equal_the_workloads_bpf run_totals iterated none auto bpf
