// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Tree accounting for taskstats; the reasoning is in ts_tree.h. */
#define _GNU_SOURCE
#include "ts_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PENDING_TICKS 2
/* ticks a lifetime no scan sights is kept: a zombie the walk missed once is
 * still known when it is sighted again */
#define KEEP_TICKS 2
/* what the clocks of a delay (the scheduler's) and of the age may differ by */
#define AGE_SLACK_NS 10000000
/* ac_etime is in whole microseconds, rounded down */
#define AGE_UNIT_NS 1000

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = reallocarray(*v, c, size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}
#define RESERVE(a, n, cap) reserve((void **)&(a), &(cap), (n), sizeof(*(a)))

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
	free(t->sighted);
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
	t->nsighted = 0;
	memset(t->delta, 0, sizeof(t->delta));
}

int ts_tree_thread(struct ts_tree *t, pid_t tgid, const struct ts_record *r, uint64_t asked_ns,
		   uint64_t answered_ns)
{
	if (RESERVE(t->sighted, t->nsighted, t->sighted_cap) < 0)
		return -ENOMEM;
	int64_t *at = pidmap_get(&t->index, r->tid);
	if (at)
		t->t[*at].seen = true;
	t->sighted[t->nsighted++] = (struct ts_sighting){
		.r = *r,
		.tgid = tgid,
		.start_lo = sub0(asked_ns, r->age_ns + AGE_UNIT_NS),
		.start_hi = sub0(answered_ns, r->age_ns),
	};
	return 0;
}

int ts_tree_process(struct ts_tree *t, pid_t tgid, bool exiting)
{
	int r = pidmap_add(&t->procs, tgid, 0);
	if (r < 0)
		return r;
	/* its threads are the last sighted */
	for (size_t i = t->nsighted; i-- > 0 && t->sighted[i].tgid == tgid;)
		if (t->sighted[i].r.tid == tgid)
			t->sighted[i].exiting = exiting;
	return 0;
}

int ts_tree_exit(struct ts_tree *t, const struct ts_record *r, uint64_t received_ns)
{
	if (RESERVE(t->pending, t->npending, t->pending_cap) < 0)
		return -ENOMEM;
	t->pending[t->npending++] = (struct ts_pending){.r = *r, .start_hi = sub0(received_ns, r->age_ns)};
	return 0;
}

/* ---- lifetimes ---- */

static struct ts_thread *lookup(const struct ts_tree *t, pid_t tid)
{
	const int64_t *at = pidmap_get(&t->index, tid);
	return at ? &t->t[*at] : NULL;
}

bool ts_tree_exited(const struct ts_tree *t, pid_t tid)
{
	const struct ts_thread *th = lookup(t, tid);
	return th && th->exited;
}

static struct ts_thread *add_thread(struct ts_tree *t, pid_t tid)
{
	if (RESERVE(t->t, t->n, t->cap) < 0 || pidmap_add(&t->index, tid, (int)t->n) < 0)
		return NULL;
	struct ts_thread *th = &t->t[t->n++];
	*th = (struct ts_thread){.tid = tid};
	return th;
}

/* th's id now holds a new lifetime: from zero, or from what base (the id it
 * had before an exec) counted. */
static void begin_lifetime(struct ts_tree *t, struct ts_thread *th, pid_t tgid, uint64_t lo,
			   uint64_t hi, struct ts_thread *base)
{
	*th = (struct ts_thread){.tid = th->tid, .tgid = tgid, .start_lo = lo, .start_hi = hi,
				 .since = t->tick, .seen = th->seen};
	if (base) {
		memcpy(th->v, base->v, sizeof(th->v));
		memcpy(th->faulted, base->faulted, sizeof(th->faulted));
		base->gone = true;
		t->successions++;
	}
}

/* Whether an observation of process tgid that started within [lo, hi] may
 * be of th's lifetime. */
static bool may_be(const struct ts_thread *th, pid_t tgid, uint64_t lo, uint64_t hi)
{
	return (!th->tgid || !tgid || th->tgid == tgid) && lo <= th->start_hi && th->start_lo <= hi;
}

static void narrow(struct ts_thread *th, uint64_t lo, uint64_t hi)
{
	if (lo > th->start_lo)
		th->start_lo = lo;
	if (hi < th->start_hi)
		th->start_hi = hi;
}

/* The thread of process tgid that left without an exit record: the one
 * that exec'd and took over the leader's id, known before this tick and
 * perhaps sighted in it, before the exec (ts_tree.h). */
static struct ts_thread *exec_predecessor(struct ts_tree *t, pid_t tgid, bool lost)
{
	if (lost)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		struct ts_thread *th = &t->t[i];
		if (th->tgid == tgid && th->tid != tgid && th->since < t->tick && !th->exited && !th->gone)
			return th;
	}
	return NULL;
}

/* The most time field f of a thread can have reached in all, given the
 * record's age: its age, and for a wait off the CPU its age less the CPU
 * time it ran (counted so far). */
static uint64_t possible(const struct ts_thread *th, const struct ts_record *r, int f)
{
	uint64_t most = r->age_ns + AGE_SLACK_NS;
	if (TS_OFF_CPU & TS_BIT(f))
		most = sub0(most, sub0(r->v[TS_CPU_RUN_REAL], th->faulted[TS_CPU_RUN_REAL]));
	return most;
}

