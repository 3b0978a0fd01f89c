#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A FUSE file system whose daemon answers slowly (Debian's python3-fusepy):
one file, /data, of SIZE MiB of zeros, each read answered after DELAY_MS.

    slowfuse.py MOUNTPOINT SIZE_MIB DELAY_MS

Runs in the foreground until unmounted (fusermount -u, umount) or killed;
prints "ready" on stdout once the mount answers. The tests' stand-in for
an object store's FUSE mount (s3fs, gcsfuse) or any daemon that answers
from the network: a reader of /data waits on the daemon, not on a disk."""
import errno
import os
import stat
import sys
import threading
import time

import fusepy


class Slow(fusepy.Operations):
    def __init__(self, size, delay):
        self.size, self.delay = size, delay
        self.reads = 0

    def getattr(self, path, fh=None):
        now = time.time()
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2, "st_atime": now, "st_mtime": now, "st_ctime": now}
        if path == "/data":
            return {"st_mode": stat.S_IFREG | 0o444, "st_nlink": 1, "st_size": self.size,
                    "st_atime": now, "st_mtime": now, "st_ctime": now}
        raise fusepy.FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "data"]

    def read(self, path, size, offset, fh):
        time.sleep(self.delay)
        self.reads += 1
        if offset >= self.size:
            return b""
        return bytes(min(size, self.size - offset))


def main():
    point, mib, delay_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])

    def ready():
        while not os.path.ismount(point):
            time.sleep(0.01)
        print("ready", flush=True)

    threading.Thread(target=ready, daemon=True).start()
    fusepy.FUSE(Slow(mib << 20, delay_ms / 1000), point, foreground=True, nothreads=False, ro=True,
                fsname="slowfuse")


if __name__ == "__main__":
    main()
