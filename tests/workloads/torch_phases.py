#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A PyTorch training loop on the CPU whose bottleneck is injected phase by
phase, for the verdict's tests (tests/e2e/verdict.sh). It prints, as
phasework does, {"t0_wall_ns": ...} and then a line per phase when it
ends, {"phase", "start_ns", "end_ns", ...what it did}, on CLOCK_MONOTONIC
since its start:

  decode     DataLoader workers (2) decoding: each sample is numpy work; a
             light model step in the main process
  throttled  the same workers reading 256 KiB samples with O_DIRECT from a
             device whose reads its cgroup limits to 16 MiB/s
  model      samples from memory, a heavy model step (matrix products) in
             the main process
  idle       between epochs: nothing

    torch_phases.py SECONDS DEVICE MAJ:MIN PHASEWORK
"""
import json
import mmap
import os
import subprocess
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

SECONDS = float(sys.argv[1])
DEVICE, MAJMIN, PHASEWORK = sys.argv[2:5]
MIB = 1 << 20
t0 = time.monotonic_ns()


def since():
    return time.monotonic_ns() - t0


def report(name, start, **more):
    print(json.dumps(dict(phase=name, start_ns=start, end_ns=since(), **more)), flush=True)


class Decoded(Dataset):
    """A sample is an image decoded on the CPU: numpy work of a few ms."""

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        a = rng.random((96, 96))
        for _ in range(6):
            a = np.fft.irfft2(np.fft.rfft2(a), s=a.shape)
        return torch.from_numpy(a.astype(np.float32))


# A throttled read's wait is charged to the worker when the read ends: a
# sample of 256 KiB at 16 MiB/s ends every 16 ms or so, several in each
# window (1 MiB samples, one each 62 ms, left a window of 100 ms now and
# then with no read ending in it, idle, under a whole make check's load).
SAMPLE = 256 << 10


class Direct(Dataset):
    """A sample is SAMPLE bytes read from the device with O_DIRECT."""

    def __init__(self):
        self.fd = None

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        if self.fd is None:  # in the worker: its own descriptor and aligned buffer
            self.fd = os.open(DEVICE, os.O_RDONLY | os.O_DIRECT)
            self.size = os.lseek(self.fd, 0, os.SEEK_END) // SAMPLE
            self.buf = mmap.mmap(-1, SAMPLE)
        os.preadv(self.fd, [self.buf], (i % self.size) * SAMPLE)
        return torch.frombuffer(self.buf, dtype=torch.uint8)[:16].float()


class InMemory(Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return torch.ones(96 * 96)


def train(name, dataset, step, workers):
    """SECONDS of steps from the first batch on (the workers' start is the
    phase's set-up, "setup_ns")."""
    setup = since()
    batches = 0
    loader = DataLoader(dataset, batch_size=4, num_workers=workers)
    for batch in loader:
        if not batches:
            start = since()
            end = time.monotonic() + SECONDS
        step(batch)
        batches += 1
        if time.monotonic() >= end:
            break
    del loader  # the workers go before the phase ends
    report(name, start, setup_ns=setup, batches=batches, workers=workers)


def light(batch):
    batch.sum().item()


weights = torch.randn(768, 768)


def heavy(batch):
    x = torch.randn(768, 768)
    for _ in range(2):
        x = torch.tanh(x @ weights)
    x.sum().item()


def main():
    print(json.dumps({"t0_wall_ns": time.time_ns() - since()}), flush=True)
    torch.set_num_threads(1)
    train("decode", Decoded(), light, 2)
    subprocess.run([PHASEWORK, "rdlimit:%s:%d" % (MAJMIN, 16 * MIB)], check=True, stdout=subprocess.DEVNULL)
    train("throttled", Direct(), light, 2)
    subprocess.run([PHASEWORK, "rdlimit:%s:0" % MAJMIN], check=True, stdout=subprocess.DEVNULL)
    train("model", InMemory(), heavy, 0)
    start = since()
    time.sleep(SECONDS)
    report("idle", start)


if __name__ == "__main__":
    main()
