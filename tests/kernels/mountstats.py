# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The change of one NFS mount's counters between two reads of
/proc/PID/mountstats, written down from the kernel's format (fs/nfs/super.c
nfs_show_stats, net/sunrpc/stats.c: each per-op line is ops, transmissions,
major timeouts, bytes sent, bytes received, queue ms, RTT ms, execute ms),
for the kernel matrix's judge of the net source."""


def read(path, point):
    """{"bytes": [8 numbers], "ops": {OP: [numbers]}} of the mount at point."""
    out, inside, ops = None, False, False
    for line in open(path):
        if line.startswith("device "):
            inside = " mounted on %s with fstype nfs" % point in line
            if inside:
                out, ops = {"bytes": None, "ops": {}}, False
            continue
        if not inside:
            continue
        s = line.strip()
        if s.startswith("bytes:"):
            out["bytes"] = [int(x) for x in s.split()[1:9]]
        elif s.startswith("per-op statistics"):
            ops = True
        elif ops and ":" in s:
            name, rest = s.split(":", 1)
            out["ops"][name] = [int(x) for x in rest.split()]
    return out


def delta(before, after, point):
    b, a = read(before, point), read(after, point)
    d = {"ops": 0, "rtt_ns": 0, "retrans": 0}
    for name, v in a["ops"].items():
        w = b["ops"].get(name, [0] * len(v))
        d["ops"] += v[0] - w[0]
        d["rtt_ns"] += (v[6] - w[6]) * 1000000
        d["retrans"] += max(0, (v[1] - w[1]) - (v[0] - w[0]))
        d[name] = v[0] - w[0]
    d["read_bytes"] = a["bytes"][4] - b["bytes"][4]
    return d
