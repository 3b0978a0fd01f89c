// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* wait_account.h: each thread's time since the last tick, by class. */
#define _GNU_SOURCE
#include "wait_account.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void wait_account_init(struct wait_account *a)
{
	memset(a, 0, sizeof(*a));
	a->baseline = true;
}

static void close_fds(struct wait_thread *th)
{
	for (int i = 0; i < 2; i++)
		if (th->fd[i] >= 0) {
			close(th->fd[i]);
			th->fd[i] = -1;
		}
}

void wait_account_free(struct wait_account *a)
{
	for (size_t i = 0; i < a->n; i++)
		close_fds(&a->t[i]);
	free(a->t);
	free(a->mount_ns);
	free(a->other);
	pidmap_free(&a->index);
	memset(a, 0, sizeof(*a));
}

void wait_account_begin(struct wait_account *a, uint64_t now_ns)
{
	memset(a->ns, 0, sizeof(a->ns));
	if (a->mount_ns)
		memset(a->mount_ns, 0, a->nmount_ns * sizeof(*a->mount_ns));
	a->nthreads = 0;
	for (size_t i = 0; i < a->n; i++)
		a->t[i].seen = false;
	a->now_ns = now_ns;
}

int wait_account_reserve(struct wait_account *a, size_t n)
{
	if (n <= a->cap)
		return 0;
	size_t cap = a->cap ? a->cap : 64;
	while (cap < n)
		cap *= 2;
	struct wait_thread *t = reallocarray(a->t, cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	a->t = t;
	a->cap = cap;
	return 0;
}

struct wait_thread *wait_account_thread(struct wait_account *a, pid_t tid, pid_t tgid, uint64_t start_ns)
{
	int64_t *at = pidmap_get(&a->index, tid);
	if (at) {
		struct wait_thread *th = &a->t[*at];
		if (th->start_ns == start_ns && th->tgid == tgid)
			return th;
		/* the id is another thread's now: a new lifetime in its place */
		close_fds(th);
		*th = (struct wait_thread){.tid = tid, .tgid = tgid, .start_ns = start_ns, .wait = WC_OTHER,
					   .mount = -1, .call = WAIT_CALL_UNKNOWN, .fd = {-1, -1}, .on_cpu = -1};
		th->fresh = true;
		return th;
	}
	if (a->n == a->cap && wait_account_reserve(a, a->n + 1) < 0)
		return NULL;
	if (pidmap_add(&a->index, tid, (int64_t)a->n) < 0)
		return NULL;
	struct wait_thread *th = &a->t[a->n++];
	*th = (struct wait_thread){.tid = tid, .tgid = tgid, .start_ns = start_ns, .wait = WC_OTHER, .mount = -1,
				   .call = WAIT_CALL_UNKNOWN, .fd = {-1, -1}, .fresh = true, .on_cpu = -1};
	return th;
}

bool wait_account_unchanged(const struct wait_thread *th, char state, uint64_t switches, uint64_t run_ns)
{
	return !th->fresh && th->waiting && th->state == state && th->switches == switches &&
	       th->run_ns == run_ns;
}

static int grow_mounts(struct wait_account *a, int mount)
{
	if (mount < 0 || (size_t)mount < a->nmount_ns)
		return 0;
	size_t n = (size_t)mount + 1;
	uint64_t *m = reallocarray(a->mount_ns, n, sizeof(*m));
	if (!m)
		return -ENOMEM;
	memset(m + a->nmount_ns, 0, (n - a->nmount_ns) * sizeof(*m));
	a->mount_ns = m;
	a->nmount_ns = n;
	return 0;
}

static uint64_t change(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

/* other_ns's tally by function */
static int add_other(struct wait_account *a, const char *fn, uint64_t ns)
{
	for (size_t i = 0; i < a->nother; i++)
		if (!strcmp(a->other[i].fn, fn)) {
			a->other[i].ns += ns;
			return 0;
		}
	if (a->nother == a->other_cap) {
		size_t cap = a->other_cap ? 2 * a->other_cap : 16;
		struct wait_other *o = reallocarray(a->other, cap, sizeof(*o));
		if (!o)
			return -ENOMEM;
		a->other = o;
		a->other_cap = cap;
	}
	struct wait_other *o = &a->other[a->nother++];
	snprintf(o->fn, sizeof(o->fn), "%s", fn);
	o->ns = ns;
	return 0;
}

int wait_account_add(struct wait_account *a, struct wait_thread *th, bool have_sched, uint64_t run_ns,
		     uint64_t runq_ns, uint64_t switches, char state, enum wait_class wait, int mount,
		     const char *fn)
{
	bool fresh = th->fresh;
	uint64_t queued_now = 0; /* run queue wait counted ahead of run_delay */
	th->seen = true;
	th->fresh = false;
	bool runs = state == 'R';
	if (state != 'Z' && state != 'X')
		a->nthreads++;
	if (!a->baseline) {
		/* its time since the last tick, or since it started after it */
		uint64_t from = th->start_ns > a->last_ns ? th->start_ns : a->last_ns;
		uint64_t spent = change(a->now_ns, from);
		/* a thread first seen now counts from its start (one born
		 * before the last tick and missed by it, at most this tick's
		 * time: the caps below) */
		uint64_t run = change(run_ns, fresh ? 0 : th->run_ns);
		uint64_t runq = change(runq_ns, fresh ? 0 : th->runq_ns);
		if (!have_sched) {
			run = runs ? spent : 0;
			runq = 0;
		}
		/* a thread born since the last tick and found on the run queue
		 * spent its life there: what else its start's rounding (a clock
		 * tick in /proc) leaves is no wait */
		if (fresh && runs && th->start_ns > a->last_ns && run + runq < spent)
			spent = run + runq;
		if (run > spent)
			run = spent;
		if (runq > spent - run)
			runq = spent - run;
		uint64_t rest = spent - run - runq;
		/* found running: the rest is the end of the wait the last tick
		 * found it in, or of one since, after which it got a CPU again
		 * (its switches moved); found running then too and never
		 * switched in since, it ran throughout, and the rest is the
		 * scheduler's count lagging (a running thread's is brought up
		 * to date at its next tick or switch, a few ms later). Unless
		 * the tick found it off its CPU (where the backend can tell):
		 * preempted since, it waits in a run queue, a wait its run_delay
		 * holds only from its next switch in; the rest is that wait,
		 * counted now and taken off that count when it comes. */
		bool same_run = runs && !fresh && !th->waiting && th->state == 'R' && switches == th->switches;
		bool queued = same_run && th->on_cpu == 0;
		enum wait_class where = !runs ? wait : queued ? WC_RUNNABLE : same_run ? WC_RUNNING : th->wait;
		int where_mount = runs ? th->mount : mount;
		a->ns[WC_RUNNING] += run;
		a->ns[WC_RUNNABLE] += runq;
		a->ns[where] += rest;
		if (queued)
			queued_now = rest;
		if (rest && where == WC_OTHER && add_other(a, runs ? th->fn : fn ? fn : "", rest) < 0)
			return -ENOMEM;
		if (rest && where_mount >= 0 && (where == WC_FUSE || where == WC_REMOTE_FS)) {
			if (grow_mounts(a, where_mount) < 0)
				return -ENOMEM;
			a->mount_ns[where_mount] += rest;
		}
	}
	th->run_ns = run_ns;
	th->runq_ns = runq_ns + queued_now;
	th->switches = switches;
	th->state = state;
	th->waiting = !runs;
	if (!runs) {
		th->wait = wait;
		th->mount = mount;
		snprintf(th->fn, sizeof(th->fn), "%s", fn ? fn : "");
	}
	return 0;
}

int wait_account_replay(struct wait_account *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct wait_thread *th = &a->t[i];
		if (th->fresh)
			continue;
		/* runnable and never on a CPU since: its run queue time grew by
		 * the tick's */
		uint64_t spent = change(a->now_ns, th->start_ns > a->last_ns ? th->start_ns : a->last_ns);
		uint64_t runq = th->state == 'R' ? th->runq_ns + spent : th->runq_ns;
		int r = wait_account_add(a, th, true, th->run_ns, runq, th->switches, th->state, th->wait,
					 th->mount, th->fn);
		if (r < 0)
			return r;
	}
	return 0;
}

void wait_account_end(struct wait_account *a)
{
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct wait_thread *th = &a->t[i];
		if (!th->seen) {
			close_fds(th);
			pidmap_del(&a->index, th->tid);
			continue;
		}
		if (k != i) {
			a->t[k] = *th;
			*pidmap_get(&a->index, th->tid) = (int64_t)k;
		}
		k++;
	}
	a->n = k;
	a->last_ns = a->now_ns;
	a->baseline = false;
}
