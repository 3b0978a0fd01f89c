# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The net source against what the kernel's own tools and the programs
# themselves count, its servers started here, outside the episode's tree:
# a TCP server sending 64 KiB every 10 ms to phasework's recv over lo
# (net.interfaces: [lo]): the rows' lo bytes are `ip -s link`'s change over
# the episode, and the payload the client counted plus 52 bytes a packet
# (an IPv4 header of 20 and a TCP header of 32 with timestamps: lo counts
# IP packets), within 1 %; curl connecting to a closed port 20 times: the
# rows' tcp_active_opens and tcp_out_rsts at least 20 each and at most what
# nstat counted over the episode; a FUSE mount whose daemon answers each
# read after 20 ms: its waiting gauge above 0 while the tree reads, the
# mount and its daemon named, in the rows and in the verdict's evidence; by_mount the NFS and FUSE mounts mountinfo
# shows, empty where there are none, one the tree mounts and unmounts
# followed; an interface named that is not there,
# refused; one removed mid-episode, its keys null from then on, warned of.
. "$(dirname "$0")/lib/common.sh"

LIB=$TESTS/e2e/lib
MNT=$WORK/mnt FUSE_PID= RAW_PID= FUSECTL=

net_cleanup() {
	[ -n "$RAW_PID" ] && kill -9 "$RAW_PID" 2>/dev/null # it may block in a send
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	local m # the trees' own, where a test failed before they unmounted them
	for m in "$WORK/mid" "$WORK/early" "$WORK/beforewait"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null # a dead daemon's too
	done
	[ -n "$FUSE_PID" ] && kill "$FUSE_PID" 2>/dev/null
	[ -n "$FUSECTL" ] && umount /sys/fs/fuse/connections 2>/dev/null
	cleanup
}
trap net_cleanup EXIT

# episode NAME INTERFACES COMMAND...: net at 100 ms ($WAITS: and waits at
# 10 ms, for the verdict)
episode() {
	local name=$1 ifs=$2
	shift 2
	"$PY" - "$WORK/$name.yaml" "$WORK/episodes" "$name" "$ifs" "$WORK" "${WAITS:-}" "$@" <<'PY'
import json, sys
path, out, name, ifs, cwd, waits, *cmd = sys.argv[1:]
with open(path, "w") as f:
    f.write("episode: {name: %s, output_dir: %s}\n" % (name, out))
    f.write("target: {command: %s, cwd: %s, stdout: file}\n" % (json.dumps(cmd), cwd))
    f.write("sources:\n  net: {interval: 100ms%s}\n" % (", interfaces: %s" % ifs if ifs else ""))
    if waits:
        f.write("  waits: {interval: 10ms}\n")
PY
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet >"$WORK/$name.log" 2>&1 ||
		{ echo "$name: run: exit $?: $(tail -n 2 "$WORK/$name.log")"; return 1; }
}

lo_bytes() { ip -s -j link show lo | "$PY" -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["bytes"], s["tx"]["bytes"], s["rx"]["packets"])'; }

