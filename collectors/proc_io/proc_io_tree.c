// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Tree accounting for proc_io; the reasoning is in proc_io_tree.h. */
#define _GNU_SOURCE
#include "proc_io_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pio_tree_init(struct pio_tree *t, pid_t root, bool keeper)
{
	memset(t, 0, sizeof(*t));
	t->root = root;
	t->keeper = keeper;
}

void pio_tree_free(struct pio_tree *t)
{
	free(t->t);
	free(t->order);
	free(t->at);
	memset(t, 0, sizeof(*t));
}

static int obs_by_pid(const void *a, const void *b, void *base)
{
	const struct pio_obs *obs = base;
	const struct pio_obs *x = &obs[*(const size_t *)a], *y = &obs[*(const size_t *)b];
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->start > y->start) - (x->start < y->start);
}

static int tracked_by_pid(const void *a, const void *b)
{
	const struct pio_tracked *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->start > y->start) - (x->start < y->start);
}

/* Room for n in *a of *cap: 0 or -ENOMEM. */
static int reserve(size_t **a, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	size_t *b = reallocarray(*a, n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	*a = b;
	*cap = n;
	return 0;
}

static int index_obs(struct pio_tree *t, const struct pio_obs *obs, size_t n)
{
	if (reserve(&t->order, &t->order_cap, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t->order[i] = i;
	if (n > 1) /* qsort's array may not be NULL, even when empty */
		qsort_r(t->order, n, sizeof(*t->order), obs_by_pid, (void *)obs);
	return 0;
}

static const struct pio_obs *find_pid(const struct pio_tree *t, const struct pio_obs *obs,
				      size_t n, pid_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		pid_t p = obs[t->order[mid]].pid;
		if (p == pid)
			return &obs[t->order[mid]];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool alive(char state)
{
	return state != 'Z' && state != 'X';
}

/* The parent the latest tracked process with this pid had when last read,
 * or 0 when none is tracked. (The tracked list may be mid-update: a scan.) */
static pid_t last_parent(const struct pio_tree *t, pid_t pid)
{
	pid_t ppid = 0;
	uint64_t start = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->t[i].pid == pid && t->t[i].start >= start) {
			ppid = t->t[i].ppid;
			start = t->t[i].start;
		}
	return ppid;
}

/* Whether the process that reaps a process with this pid and last-seen parent
 * belongs to the tree, judged by what this pass saw. The parent reaped it
 * if it was there to: alive, or a zombie now (its counts, read this pass,
 * hold the child's). A parent that vanished too, or is being reaped (X),
 * passed them on to its own reaper, judged the same way up the tree: a
 * child reaped by its parent, itself reaped by the root in the same tick,
 * is inside. A parent that died first leaves its child to init instead,
 * which the pass cannot tell from that within one tick: parents that wait
 * for their children, as most do, are taken to have done so (an orphan
 * seen alive under its new parent is judged by that one). */
static bool reaped_inside(const struct pio_tree *t, const struct pio_obs *obs, size_t n,
			  pid_t pid, pid_t ppid)
{
	if (t->keeper)
		return pid != t->root; /* orphans go to the keeper, a subreaper */
	for (size_t up = 0; up <= t->n && ppid > 0; up++) {
		if (pid == t->root)
			return false; /* the target's own parent reaps the root */
		const struct pio_obs *parent = find_pid(t, obs, n, ppid);
		if (parent && parent->state != 'X')
			return true;
		pid = ppid;
		ppid = parent ? parent->ppid : last_parent(t, pid);
	}
	return false;
}

static void sort_tracked(struct pio_tree *t)
{
	if (t->n > 1)
		qsort(t->t, t->n, sizeof(*t->t), tracked_by_pid);
}

/* t->t is kept sorted by (pid, start) between passes. */
static struct pio_tracked *find_tracked(struct pio_tree *t, size_t n, pid_t pid, uint64_t start)
{
	struct pio_tracked key = {.pid = pid, .start = start};
	return n ? bsearch(&key, t->t, n, sizeof(*t->t), tracked_by_pid) : NULL;
}

static int track(struct pio_tree *t, const struct pio_obs *o, bool member)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct pio_tracked *v = reallocarray(t->t, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->t = v;
		t->cap = cap;
	}
	struct pio_tracked *e = &t->t[t->n++];
	*e = (struct pio_tracked){.pid = o->pid, .ppid = o->ppid, .start = o->start, .member = member};
	memcpy(e->v, o->v, sizeof(e->v));
	return 0;
}

/* Whether obs are the processes the last commit tracked, in the order it
 * observed them, none being reaped (X): nothing vanished, nothing new,
 * nothing to sort (the general path's result, found in one pass). */
bool pio_tick_steady(const struct pio_tree *t, const struct pio_obs *obs, size_t n)
{
	if (n == 0 || n != t->at_n || n != t->n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct pio_tracked *e = &t->t[t->at[i]];
		if (e->pid != obs[i].pid || e->start != obs[i].start || !e->member || obs[i].state == 'X')
			return false;
	}
	return true;
}

void pio_tick_begin(struct pio_tree *t)
{
	/* drop what the last tick saw but never committed */
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->t[i].member)
			continue;
		t->t[i].gone = t->t[i].departs = false;
		t->t[k++] = t->t[i];
	}
	t->n = k;
}

