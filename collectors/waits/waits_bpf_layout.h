/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One thread as waits' task iterator writes it (waits.bpf.c), then its
 * kernel stack's nframes return addresses. */
#ifndef IOPSAMPLE_WAITS_BPF_LAYOUT_H
#define IOPSAMPLE_WAITS_BPF_LAYOUT_H

#include <linux/types.h>

#include "common/ebpf/wait_layout.h"

struct waits_bpf_thread {
	__u32 tid, tgid;
	__u64 start_ns; /* CLOCK_MONOTONIC, as the walk's now_ns */
	__u64 now_ns;
	__u64 run_ns, runq_ns, switches; /* se.sum_exec_runtime, sched_info */
	__u32 state;    /* __state */
	__u32 flags;    /* PF_* */
	__u32 same;     /* waits where the last walk found it: nothing more read */
	__u32 on_cpu;   /* on a CPU as it was walked (a runnable one may wait in a run queue) */
	__u32 nframes;
	struct wait_layout_call call; /* when it waits and is not the same */
};

#endif