tcp_over_lo() {
	[ -s "$WORK/raw.port" ] || { echo "the TCP server did not start: $(cat "$WORK/raw.out")"; return 1; }
	local before after
	before=$(lo_bytes)
	episode tcp "[lo]" "$WORKLOADS/phasework" "recv:1.5:$(cat "$WORK/raw.port")" || return 1
	after=$(lo_bytes)
	"$PY" - "$WORK/episodes/tcp" "$before" "$after" <<'PY'
import json, sys
from epi import Episode, expect
ep = Episode(sys.argv[1])
b, a = [list(map(int, x.split())) for x in sys.argv[2:4]]
rows = ep.rows["net"]
rx, tx, packets = (sum(r[f] for r in rows) for f in ("rx_bytes", "tx_bytes", "rx_packets"))
expect(list(rows[-1]["by_interface"]) == ["lo"] and rows[-1]["by_interface"]["lo"]["rx_bytes"] == rows[-1]["rx_bytes"],
       "by_interface: %s" % rows[-1]["by_interface"])
# by_mount: the NFS and FUSE mounts mountinfo shows, {} where there are none
mounts = set()
for line in open("/proc/self/mountinfo"):
    f = line.split()
    t = f[f.index("-") + 1]
    if t in ("nfs", "nfs4", "fuse", "fuseblk", "virtiofs") or t.startswith("fuse."):
        mounts.add(f[4].replace("\\040", " "))
expect(all(set(r["by_mount"]) == mounts for r in rows), "by_mount %s, mountinfo's %s" % (rows[-1]["by_mount"], mounts))
# ip -s link over the episode (the run's set-up and end on lo too: a few packets)
ip_rx = a[0] - b[0]
expect(rx <= ip_rx and ip_rx - rx <= 0.01 * ip_rx, "lo rx_bytes %d, ip -s link %d" % (rx, ip_rx))
got = [json.loads(l) for l in open(ep.dir + "/target.stdout")][1]["bytes"]
want = got + 52 * packets
expect(abs(rx - want) <= 0.01 * rx, "lo rx_bytes %d; the client's %d bytes + 52 x %d packets = %d" % (rx, got, packets, want))
print("lo: %d bytes in %d packets; the client received %d, ip -s link counted %d" % (rx, packets, got, ip_rx))
PY
}

closed_port() {
	local before after
	before=$(nstat -az TcpActiveOpens TcpOutRsts | awk '$1 ~ /^Tcp/ {print $2}' | tr '\n' ' ')
	episode closed "[lo]" sh -c 'for i in $(seq 1 20); do curl -s -o /dev/null http://127.0.0.1:1/; done; sleep 0.3' ||
		return 1
	after=$(nstat -az TcpActiveOpens TcpOutRsts | awk '$1 ~ /^Tcp/ {print $2}' | tr '\n' ' ')
	"$PY" - "$WORK/episodes/closed" "$before" "$after" <<'PY'
import sys
from epi import Episode, expect
ep = Episode(sys.argv[1])
(b_open, b_rst), (a_open, a_rst) = [list(map(int, x.split())) for x in sys.argv[2:4]]
rows = ep.rows["net"]
opens, rsts = sum(r["tcp_active_opens"] for r in rows), sum(r["tcp_out_rsts"] for r in rows)
expect(20 <= opens <= a_open - b_open, "tcp_active_opens %d; nstat %d" % (opens, a_open - b_open))
expect(20 <= rsts <= a_rst - b_rst, "tcp_out_rsts %d; nstat %d" % (rsts, a_rst - b_rst))
print("active opens %d, resets sent %d; nstat %d and %d" % (opens, rsts, a_open - b_open, a_rst - b_rst))
PY
}

# the FUSE daemon, and fusectl where this host has not mounted it (its
# connections' waiting), here: the checks run in subshells
fuse_setup() {
	"$PY" -c 'import fusepy' || { echo "no fusepy (Debian's python3-fusepy)"; return 1; }
	if ! mountpoint -q /sys/fs/fuse/connections; then
		mount -t fusectl none /sys/fs/fuse/connections || return 1
		FUSECTL=1
	fi
	mkdir -p "$MNT"
	"$PY" "$LIB/slowfuse.py" "$MNT" 64 20 >"$WORK/fuse.out" 2>&1 &
	FUSE_PID=$!
	local i
	for i in $(seq 1 100); do grep -q ready "$WORK/fuse.out" && break; sleep 0.05; done
	grep -q ready "$WORK/fuse.out" || { cat "$WORK/fuse.out"; return 1; }
}