int pio_tick_pass(struct pio_tree *t, const struct pio_obs *obs, size_t n)
{
	if (pio_tick_steady(t, obs, n))
		return 1;
	bool settled = true;
	int r = index_obs(t, obs, n);
	if (r < 0)
		return r;

	for (size_t i = 0; i < t->n; i++) {
		struct pio_tracked *e = &t->t[i];
		const struct pio_obs *o = e->gone ? NULL : find_pid(t, obs, n, e->pid);
		if (e->gone || (o && o->start == e->start))
			continue;
		/* Vanished since it was last seen. Its counts are in its reaper's
		 * now, but maybe not in what this pass read of the reaper. */
		e->gone = true;
		e->departs = !reaped_inside(t, obs, n, e->pid, e->ppid);
		if (!e->departs)
			settled = false;
	}
	size_t sorted = t->n;
	for (size_t i = 0; i < n; i++) {
		const struct pio_obs *o = &obs[i];
		if (o->state == 'X' && reaped_inside(t, obs, n, o->pid, o->ppid))
			settled = false; /* being reaped right now */
		if (!find_tracked(t, sorted, o->pid, o->start) && (r = track(t, o, false)) < 0)
			return r;
	}
	sort_tracked(t);
	return settled;
}

int pio_tick_commit(struct pio_tree *t, const struct pio_obs *obs, size_t n,
		    uint64_t delta[IO_NFIELDS], unsigned *nprocs)
{
	uint64_t total[IO_NFIELDS];
	unsigned live = 0;
	if (pio_tick_steady(t, obs, n)) {
		memcpy(total, t->departed, sizeof(total));
		for (size_t i = 0; i < n; i++) {
			const struct pio_obs *o = &obs[i];
			for (int f = 0; f < IO_NFIELDS; f++)
				total[f] += o->v[f];
			if (alive(o->state) && !(t->keeper && o->pid == t->root))
				live++;
			struct pio_tracked *e = &t->t[t->at[i]];
			e->ppid = o->ppid;
			memcpy(e->v, o->v, sizeof(e->v));
		}
		t->was_steady = true;
		goto emit;
	}
	int r = index_obs(t, obs, n);
	if (r < 0)
		return r;

	for (size_t i = 0; i < t->n; i++) {
		struct pio_tracked *e = &t->t[i];
		if (e->member && e->gone && e->departs)
			for (int f = 0; f < IO_NFIELDS; f++)
				t->departed[f] += e->v[f];
	}
	memcpy(total, t->departed, sizeof(total));

	t->n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pio_obs *o = &obs[i];
		/* Only when passes ran out: a process being reaped inside is left
		 * to its reaper, whose counts have it now or will next time. */
		if (o->state == 'X' && reaped_inside(t, obs, n, o->pid, o->ppid))
			continue;
		for (int f = 0; f < IO_NFIELDS; f++)
			total[f] += o->v[f];
		if (alive(o->state) && !(t->keeper && o->pid == t->root))
			live++;
		if ((r = track(t, o, true)) < 0)
			return r;
	}
	sort_tracked(t);
	/* where each observation's entry is now, for a steady tick next */
	t->at_n = 0;
	t->was_steady = false;
	if (reserve(&t->at, &t->at_cap, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n && t->at_n == i; i++) {
		const struct pio_tracked *e = find_tracked(t, t->n, obs[i].pid, obs[i].start);
		if (e)
			t->at[t->at_n++] = (size_t)(e - t->t);
	}
	if (t->at_n != n || t->n != n)
		t->at_n = 0; /* one not tracked (being reaped): no steady tick next */

emit:
	for (int f = 0; f < IO_NFIELDS; f++) {
		delta[f] = total[f] > t->emitted[f] ? total[f] - t->emitted[f] : 0;
		if (total[f] > t->emitted[f])
			t->emitted[f] = total[f];
	}
	*nprocs = live;
	return 0;
}

pid_t pio_tree_ppid(const struct pio_tree *t, pid_t pid)
{
	size_t lo = 0, hi = t->n; /* t->t is sorted by pid between passes */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->t[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	pid_t ppid = 0;
	for (; lo < t->n && t->t[lo].pid == pid; lo++)
		if (!t->t[lo].gone)
			ppid = t->t[lo].ppid;
	return ppid;
}
