/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What taskstats.bpf.c writes for each thread of the tree it walks: the
 * fields of a TASKSTATS_CMD_GET answer that ts_record.h keeps, computed as
 * the kernel's fill_stats() computes them, in ts_record.h's order. */
#ifndef IOPSAMPLE_TS_BPF_LAYOUT_H
#define IOPSAMPLE_TS_BPF_LAYOUT_H

#define TS_BPF_FIELDS 26

struct ts_bpf_thread {
	__u32 tid, tgid;
	__u32 ppid;      /* the tgid of its process's parent (ac_ppid) */
	__u32 live;      /* not exited (exit_state 0) */
	__u64 age_ns;    /* since it started, at the visit */
	__u64 now_ns;    /* CLOCK_MONOTONIC at the visit */
	__u64 v[TS_BPF_FIELDS];
};

#endif