fuse_waiting() {
	[ -n "$FUSE_SETUP" ] || { echo "$(tail -n 2 "$WORK/fuse.setup")"; return 1; }
	WAITS=1 episode fuse "" "$WORKLOADS/phasework" idle:0.5 "read:1.5:$MNT/data" idle:0.5 || return 1
	"$PY" - "$WORK/episodes/fuse" "$MNT" "$FUSE_PID" "$IOPSAMPLE" <<'PY'
import sys
import phases
from epi import Episode, expect
ep = Episode(sys.argv[1])
mnt, daemon = sys.argv[2], int(sys.argv[3])
rows = ep.rows["net"]
m = rows[-1]["by_mount"].get(mnt)
expect(m and m["fstype"].startswith("fuse") and m["daemon_pid"] == daemon,
       "by_mount[%s]: %s" % (mnt, rows[-1]["by_mount"]))
(_, _, before, _), (_, s, e, _) = phases.phases(ep.dir)[:2]  # idle, then read
inside = [r for r in rows if s + 1e8 <= r["t_mono_ns"] - r["interval_ns"] and r["t_mono_ns"] <= e]
idle = [r for r in rows if r["t_mono_ns"] <= before]
# a gauge, read at an instant: one may fall between the daemon's answer and
# the reader's next request (1 of 13 in a loaded make check)
waiting = [r["by_mount"][mnt]["waiting"] or 0 for r in inside]
expect(len(inside) >= 5 and sum(w >= 1 for w in waiting) >= len(waiting) - 1,
       "waiting while the tree reads: %s" % waiting)
expect(all(r["by_mount"][mnt]["waiting"] == 0 for r in idle), "waiting before it reads")
# the verdict's network windows name the mount, its daemon and its requests waiting
v = phases.verdict(sys.argv[4], ep.dir)
ev = [w["evidence"] for w in phases.inside(v, s + 2e8, e) if w["verdict"] == "network"]
mount = "(%s: fuse, daemon python3 (pid %d)" % (mnt, daemon)
named = [x for x in ev if mount + "; " in x and "waiting on its daemon" in x]
# each names the mount and its daemon; the requests waiting are the gauge
# above, read at an instant, which the same one window may miss (11 of 12
# in a loaded make check)
expect(ev and all(mount in x for x in ev) and len(named) >= len(ev) - 1,
       "the verdict's evidence: %d of %d name it: %s" % (len(named), len(ev), [x for x in ev if x not in named][:2]))
print("%s: waiting >= 1 in %d of %d rows of the read, 0 before; %s" % (mnt, sum(w >= 1 for w in waiting), len(inside), named[0][:160]))
PY
}

