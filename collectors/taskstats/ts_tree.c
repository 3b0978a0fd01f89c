/* Tree accounting for taskstats; the reasoning is in ts_tree.h. */
#define _GNU_SOURCE
#include "ts_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PENDING_TICKS 2
/* what the clocks of a delay (the scheduler's) and of the age may differ by */
#define AGE_SLACK_NS 10000000

void ts_tree_init(struct ts_tree *t)
{
	memset(t, 0, sizeof(*t));
}

void ts_tree_free(struct ts_tree *t)
{
	pidmap_free(&t->index);
	pidmap_free(&t->procs);
	pidmap_free(&t->last_procs);
	free(t->t);
	free(t->pending);
	memset(t, 0, sizeof(*t));
}

void ts_tree_begin(struct ts_tree *t)
{
	t->tick++;
	struct pidmap last = t->last_procs;
	t->last_procs = t->procs;
	t->procs = last;
	pidmap_clear(&t->procs);
	for (size_t i = 0; i < t->n; i++)
		t->t[i].seen = false;
	memset(t->delta, 0, sizeof(t->delta));
	t->untrusted = 0;
}

int ts_tree_process(struct ts_tree *t, pid_t tgid)
{
	int r = pidmap_add(&t->procs, tgid, 0);
	return r < 0 ? r : 0;
}

static struct ts_thread *thread(struct ts_tree *t, pid_t tid, pid_t tgid)
{
	int *at = pidmap_get(&t->index, tid);
	if (at)
		return &t->t[*at];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct ts_thread *v = reallocarray(t->t, cap, sizeof(*v));
		if (!v)
			return NULL;
		t->t = v;
		t->cap = cap;
	}
	if (pidmap_add(&t->index, tid, (int)t->n) < 0)
		return NULL;
	struct ts_thread *th = &t->t[t->n++];
	*th = (struct ts_thread){.tid = tid, .tgid = tgid};
	return th;
}

/* A thread id taken by another thread since (pid_max wrapped: the entry of
 * a thread just gone is kept one scan more): another process's, or CPU time
 * lower than counted, which a thread's never is. It starts from zero. */
static void same_thread(struct ts_thread *th, pid_t tgid, const struct ts_record *r)
{
	if ((th->tgid && tgid && th->tgid != tgid) ||
	    ((r->present & TS_BIT(TS_CPU_RUN_REAL)) && r->v[TS_CPU_RUN_REAL] < th->v[TS_CPU_RUN_REAL])) {
		memset(th->v, 0, sizeof(th->v));
		th->faulty = 0;
	}
	if (tgid)
		th->tgid = tgid;
}

/* The times in r longer than the thread's life, not known to be wrong yet. */
static uint32_t new_faults(const struct ts_thread *th, const struct ts_record *r)
{
	uint32_t m = 0;
	for (int f = 0; f < TS_NFIELDS; f++)
		if ((TS_TIMES & r->present & ~th->faulty & TS_BIT(f)) && r->age_ns &&
		    r->v[f] > r->age_ns + AGE_SLACK_NS)
			m |= TS_BIT(f);
	return m;
}

static void count(struct ts_tree *t, struct ts_thread *th, const struct ts_record *r)
{
	uint32_t faults = new_faults(th, r);
	for (int f = 0; faults && f < TS_NFIELDS; f++) {
		if (!(faults & TS_BIT(f)))
			continue;
		if (!t->nfaults++)
			t->fault = (struct ts_fault){r->tid, f, r->v[f], r->age_ns};
		th->faulty |= TS_BIT(f);
		t->untrusted |= TS_BIT(f);
	}
	for (int f = 0; f < TS_NFIELDS; f++) {
		if (!(r->present & TS_BIT(f)) || r->v[f] <= th->v[f])
			continue;
		t->delta[f] += r->v[f] - th->v[f];
		th->v[f] = r->v[f];
	}
}

int ts_tree_thread(struct ts_tree *t, pid_t tgid, const struct ts_record *r)
{
	struct ts_thread *th = thread(t, r->tid, tgid);
	if (!th)
		return -ENOMEM;
	th->seen = true;
	same_thread(th, tgid, r);
	count(t, th, r);
	return 0;
}

int ts_tree_exit(struct ts_tree *t, const struct ts_record *r)
{
	if (t->npending == t->pending_cap) {
		size_t cap = t->pending_cap ? t->pending_cap * 2 : 64;
		struct ts_pending *v = reallocarray(t->pending, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->pending = v;
		t->pending_cap = cap;
	}
	t->pending[t->npending++] = (struct ts_pending){.r = *r};
	return 0;
}

static bool tree_process(const struct ts_tree *t, pid_t pid)
{
	return pid > 0 && (pidmap_get(&t->procs, pid) || pidmap_get(&t->last_procs, pid));
}

static bool belongs(const struct ts_tree *t, const struct ts_record *r)
{
	const int *at = pidmap_get(&t->index, r->tid);
	bool tracked = at && (!r->tgid || !t->t[*at].tgid || r->tgid == t->t[*at].tgid);
	return tracked || tree_process(t, r->tgid) || tree_process(t, r->ppid);
}

/* Counts the records that belong, until none more does. */
static int resolve(struct ts_tree *t)
{
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < t->npending;) {
			const struct ts_record *r = &t->pending[i].r;
			if (!belongs(t, r)) {
				i++;
				continue;
			}
			int *at = pidmap_get(&t->index, r->tid);
			bool known = at != NULL;
			pid_t tgid = r->tgid ? r->tgid : known ? t->t[*at].tgid : 0;
			struct ts_thread *th = thread(t, r->tid, tgid);
			if (!th || (tgid && ts_tree_process(t, tgid) < 0))
				return -ENOMEM;
			if (!known)
				th->made = t->tick;
			same_thread(th, tgid, r);
			count(t, th, r);
			t->pending[i] = t->pending[--t->npending];
			more = true;
		}
	}
	return 0;
}

int ts_tree_end(struct ts_tree *t)
{
	int r = resolve(t);
	if (r < 0)
		return r;
	size_t kept = 0;
	for (size_t i = 0; i < t->npending; i++)
		if (++t->pending[i].age < PENDING_TICKS)
			t->pending[kept++] = t->pending[i];
	t->npending = kept;

	/* threads gone: compact the array and rebuild the index */
	kept = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->t[i].seen || t->t[i].made == t->tick)
			t->t[kept++] = t->t[i];
	if (kept != t->n) {
		t->n = kept;
		pidmap_clear(&t->index);
		for (size_t i = 0; i < t->n; i++)
			if (pidmap_add(&t->index, t->t[i].tid, (int)i) < 0)
				return -ENOMEM;
	}
	return 0;
}
