#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""What each NVML call the gpu source makes costs on this host's GPU 0:
the calling thread's CPU (time.thread_time_ns) and the wall time of each,
median and max over N calls (default 300) at 10 ms apart, as the source
makes them at a 10 ms interval. Needs an NVIDIA driver; prints a markdown
table (docs/benchmarks.md, "gpu").

    python3 bench/nvml_calls.py [N]
"""
import ctypes
import statistics
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300
nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0, "nvmlInit failed"
dev = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0


class FieldValue(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]


class ProcessInfo(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong), ("gpuInstanceId", ctypes.c_uint),
                ("computeInstanceId", ctypes.c_uint)]


u = ctypes.c_uint()
ull = ctypes.c_ulonglong()
buf = (ctypes.c_uint * 8)()
fields = (FieldValue * 2)()
procs = (ProcessInfo * 64)()


def field_values():
    fields[0].fieldId, fields[1].fieldId = 197, 198
    return nv.nvmlDeviceGetFieldValues(dev, 2, fields)


def processes(fn):
    def call():
        n = ctypes.c_uint(64)
        return fn(dev, ctypes.byref(n), procs)
    return call


CALLS = [
    ("nvmlDeviceGetFieldValues(197, 198)", field_values),
    ("nvmlDeviceGetTotalEnergyConsumption", lambda: nv.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(ull))),
    ("nvmlDeviceGetUtilizationRates", lambda: nv.nvmlDeviceGetUtilizationRates(dev, buf)),
    ("nvmlDeviceGetMemoryInfo", lambda: nv.nvmlDeviceGetMemoryInfo(dev, buf)),
    ("nvmlDeviceGetComputeRunningProcesses_v3", processes(nv.nvmlDeviceGetComputeRunningProcesses_v3)),
    ("nvmlDeviceGetGraphicsRunningProcesses_v3", processes(nv.nvmlDeviceGetGraphicsRunningProcesses_v3)),
    ("nvmlDeviceGetPowerUsage", lambda: nv.nvmlDeviceGetPowerUsage(dev, ctypes.byref(u))),
    ("nvmlDeviceGetClockInfo(SM)", lambda: nv.nvmlDeviceGetClockInfo(dev, 1, ctypes.byref(u))),
    ("nvmlDeviceGetTemperature(GPU)", lambda: nv.nvmlDeviceGetTemperature(dev, 0, ctypes.byref(u))),
    ("nvmlDeviceGetCurrentClocksEventReasons", lambda: nv.nvmlDeviceGetCurrentClocksEventReasons(dev, ctypes.byref(ull))),
]

print("| call | answer | CPU median µs | CPU max µs | wall median µs | wall max µs |")
print("|---|---|---:|---:|---:|---:|")
for name, fn in CALLS:
    cpu, wall, ret = [], [], None
    for _ in range(N):
        c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
        ret = fn()
        cpu.append(time.thread_time_ns() - c0)
        wall.append(time.perf_counter_ns() - w0)
        time.sleep(0.01)
    print("| %s | %d | %.1f | %.1f | %.1f | %.1f |" % (name, ret, statistics.median(cpu) / 1e3, max(cpu) / 1e3,
                                                   statistics.median(wall) / 1e3, max(wall) / 1e3))
nv.nvmlShutdown()
