#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The verdict's job on a GPU (tests/gpu/check.py): PyTorch, phase by
phase, printing as tests/workloads/phasework does {"t0_wall_ns": ...} and
then a line per phase, {"phase", "start_ns", "end_ns", ...}, on
CLOCK_MONOTONIC since its start:

  train     a training loop on synthetic data already on the GPU: the GPU
            computes, the host launches and waits (gpu)
  pageable  large host-to-device copies from pageable memory, nothing else
            (gpu_copy)
  loader    a DataLoader with one worker reading a cold dataset (its files
            dropped from the page cache) and a small step on the GPU (disk,
            or cpu where the worker decodes faster than the disk)

    verdict_job.py SECONDS DIR
"""
import json
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

SECONDS = float(sys.argv[1])
DIR = sys.argv[2]
MIB = 1 << 20
t0 = time.monotonic_ns()


def since():
    return time.monotonic_ns() - t0


def report(name, start, **more):
    print(json.dumps(dict(phase=name, start_ns=start, end_ns=since(), **more)), flush=True)


class Cold(Dataset):
    """4 MiB samples from files whose pages were dropped: read from disk."""

    def __init__(self, files):
        self.files = files

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with open(self.files[i], "rb") as f:
            data = f.read()
        return torch.frombuffer(bytearray(data[:4096]), dtype=torch.uint8).float()


def main():
    print(json.dumps({"t0_wall_ns": time.time_ns() - since()}), flush=True)
    dev = torch.device("cuda")
    # the dataset, written and synced, then dropped from the page cache
    files = []
    for i in range(512):
        path = os.path.join(DIR, "sample-%03d" % i)
        with open(path, "wb") as f:
            f.write(os.urandom(4 * MIB))
            f.flush()
            os.fsync(f.fileno())
        files.append(path)
    model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)]).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(1024, 4096, device=dev)
    torch.cuda.synchronize()

    start, steps = since(), 0
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()  # the host waits for the GPU
        steps += 1
    report("train", start, steps=steps)

    host = torch.ones(512 * MIB, dtype=torch.uint8)  # pageable
    start, copies = since(), 0
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        host.to(dev)
        torch.cuda.synchronize()
        copies += 1
    report("pageable", start, copies=copies, bytes=copies * 512 * MIB)

    for path in files:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    loader = DataLoader(Cold(files), batch_size=4, num_workers=1)
    start, batches = None, 0
    for batch in loader:
        if start is None:
            start, end = since(), time.monotonic() + SECONDS
        (batch.to(dev) * 2).sum().item()
        batches += 1
        if time.monotonic() >= end:
            break
    del loader
    report("loader", start, batches=batches)


if __name__ == "__main__":
    main()
