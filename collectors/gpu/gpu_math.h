/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The gpu source's arithmetic, apart from NVML so the unit tests reach it:
 * counters that wrap, how long an interval a wrapping PCIe counter can
 * span, and whether a process NVML lists belongs to the target's tree. */
#ifndef IOPSAMPLE_GPU_MATH_H
#define IOPSAMPLE_GPU_MATH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* now - prev of a counter `bits` wide (1..64) that wraps to 0: the change,
 * assuming at most one wrap between the two readings. */
uint64_t gpu_wrap_delta(uint64_t prev, uint64_t now, unsigned bits);

/* The most bytes a PCIe link of generation gen (1..6) and width lanes can
 * move in one direction a second: the raw signalling rate (GT/s × lanes /
 * 8), above what any payload or overhead can reach. 0 when gen or width is
 * unknown (0, or a generation not listed). */
uint64_t gpu_pcie_max_bytes_per_s(unsigned gen, unsigned width);

/* The longest interval over which a counter `bits` wide, growing at most
 * max_bytes_per_s, cannot wrap twice: the change it shows is then the change
 * it made. An interval this long or longer cannot tell one wrap from two. */
int64_t gpu_wrap_safe_ns(unsigned bits, uint64_t max_bytes_per_s);

/* Whether pid is in the target's tree: the target itself or one of its
 * descendants, found by walking parents up (ppid_of: the parent, or 0 when
 * the process is gone). Under iopsample's keeper the tree is everything
 * below the keeper (an orphan the keeper adopted stays in), the keeper
 * itself not; observer (iopsample) and what runs below it never are. */
typedef pid_t (*gpu_ppid_fn)(pid_t pid, void *arg);
bool gpu_in_tree(pid_t pid, pid_t target, pid_t keeper, pid_t observer, gpu_ppid_fn ppid_of,
		 void *arg);

#endif
