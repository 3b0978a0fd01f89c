/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The waits source's time per class, from what each tick finds of each
 * thread. Both backends (procfs, bpf) feed it the same observations.
 *
 * A thread's time in a row is the time since the last tick, or since it
 * started when it started after it. Of that, what it ran and what it
 * waited runnable are the scheduler's own counts, exact: the change of
 * its sum_exec_runtime and of its sched_info run_delay (/proc/TID/schedstat;
 * the same fields of its task_struct). The rest it spent off the run
 * queue, and that is charged to where the tick finds it waiting: sampled.
 * A thread the tick finds running or runnable had its rest in the wait the
 * last tick found it in (a thread that computes and waits in turn, on a
 * lock, a pipe, its disk); found running at the last tick too and never
 * switched in since, its rest is running: the scheduler brings a running
 * thread's count up to date only at its next tick or switch, so a read
 * lags by up to a scheduler tick. Where the scheduler's counts are
 * not there (a kernel without CONFIG_SCHED_INFO), a running thread's time
 * is running_ns: sampled too.
 *
 * A thread that exits between two ticks takes its time since the last one
 * with it (neither backend sees it after it exits): the rows' thread time
 * is that of the threads the ticks find. */
#ifndef IOPSAMPLE_WAIT_ACCOUNT_H
#define IOPSAMPLE_WAIT_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/wait_class.h"
#include "pidmap.h"

/* One thread's lifetime, as the ticks have seen it. */
struct wait_thread {
	pid_t tid, tgid;
	uint64_t start_ns;         /* when it started, on the backend's clock */
	uint64_t run_ns, runq_ns;  /* its counts at the last tick */
	uint64_t switches;         /* times it was switched in, at the last tick */
	enum wait_class wait;      /* where a tick last found it waiting (WC_OTHER: none yet) */
	char fn[48];               /* ... in which kernel function ("" unknown) */
	int mount;                 /* ... and the mount, for fuse and remote_fs, or -1 */
	long call;                 /* ... and the system call the backend read there (WAIT_CALL_UNKNOWN) */
	char state;                /* its state at the last tick */
	bool waiting;              /* the last tick found it waiting, in wait */
	bool fresh;                /* not found by a tick yet */
	bool seen;                 /* found this tick */
	int on_cpu;                /* on a CPU as this tick found it: 1, 0, -1 not known (set
				    * by the backend before wait_account_add; procfs cannot tell
				    * a runnable thread from a running one) */
	int fd[2];                 /* the backend's, closed when it is dropped (-1: none) */
};

struct wait_account {
	struct pidmap index; /* tid -> index in t */
	struct wait_thread *t;
	size_t n, cap;
	uint64_t last_ns, now_ns; /* the last tick and this one, on the backend's clock */
	bool baseline;      /* the first tick: counts from here */
	uint64_t ns[WC_NCLASSES]; /* this tick's */
	uint64_t *mount_ns; /* this tick's per mount (the backend's index) */
	size_t nmount_ns;
	unsigned nthreads;
	/* since the baseline: other_ns by the kernel function it was found in */
	struct wait_other {
		char fn[48];
		uint64_t ns;
	} *other;
	size_t nother, other_cap;
};

void wait_account_init(struct wait_account *a);
void wait_account_free(struct wait_account *a);

/* A tick at now_ns (the backend's clock, the threads' start times' too). */
void wait_account_begin(struct wait_account *a, uint64_t now_ns);
/* Room for n threads in all: until then wait_account_thread moves no
 * thread it returned (a backend that keeps them through a tick). 0 or
 * -ENOMEM. */
int wait_account_reserve(struct wait_account *a, size_t n);
/* The thread the tick found: its lifetime (a new one when the id was
 * another thread's before), or NULL when out of memory. A thread returned
 * before may move when there was no room for a new one. */
struct wait_thread *wait_account_thread(struct wait_account *a, pid_t tid, pid_t tgid, uint64_t start_ns);
/* Whether th's wait need not be read again: it was waiting at the last
 * tick, in the same state, and has not been on a CPU since. */
bool wait_account_unchanged(const struct wait_thread *th, char state, uint64_t switches,
			    uint64_t run_ns);
/* What the tick found of th: its counts now (have_sched false: none,
 * then a running thread's whole time is running), its state, and where it
 * waits when it is not running or runnable (wait, mount, in function fn,
 * or NULL). */
int wait_account_add(struct wait_account *a, struct wait_thread *th, bool have_sched, uint64_t run_ns,
		     uint64_t runq_ns, uint64_t switches, char state, enum wait_class wait, int mount,
		     const char *fn);
/* Every thread the last tick found, found again as it was: a tick at which
 * no thread of the tree has been on a CPU since the last (the bpf
 * backend's walk skipped). One runnable then waited for a CPU throughout,
 * one waiting waits where it did. 0 or -ENOMEM. */
int wait_account_replay(struct wait_account *a);
/* Ends the tick: threads it did not find are dropped (their descriptors
 * closed). The tick's time is in a->ns, a->mount_ns and a->nthreads. */
void wait_account_end(struct wait_account *a);

#endif
