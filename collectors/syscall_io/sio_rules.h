/* What decides a syscall_io count, in one place for both backends: the
 * ptrace tracer (C, user space) and the eBPF program (C compiled for the
 * kernel), so the two cannot disagree on a bucket edge or a restart.
 *
 * Plain C: it must compile for -target bpf. */
#ifndef IOPSAMPLE_SIO_RULES_H
#define IOPSAMPLE_SIO_RULES_H

#include "common/log2_hist.h"

/* The size histograms' buckets (log2_hist.h). */
#define SIO_HIST_BUCKETS LOG2_HIST_BUCKETS
/* Counted syscalls at most (io_syscalls.c has 17). */
#define SIO_MAX_SYSCALLS 32

/* The kernel's internal restart codes (-ERESTARTSYS ... -ERESTART_RESTARTBLOCK,
 * include/linux/errno.h): never seen by the program, the call runs again. */
#define SIO_ERESTARTSYS 512
#define SIO_ERESTART_RESTARTBLOCK 516
/* The kernel's IS_ERR_VALUE: -4095 .. -1 are errors. */
#define SIO_MAX_ERRNO 4095

/* A restart code is no result: the call counts when the restart returns. */
static inline int sio_restarting(long long rval)
{
	return rval <= -SIO_ERESTARTSYS && rval >= -SIO_ERESTART_RESTARTBLOCK;
}

/* A result the program sees as -1 with errno. */
static inline int sio_is_error(long long rval)
{
	return (unsigned long long)rval >= (unsigned long long)-SIO_MAX_ERRNO;
}

#endif
