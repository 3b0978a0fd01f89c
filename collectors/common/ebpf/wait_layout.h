/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the waits and offcpu programs read of a waiting task (wait.bpf.h),
 * shared with their user sides, which classify it (wait_class.h). */
#ifndef IOPSAMPLE_WAIT_LAYOUT_H
#define IOPSAMPLE_WAIT_LAYOUT_H

#include <linux/types.h>

/* Frames of a kernel stack read, the scheduler's included: enough to reach
 * below a page wait to the fault or the call that took it. */
#define WAIT_FRAMES 16

/* The task's call: a number, or none */
#define WAIT_LAYOUT_NO_CALL (-1)      /* in the kernel in no call: a fault */
#define WAIT_LAYOUT_CALL_UNKNOWN (-2) /* a kernel thread, or not read */

/* A descriptor's kind: wait_class.h's enum wait_fd_kind + 1, 0 for none */
#define WAIT_LAYOUT_FD_NONE 0

struct wait_layout_call {
	__s64 call;
	__u64 args[6];
	__u32 fd_kind; /* of the descriptor args[0] names, when it names one */
	__u32 fd_dev;  /* ... its file system's s_dev (the kernel's encoding) */
};

#endif
