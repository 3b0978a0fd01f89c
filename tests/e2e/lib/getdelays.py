# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A thread's delay counts straight from the kernel, as the kernel's own
tools/accounting/getdelays -p does: one TASKSTATS_CMD_GET over generic
netlink, written here from the uapi headers without any of iopsample's code,
so that the tests compare the collector with the kernel and not with itself.

    python3 getdelays.py TID   prints {"cpu_delay_count": N, ..., "age_us": N}

Needs CAP_NET_ADMIN, like the collector. Only the fields of struct
taskstats version 1 are read; their offsets have not moved since."""
import json
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 3, 1, 2
TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID = 1, 1
TASKSTATS_TYPE_STATS, TASKSTATS_TYPE_AGGR_PID = 3, 4
NLMSG_ERROR = 2
# struct taskstats: u16 version; u32 ac_exitcode; u8 ac_flag, ac_nice; then
# u64 cpu_count (aligned to 8), cpu_delay_total, blkio_count, blkio_delay_total
# ... and at 144 ac_etime, the thread's age in microseconds
FIELDS = (("cpu_delay_count", 16), ("cpu_delay_ns", 24), ("blkio_delay_count", 32), ("blkio_delay_ns", 40),
          ("age_us", 144))


def attr(kind, payload):
    a = struct.pack("HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (-len(a) % 4)


def attrs(buf):
    while len(buf) >= 4:
        n, kind = struct.unpack_from("HH", buf)
        yield kind & 0x3FFF, buf[4:n]
        buf = buf[(n + 3) & ~3:]


def ask(sock, family, cmd, payload):
    body = struct.pack("BBH", cmd, 1, 0) + payload
    sock.send(struct.pack("IHHII", 16 + len(body), family, 1, 1, 0) + body)
    msg = sock.recv(65536)
    n, kind = struct.unpack_from("IH", msg)
    if kind == NLMSG_ERROR:
        sys.exit("netlink: %s" % os.strerror(-struct.unpack_from("i", msg, 16)[0]))
    return msg[20:n]


def getdelays(tid):
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC) as s:
        s.bind((0, 0))
        reply = ask(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b"TASKSTATS\0"))
        family = next(struct.unpack("H", v[:2])[0] for k, v in attrs(reply) if k == CTRL_ATTR_FAMILY_ID)
        reply = ask(s, family, TASKSTATS_CMD_GET, attr(TASKSTATS_CMD_ATTR_PID, struct.pack("I", tid)))
        for kind, nested in attrs(reply):
            if kind == TASKSTATS_TYPE_AGGR_PID:
                stats = next(v for k, v in attrs(nested) if k == TASKSTATS_TYPE_STATS)
                return {name: struct.unpack_from("Q", stats, off)[0] for name, off in FIELDS}
    sys.exit("no stats for %d" % tid)


if __name__ == "__main__":
    print(json.dumps(getdelays(int(sys.argv[1]))))
