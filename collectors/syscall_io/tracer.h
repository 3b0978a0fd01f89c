/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ptrace side of syscall_io: a thread of the sampler process that is the
 * tracer of every thread and descendant of the target, and counts each
 * counted syscall into a struct sio_counts as it returns.
 *
 * Two ways in:
 *   launched (target.command): the target is seized while it waits at the
 *     start barrier and then installs a seccomp filter (seccomp_filter.h), so
 *     only the counted syscalls stop: one PTRACE_EVENT_SECCOMP stop, resumed
 *     with PTRACE_SYSCALL to the syscall-exit stop, where
 *     PTRACE_GET_SYSCALL_INFO gives the result. With PTRACE_O_EXITKILL the
 *     target dies with its tracer: without one, every filtered syscall would
 *     fail with ENOSYS.
 *   attached (target.pid): no filter can enter a running process, so every
 *     thread of the tree is seized and traced with PTRACE_SYSCALL; at the end
 *     each is detached, left running as it was.
 *
 * The thread blocks in waitpid() only; the sampler's grid never waits for it. */
#ifndef IOPSAMPLE_TRACER_H
#define IOPSAMPLE_TRACER_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"
#include "pidmap.h"
#include "sio_counts.h"
#include "sio_records.h"

/* SECCOMP_RET_DATA of the filter's return for counted syscall 0 (1 for the
 * next, ...): tells our stops from those of a filter the target installs. */
#define TRACER_SECCOMP_DATA 0x4900
/* Syscall numbers below this map to a counted index in attach mode. */
#define TRACER_MAX_NR 512
/* The index of a call stopped at only for the access pattern's records
 * (io_syscalls.h: sio_followed): counted nowhere. */
#define TRACER_FOLLOW_ONLY SIO_MAX_SYSCALLS

struct tracer {
	/* Set by the caller before tracer_start(). */
	pid_t target;
	bool attach;
	pid_t skip; /* attached: a process left out with its descendants (iopsample) */
	struct sio_counts *counts;
	const struct io_syscall *sys[SIO_MAX_SYSCALLS]; /* each counted index's */
	int8_t index_of_nr[TRACER_MAX_NR]; /* attach mode: counted index, TRACER_FOLLOW_ONLY or -1 */
	uint8_t follow_of_nr[TRACER_MAX_NR]; /* enum sio_track of each syscall */

	/* The thread's own. */
	pthread_t thread;
	bool running;
	sem_t ready;
	int start_err;
	bool spin; /* poll briefly for the next stop before sleeping */
	struct pidmap tracees; /* tid -> the counted call it is inside (tracer.c: INSIDE), or -1 */
	struct pidmap entered; /* tid -> CLOCK_MONOTONIC ns when it entered that call */
	/* the access pattern: Darshan's records of each process, the process
	 * of each thread, and each thread's call under way (tracer.c: struct
	 * pending, its pointer) */
	struct sio_records records;
	struct pidmap tgid_of;
	struct pidmap pending;
	_Atomic int stopping;
	_Atomic int finished;
	struct errbuf err; /* err.msg is set when finished with a failure */
	int err_no;
};

/* Starts the thread, which seizes the target (or, attached, the whole tree)
 * before this returns. 0 or -errno with why. */
int tracer_start(struct tracer *tr, struct errbuf *why);
/* Ends tracing and joins the thread: attached, every tracee is detached
 * first; launched, whatever is still traced dies with the thread. */
void tracer_stop(struct tracer *tr);
/* 0, or the negative errno the thread failed with (the reason in why). */
int tracer_failed(struct tracer *tr, struct errbuf *why);

#endif