/* Field f's change since th's last observation, into the tick's. */
static void count_field(struct ts_tree *t, struct ts_thread *th, const struct ts_record *r, int f)
{
	if (!(r->present & TS_BIT(f)) || r->v[f] <= th->v[f])
		return;
	uint64_t inc = r->v[f] - th->v[f];
	uint64_t counted = th->v[f] - th->faulted[f], most = possible(th, r, f);
	if ((TS_TIMES & TS_BIT(f)) && r->age_ns && counted + inc > most) {
		/* past what the thread could have spent: only that excess is the
		 * fault, dropped; the rest of the change counts */
		uint64_t excess = counted + inc - most;
		if (excess > inc)
			excess = inc;
		if (!t->nfaults++)
			t->fault = (struct ts_fault){r->tid, f, r->v[f], r->age_ns};
		th->faulted[f] += excess;
		t->faulted_ns[f] += excess;
		inc -= excess;
	}
	t->delta[f] += inc;
	th->v[f] = r->v[f];
}

static void count(struct ts_tree *t, struct ts_thread *th, const struct ts_record *r)
{
	if (!memcmp(r->v, th->v, sizeof(r->v)))
		return; /* idle since: most threads of a big tree at most ticks */
	/* its CPU time first: what a wait off the CPU may have been depends on it */
	count_field(t, th, r, TS_CPU_RUN_REAL);
	for (int f = 0; f < TS_NFIELDS; f++)
		if (f != TS_CPU_RUN_REAL)
			count_field(t, th, r, f);
}

/* ---- the tick's observations ---- */

static bool tree_process(const struct ts_tree *t, pid_t pid)
{
	return pid > 0 && (pidmap_get(&t->procs, pid) || pidmap_get(&t->last_procs, pid));
}

static bool belongs(const struct ts_tree *t, const struct ts_record *r)
{
	const struct ts_thread *th = lookup(t, r->tid);
	bool tracked = th && (!r->tgid || !th->tgid || r->tgid == th->tgid);
	return tracked || tree_process(t, r->tgid) || tree_process(t, r->ppid);
}

static int apply_record(struct ts_tree *t, const struct ts_pending *p, bool lost)
{
	const struct ts_record *r = &p->r;
	struct ts_thread *th = lookup(t, r->tid);
	pid_t tgid = r->tgid ? r->tgid : th ? th->tgid : 0;
	if (tgid && pidmap_add(&t->procs, tgid, 0) < 0)
		return -ENOMEM;
	if (!th) {
		if (!(th = add_thread(t, r->tid)))
			return -ENOMEM;
		begin_lifetime(t, th, tgid, 0, p->start_hi, NULL);
	} else if (th->tgid && tgid && th->tgid != tgid) {
		begin_lifetime(t, th, tgid, 0, p->start_hi, NULL);
	} else if (th->start_lo > p->start_hi) {
		/* it started before the lifetime its id holds: an earlier one,
		 * replaced when the id's reuse was sighted first; what it did
		 * since its last sighting is lost */
		return 0;
	} else if (th->exited) {
		/* a lifetime has one record: this is the next's, which for a
		 * leader's id may be an exec's successor's */
		begin_lifetime(t, th, tgid, 0, p->start_hi,
			       r->tid == tgid ? exec_predecessor(t, tgid, lost) : NULL);
	}
	narrow(th, 0, p->start_hi);
	th->exited = true;
	th->exit_age_ns = r->age_ns;
	count(t, th, r);
	return 0;
}

/* In the order they came, each once it belongs, until none more does. */
static int apply_records(struct ts_tree *t, bool lost)
{
	for (bool more = true; more;) {
		more = false;
		size_t kept = 0;
		for (size_t i = 0; i < t->npending; i++) {
			struct ts_pending p = t->pending[i];
			if (!belongs(t, &p.r)) {
				t->pending[kept++] = p;
				continue;
			}
			int r = apply_record(t, &p, lost);
			if (r < 0)
				return r;
			more = true;
		}
		t->npending = kept;
	}
	return 0;
}

static int apply_sighting(struct ts_tree *t, const struct ts_sighting *s, bool lost)
{
	const struct ts_record *r = &s->r;
	struct ts_thread *th = lookup(t, r->tid);
	if (th && th->gone)
		return 0; /* answered before its exec: the successor counts on from it */
	if (!th) {
		if (!(th = add_thread(t, r->tid)))
			return -ENOMEM;
		begin_lifetime(t, th, s->tgid, s->start_lo, s->start_hi, NULL);
	} else if (!may_be(th, s->tgid, s->start_lo, s->start_hi)) {
		begin_lifetime(t, th, s->tgid, s->start_lo, s->start_hi, NULL); /* the id reused */
	} else if (th->exited && r->tid == s->tgid && r->age_ns >= th->exit_age_ns && !s->exiting) {
		/* the leader's id after its record, alive: an exec's successor */
		begin_lifetime(t, th, s->tgid, s->start_lo, s->start_hi, exec_predecessor(t, s->tgid, lost));
	}
	narrow(th, s->start_lo, s->start_hi);
	th->seen = true;
	count(t, th, r);
	return 0;
}

int ts_tree_end(struct ts_tree *t, bool lost)
{
	int r = apply_records(t, lost);
	for (size_t i = 0; r == 0 && i < t->nsighted; i++)
		r = apply_sighting(t, &t->sighted[i], lost);
	if (r < 0)
		return r;

	size_t kept = 0;
	for (size_t i = 0; i < t->npending; i++)
		if (++t->pending[i].age < PENDING_TICKS)
			t->pending[kept++] = t->pending[i];
	t->npending = kept;

	/* lifetimes long unsighted: compact the array, rebuild the index */
	kept = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct ts_thread *th = &t->t[i];
		th->unseen = th->seen ? 0 : th->unseen + 1;
		if (!th->gone && th->unseen <= KEEP_TICKS)
			t->t[kept++] = *th;
	}
	if (kept != t->n) {
		t->n = kept;
		pidmap_clear(&t->index);
		for (size_t i = 0; i < t->n; i++)
			if (pidmap_add(&t->index, t->t[i].tid, (int)i) < 0)
				return -ENOMEM;
	}
	return 0;
}