# a FUSE mount the tree makes and unmounts while the episode runs: out of
# by_mount before, in it from the row after the one it appeared in (the
# tick that finds it), its daemon's requests waiting while dd reads it
# (15 MiB, 120 reads of 20 ms, some at once: read ahead, 40 of them were
# done in the 3 rows after the mount was found once),
# out again once unmounted with a warning; export's columns and the Python
# package's frame have it, null where a row has not. Beside it one mounted
# before the episode, which the tree unmounts: in the first rows only. The
# verdict and the report read the episode.
made_mid_episode() {
	[ -n "$FUSE_SETUP" ] || { echo "$(tail -n 2 "$WORK/fuse.setup")"; return 1; }
	local mnt=$WORK/mid early=$WORK/early i
	mkdir -p "$mnt" "$early"
	"$PY" "$LIB/slowfuse.py" "$early" 1 1 >"$WORK/early.fuse" 2>&1 &
	for i in $(seq 1 100); do grep -q ready "$WORK/early.fuse" && break; sleep 0.05; done
	WAITS=1 episode mid "" sh -c "sleep 0.3; umount $early; sleep 0.2
		$PY $LIB/slowfuse.py $mnt 16 20 >$WORK/mid.fuse 2>&1 &
		until grep -q ready $WORK/mid.fuse; do sleep 0.01; done; date +%s%N >$WORK/mid.ready
		dd if=$mnt/data of=/dev/null bs=128k count=120 status=none; umount $mnt; wait; sleep 0.5" || return 1
	umount "$early" 2>/dev/null
	"$IOPSAMPLE" export "$WORK/episodes/mid" --sources net -o "$WORK/mid.csv" || return 1
	"$IOPSAMPLE" verdict "$WORK/episodes/mid" --format json >"$WORK/mid.verdict" || { echo "verdict: exit $?"; return 1; }
	"$IOPSAMPLE" report "$WORK/episodes/mid" -o "$WORK/mid.html" || { echo "report: exit $?"; return 1; }
	"$PY" - "$WORK/episodes/mid" "$mnt" "$(cat "$WORK/mid.ready")" "$WORK/mid.csv" "$TESTS/../python" "$early" \
		"$WORK/mid.verdict" <<'PY'
import csv, json, sys
from epi import Episode, expect
path, mnt, ready, table, package, early = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
ep = Episode(path)
rows = ep.rows["net"]
ready -= ep.manifest["t_wall_start_ns"]  # on the episode's time
has = [mnt in r["by_mount"] for r in rows]
first = has.index(True) if True in has else None
expect(first and has[first:].index(False) > 0 and True not in has[first + has[first:].index(False):],
       "in by_mount in rows %s" % [r["seq"] for r in rows if mnt in r["by_mount"]])
last = first + has[first:].index(False) - 1
start = rows[first]["t_mono_ns"] - rows[first]["interval_ns"]
expect(ready - 1.5e8 <= start <= ready + 2.5e8, "the first row with it starts at %.3f s, its daemon ready at %.3f s" % (
    start / 1e9, ready / 1e9))
waiting = [rows[i]["by_mount"][mnt]["waiting"] for i in range(first, last + 1)]
expect(sum(1 for w in waiting if (w or 0) >= 1) >= 3, "waiting while dd reads: %s" % waiting)
net = ep.manifest["sources"]["net"]
expect(net["mounts"].get(mnt, {}).get("fstype", "").startswith("fuse"), "the manifest's mounts: %s" % net["mounts"])
warn = [w for w in ep.manifest["warnings"] if mnt in w and "leaves by_mount" in w]
expect(warn, "no warning of the unmount: %s" % ep.manifest["warnings"])
# export: its columns, null in the grid's rows without it
with open(table) as f:
    t = list(csv.DictReader(f))
col = "net.by_mount.%s.waiting" % mnt
expect(t and col in t[0], "export's columns: %s" % [c for c in (t[0] if t else {}) if "by_mount" in c])
filled = [r[col] for r in t if r[col] != ""]
expect(len(filled) >= 3 and t[0][col] == "" and t[-1][col] == "",
       "export's %s: %s" % (col, [r[col] for r in t]))
# the Python package's frame: the column, missing where a row had no such mount
sys.path.insert(0, package)
import iopsample
fr = iopsample.Episode(path).frame("net")
c = "by_mount.%s.waiting" % mnt
expect(c in fr.columns and int(fr[c].notna().sum()) == last - first + 1,
       "frame's %s: %s" % (c, list(fr[c]) if c in fr.columns else list(fr.columns)))
# the one mounted before: in the first rows, then gone
was = [early in r["by_mount"] for r in rows]
expect(was[0] and False in was and True not in was[was.index(False):], "%s in rows %s" % (
    early, [r["seq"] for r in rows if early in r["by_mount"]]))
# the verdict's windows cover the episode (the daemon is the tree's own:
# its waits are ipc, idle, not the network's)
v = json.load(open(sys.argv[7]))
labels = [w["verdict"] for w in v["windows"]]
expect(len(labels) >= len(rows) - 1, "verdict: %d windows for %d rows: %s" % (len(labels), len(rows), labels))
print("%s: in rows %d-%d of %d (from %.2f s, its daemon ready at %.2f s), waiting %s; export %d cells of %d; %s; "
      "%s in rows 0-%d; the verdict's %d windows read" % (
    mnt, first, last, len(rows), start / 1e9, ready / 1e9, waiting, len(filled), len(t), warn[0], early,
    was.index(False) - 1, len(labels)))
PY
}

