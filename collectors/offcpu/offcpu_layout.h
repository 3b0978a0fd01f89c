/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What offcpu's programs (offcpu.bpf.c) and its sampler (offcpu.c) share:
 * a wait's key, the time charged to each, and a thread's wait in
 * progress as the iterator writes it. */
#ifndef IOPSAMPLE_OFFCPU_LAYOUT_H
#define IOPSAMPLE_OFFCPU_LAYOUT_H

#include <linux/types.h>

/* Frames kept of a wait's kernel stack (its stack map's values). */
#define OFFCPU_FRAMES 16

/* What a thread is doing since `since` */
enum offcpu_what { OFFCPU_NONE, OFFCPU_RUNNING, OFFCPU_RUNNABLE, OFFCPU_WAITING };

/* Where a thread waits: what the rules (wait_class.h) classify. */
struct offcpu_key {
	__s32 stack;  /* its kernel stack in the map stacks, or < 0: not kept */
	__s32 call;   /* wait_layout.h's call */
	__u32 kinds;  /* the descriptors the call waits on: 1 << (wait_fd_kind) each */
	__u32 dev;    /* the first FUSE or network file's s_dev among them */
	__u16 nfds;   /* how many descriptors the call waits on */
	__u8 state;   /* /proc's letter */
	__u8 memalloc; /* PF_MEMALLOC: reclaiming or compacting */
	__u8 fds_known; /* kinds and nfds are what they are */
	__u8 parity;  /* in `done`: the tick it was charged in, its parity (0 elsewhere) */
	__u8 pad[2];
};

/* What a thread was charged since the sampler's tick `epoch` began, read
 * by the walk: its time on a CPU and on the run queue, and its first wait
 * that ended (the rest are read at the next tick, from `done`). */
struct offcpu_late {
	__u64 epoch;
	__u64 run_ns, runq_ns, wait_ns;
	struct offcpu_key key;
};

/* A thread of the tree at the sampler's walk: what it does since when. */
struct offcpu_now {
	__u32 tid, tgid;
	__u64 now_ns, since_ns;
	__u32 what;
	__u32 pad;
	struct offcpu_key key;
	struct offcpu_late late;
};

#endif
