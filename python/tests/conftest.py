# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Fixtures of the package's tests: the binary under test ($IOPSAMPLE, as
tests/run exports it, else the build beside this tree), the workloads that
count what they do ($WORKLOADS), and episodes recorded once per session
with the binary itself, never through the package under test."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))


def _build():
    return os.environ.get("BUILD") or os.path.join(TOP, "build")


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("IOPSAMPLE") or os.path.join(_build(), "iopsample")
    assert os.access(path, os.X_OK), "no iopsample at %s: run make first" % path
    os.environ["IOPSAMPLE"] = path  # what the package runs
    return path


@pytest.fixture(scope="session")
def workloads():
    return os.environ.get("WORKLOADS") or os.path.join(_build(), "workloads")


def record(binary, directory, name, sources, target, output=None):
    """An episode of target (argv) under sources ({name: settings}), made
    with `iopsample run`; its directory."""
    os.makedirs(directory, exist_ok=True)
    cfg = os.path.join(directory, name + ".yaml")
    config = {"episode": {"name": name, "output_dir": directory, "labels": {"case": name}},
              "target": {"command": target}, "sources": sources}
    if output:
        config["output"] = output
    with open(cfg, "w") as f:
        json.dump(config, f)
    subprocess.run([binary, "run", cfg, "--quiet"], check=True)
    return os.path.join(directory, name)


@pytest.fixture(scope="session")
def episodes(binary, workloads, tmp_path_factory):
    """Four episodes of iowork: plain (proc_io), zstd (proc_io and
    syscall_io, zstd files of several frames), several sources (proc_io, syscall_io at
    another interval, perf_event), and judged (taskstats and cgroup, what the
    verdict is made from)."""
    d = str(tmp_path_factory.mktemp("episodes"))
    iowork = [os.path.join(workloads, "iowork"), "--rounds", "12", "--pause-ms", "15", "--threads", "2",
              "--children", "1"]
    return {
        "plain": record(binary, d, "plain", {"proc_io": {"interval": "20ms"}}, iowork),
        # more than 100 rows: several zstd frames (a frame every 100 rows)
        "zstd": record(binary, d, "zstd", {"proc_io": {"interval": "10ms"}, "syscall_io": {"interval": "10ms"}},
                       iowork[:2] + ["100"] + iowork[3:], {"compression": "zstd"}),
        "several": record(binary, d, "several", {"proc_io": {"interval": "20ms"},
                                                 "syscall_io": {"interval": "10ms"},
                                                 "perf_event": {"interval": "20ms",
                                                                "events": ["cycles", "page-faults", "task-clock"]}},
                          iowork),
        "judged": record(binary, d, "judged", {"taskstats": {"interval": "20ms"}, "cgroup": {"interval": "20ms"},
                                               "proc_io": {"interval": "20ms"}}, iowork),
    }