# a FUSE mount the tree makes before the sampler first waits (a test
# setting holds that wait back 1.5 s): registering mountinfo in the
# sampler's wait polls it, which takes the kernel's event, so the sampler
# counts its registration as a change; the mount is in by_mount from the
# first row after it, not lost until the next mount comes or goes
made_before_the_wait() {
	[ -n "$FUSE_SETUP" ] || { echo "$(tail -n 2 "$WORK/fuse.setup")"; return 1; }
	local mnt=$WORK/beforewait
	mkdir -p "$mnt"
	IOPSAMPLE_TEST_LATE_WATCH_MS=1500 episode late "" sh -c "$PY $LIB/slowfuse.py $mnt 1 1 >$WORK/late.fuse 2>&1 &
		until grep -q ready $WORK/late.fuse; do sleep 0.01; done; date +%s%N >$WORK/late.ready
		sleep 2.5; umount $mnt; wait; sleep 0.3" || return 1
	"$PY" - "$WORK/episodes/late" "$mnt" "$(cat "$WORK/late.ready")" <<'PY'
import sys
from epi import Episode, expect
ep = Episode(sys.argv[1])
mnt, ready = sys.argv[2], (int(sys.argv[3]) - ep.manifest["t_wall_start_ns"]) / 1e9
rows = ep.rows["net"]
wide = ep.manifest["sources"]["net"].get("wide_rows", {}).get("rows", [])
first = rows[0]["t_mono_ns"] / 1e9
# the test proves something only where the mount came before the wait did
expect(ready < first - 0.2, "the mount at %.2f s, the sampler's first row after its wait at %.2f s" % (ready, first))
has = [r["seq"] for r in rows if mnt in r["by_mount"]]
expect(has and has[0] <= rows[1]["seq"], "%s in rows %s of %d (mounted at %.2f s, the first row at %.2f s)" % (
    mnt, has, len(rows), ready, first))
print("%s mounted at %.2f s, the wait from %.2f s (its row %s): in rows %d-%d of %d" % (
    mnt, ready, first, [w["why"] for w in wide][:1], has[0], has[-1], len(rows)))
PY
}

# a veth pair made for the test, up, then removed while the episode runs:
# taken by the default (up, not lo), its keys null from the row after it
# went, a warning saying when
gone_interface() {
	local a=iops$$a b=iops$$b
	ip link add "$a" type veth peer name "$b" || { echo "no veth"; return 1; }
	ip link set "$a" up && ip link set "$b" up || { ip link del "$a"; return 1; }
	episode gone "" sh -c "sleep 0.5; ip link del $a; sleep 0.5"
	local rc=$?
	ip link del "$a" 2>/dev/null
	[ $rc = 0 ] || return 1
	"$PY" - "$WORK/episodes/gone" "$a" "$b" <<'PY'
import sys
from epi import Episode, expect
ep = Episode(sys.argv[1])
a, b = sys.argv[2:4]
rows = ep.rows["net"]
expect(a in ep.manifest["sources"]["net"]["interfaces"] and b in rows[0]["by_interface"], "chosen: %s" %
       ep.manifest["sources"]["net"]["interfaces"])
gone = [r["seq"] for r in rows if r["by_interface"][a]["rx_bytes"] is None]
expect(gone and gone == list(range(gone[0], len(rows))) and all(r["by_interface"][b]["rx_bytes"] is None
                                                              for r in rows if r["seq"] in gone),
       "null from the row it went: %s" % [r["by_interface"][a]["rx_bytes"] for r in rows])
warn = [w for w in ep.manifest["warnings"] if a in w and "left" in w]
expect(warn, "no warning: %s" % ep.manifest["warnings"])
print("%s gone from row %d of %d: %s" % (a, gone[0], len(rows), warn[0]))
PY
}

no_such_interface() {
	episode nosuch "[nosuch0]" true 2>/dev/null && { echo "an interface not there was taken"; return 1; }
	grep -q "interface nosuch0 is not in /proc/[0-9]*/net/dev" "$WORK/nosuch.log" ||
		{ echo "$(cat "$WORK/nosuch.log")"; return 1; }
}

"$PY" "$LIB/slowserve.py" "$WORK/raw.port" 65536 10 >"$WORK/raw.out" 2>&1 &
RAW_PID=$!
for i in $(seq 1 100); do [ -s "$WORK/raw.port" ] && break; sleep 0.05; done
check net_lo_bytes_are_ip_link_s_and_the_client_s tcp_over_lo
check net_tcp_opens_and_resets_as_nstat_counts_them closed_port
FUSE_SETUP=
fuse_setup >"$WORK/fuse.setup" 2>&1 && FUSE_SETUP=1
check net_fuse_mount_s_requests_waiting fuse_waiting
check net_follows_a_mount_the_tree_makes_and_unmounts made_mid_episode
check net_finds_a_mount_made_before_its_sampler_first_waits made_before_the_wait
check net_refuses_an_interface_not_there no_such_interface
check net_an_interface_removed_leaves_with_a_warning gone_interface
