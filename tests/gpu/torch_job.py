#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The GPU check's workload (tests/gpu/check.sh): a PyTorch job that
counts what it does. It makes its CUDA context, then, each step between
quiet spells, allocates 1 GiB on the GPU, copies 1 GiB host->device and
1 GiB device->host, and exits. It writes each step's start and end
(CLOCK_REALTIME ns, as the rows' t_wall_ns) to the file named by its
argument as JSON: {"alloc": [t0, t1], "h2d": [...], "d2h": [...],
"bytes": 1073741824, "pid": ...}; and once its context is made, a file of
that name with .ready added, which tests/gpu/check.py waits for."""
import json
import os
import sys
import time

import torch

GIB = 1 << 30
QUIET = 0.25  # s between steps: rows of nothing but the step around them


def main():
    out = sys.argv[1]
    marks = {"bytes": GIB, "pid": os.getpid()}
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context
    host = torch.ones(GIB, dtype=torch.uint8).pin_memory()
    torch.cuda.synchronize()
    with open(out + ".ready", "w") as f:  # the context made: the pipeline's own work from here
        f.write(str(time.time_ns()))
    time.sleep(2 * QUIET)

    def step(name, fn):
        t0 = time.time_ns()
        r = fn()
        torch.cuda.synchronize()
        marks[name] = [t0, time.time_ns()]
        time.sleep(QUIET)
        return r

    dev = step("alloc", lambda: torch.empty(GIB, dtype=torch.uint8, device="cuda"))
    step("h2d", lambda: dev.copy_(host, non_blocking=False))
    step("d2h", lambda: host.copy_(dev, non_blocking=False))
    with open(out, "w") as f:
        json.dump(marks, f)


if __name__ == "__main__":
    main()
