# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Darshan 3.5.0 as the judge of syscall_io's access pattern: a program run
under its LD_PRELOAD (non-MPI), its logs read back with darshan-parser.

    darshan.py PREFIX LOGDIR DIR PROGRAM ARGS...

runs PROGRAM under Darshan, writing its logs (one a process: a forked
child writes its own) to LOGDIR, and prints as JSON the POSIX module's
counters summed over the records of files under DIR."""
import json
import os
import subprocess
import sys

# syscall_io's fields and the Darshan counters they equal (docs/data-model.md)
PATTERN = {
    "consec_reads": "POSIX_CONSEC_READS",
    "seq_reads": "POSIX_SEQ_READS",
    "consec_writes": "POSIX_CONSEC_WRITES",
    "seq_writes": "POSIX_SEQ_WRITES",
    "rw_switches": "POSIX_RW_SWITCHES",
}
# unaligned_reads + unaligned_writes
NOT_ALIGNED = "POSIX_FILE_NOT_ALIGNED"


def posix_counters(prefix, logdir, under):
    """Each POSIX counter summed over every log in logdir, for the records
    of files under the folder `under`."""
    sums, logs = {}, sorted(os.listdir(logdir))
    if not logs:
        raise SystemExit("darshan wrote no log to %s" % logdir)
    for log in logs:
        out = subprocess.run([os.path.join(prefix, "bin", "darshan-parser"), os.path.join(logdir, log)],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            # module, rank, record id, counter, value, file name, mount point, fs type
            f = line.split("\t")
            if len(f) < 6 or f[0] != "POSIX" or not f[5].startswith(under.rstrip("/") + "/"):
                continue
            if f[3].startswith("POSIX_F_"):
                continue  # the float counters: times
            sums[f[3]] = sums.get(f[3], 0) + int(f[4])
    return sums


def main():
    prefix, logdir, under, argv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    env = dict(os.environ, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOG_DIR_PATH=logdir,
               LD_PRELOAD=os.path.join(prefix, "lib", "libdarshan.so"))
    os.makedirs(logdir, exist_ok=True)
    r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL)
    if r.returncode:
        raise SystemExit("%s under darshan: exit %d" % (" ".join(argv), r.returncode))
    print(json.dumps(posix_counters(prefix, logdir, under), sort_keys=True))


if __name__ == "__main__":
    main()
