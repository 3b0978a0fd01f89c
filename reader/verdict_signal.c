// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The signals the rules read, conditioned: see verdict_signal.h.
 *
 * A window goes through four stages, each needing the windows around it
 * that the stage before has finished:
 *
 *   estimated  its nulled delays estimated (windows within the reach,
 *              both ways, as the rows gave them)
 *   room       the time its threads at work had (the estimated windows
 *              within a second, both ways)
 *   cpu        its CPU delay put back over the windows before it (their
 *              room, at most the spread-back limit before it)
 *   blkio      its block I/O delay, the same, once no CPU delay still to
 *              be put back can reach the windows it fills (the CPU's
 *              delays take the room first, as if put back in a pass of
 *              their own over the whole episode)
 *
 * and is given out once no block I/O delay still to be put back can reach
 * it. Every window older than the reach behind the oldest unfinished one
 * is forgotten: the ring holds a few seconds of them. */
#include "verdict_signal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the delays put back over the time they were waited, in this order */
enum { P_CPU, P_BLKIO, P_COUNT };

/* ---- putting a delay back ---------------------------------------------------- */

/* The windows a delay may be put back in, as a ring of cap windows of
 * which those from lo on are held (absolute indexes). */
struct spread_ring {
	double *room, *end;
	long long *left; /* the nearest window before with room, perhaps */
	size_t cap;
	long long lo;
};

#define RING(r, a, k) ((r)->a[(size_t)(k) % (r)->cap])

/* The nearest window at or before j with room left, or -1; left[] skips
 * the full ones (with path halving), so a long run of them is walked once. */
static long long with_room(struct spread_ring *r, long long j)
{
	while (j >= r->lo && RING(r, room, j) <= 0) {
		long long next = RING(r, left, j);
		if (next >= r->lo)
			RING(r, left, j) = RING(r, left, next);
		j = next;
	}
	return j >= r->lo ? j : -1;
}

/* Window k's delay d put back into out (a ring like r's). */
static void spread_one(struct spread_ring *r, double *out, long long k, double d)
{
	if (isnan(d) || d <= 0)
		return;
	/* no wait charged here began before its end less all it was charged */
	double end = RING(r, end, k), earliest = end - d;
	if (earliest < end - (double)verdict_spread_back_ns)
		earliest = end - (double)verdict_spread_back_ns;
	for (long long j = with_room(r, k); d > 0 && j >= 0 && RING(r, end, j) > earliest;
	     j = with_room(r, j - 1)) {
		double *room = &RING(r, room, j), take = d < *room ? d : *room;
		out[(size_t)j % r->cap] += take;
		*room -= take;
		d -= take;
	}
	if (d > 0) /* more than there was room for: where it was charged */
		out[(size_t)k % r->cap] += d;
}

/* Window k enters a pass of delay: out[k] starts at 0 (NAN for a delay not
 * known, whose window then gives no room either). */
static void spread_enter(struct spread_ring *r, double *out, long long k, double delay)
{
	double *room = &RING(r, room, k);
	out[(size_t)k % r->cap] = isnan(delay) ? NAN : 0;
	if (isnan(*room) || isnan(delay) || *room < 0)
		*room = 0;
}

int verdict_spread(const double *delay, double *room, const double *end, size_t n, double *out)
{
	long long *left = malloc((n + 1) * sizeof(*left));
	if (!left)
		return -ENOMEM;
	struct spread_ring r = {.room = room, .end = (double *)end, .left = left, .cap = n ? n : 1};
	for (size_t k = 0; k < n; k++) {
		left[k] = (long long)k - 1;
		spread_enter(&r, out, (long long)k, delay[k]);
	}
	for (size_t k = 0; k < n; k++)
		spread_one(&r, out, (long long)k, delay[k]);
	free(left);
	return 0;
}

/* ---- the ring of windows ----------------------------------------------------- */

struct swindow {
	struct verdict_grid_window g;
	double delay[VD_COUNT]; /* as charged, nulled ones estimated */
	unsigned estimated;
	double busy; /* run + delays */
};

struct verdict_signal {
	struct verdict_grid *grid;
	int64_t window;
	long long around, reach, back, high; /* the thresholds, in windows */
	size_t cap;
	struct swindow *w;
	struct spread_ring r;
	double *put[P_COUNT]; /* the CPU's and block I/O's delays put back */
	/* windows [0, read) taken from the grid; [0, X_done) through stage X */
	long long read, estimated, roomed, put_done[P_COUNT], out;
	bool ended;
	int code;
};

#define WIN(s, k) (&(s)->w[(size_t)(k) % (s)->cap])

/* Windows enough to cover ns, and the nearest whole count of them (at
 * least one). */
static long long windows_in(long long ns, int64_t window)
{
	return (ns + window - 1) / window;
}

static long long nearest_count(long long ns, int64_t window)
{
	long long n = (ns + window / 2) / window;
	return n < 1 ? 1 : n;
}

struct verdict_signal *verdict_signal_open(struct verdict_grid *g, int64_t window_ns)
{
	struct verdict_signal *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->grid = g;
	s->window = window_ns > 0 ? window_ns : 1;
	s->around = nearest_count(verdict_around_ns, s->window);
	s->reach = nearest_count(verdict_estimate_reach_ns, s->window);
	s->back = windows_in(verdict_spread_back_ns, s->window) + 1;
	s->high = windows_in(verdict_high_reach_ns, s->window);
	/* behind the oldest window not given out, and ahead of it until it can be */
	long long behind = s->reach > s->back ? s->reach : s->back;
	if (s->high > behind)
		behind = s->high;
	long long ahead = s->reach + 2 * s->around + 2 * s->back + 4;
	s->cap = (size_t)(behind + ahead + 4);
	s->w = calloc(s->cap, sizeof(*s->w));
	s->r = (struct spread_ring){.room = calloc(s->cap, sizeof(double)),
				    .end = calloc(s->cap, sizeof(double)),
				    .left = calloc(s->cap, sizeof(long long)), .cap = s->cap};
	for (int p = 0; p < P_COUNT; p++)
		s->put[p] = calloc(s->cap, sizeof(double));
	if (!s->w || !s->r.room || !s->r.end || !s->r.left || !s->put[P_CPU] || !s->put[P_BLKIO]) {
		verdict_signal_close(s);
		return NULL;
	}
	return s;
}

void verdict_signal_close(struct verdict_signal *s)
{
	if (!s)
		return;
	free(s->w);
	free(s->r.room);
	free(s->r.end);
	free(s->r.left);
	for (int p = 0; p < P_COUNT; p++)
		free(s->put[p]);
	free(s);
}

/* The oldest window still held. */
static long long oldest(const struct verdict_signal *s)
{
	return s->read > (long long)s->cap ? s->read - (long long)s->cap : 0;
}

/* ---- the stages --------------------------------------------------------------- */

static bool known(const struct swindow *w, int d)
{
	return !isnan(w->g.delay_ns[d]) && !isnan(w->g.delay_count[d]) && w->g.delay_count[d] >= 1;
}

/* A delay the taskstats source nulled (a fault of the kernel's accounting,
 * its kernel_faults) where the window's waits were still counted: the
 * count times the mean wait of the same kind of waiting, known: the
 * nearest window within the reach whose count is within
 * verdict_matching_counts of its own (the closer of two as near), else,
 * within a second, the one whose count is nearest. */
static void estimate(struct verdict_signal *s, long long k)
{
	struct swindow *w = WIN(s, k);
	double log_match = log(verdict_matching_counts);
	for (int d = 0; d < VD_COUNT; d++) {
		w->delay[d] = w->g.delay_ns[d];
		double count = w->g.delay_count[d];
		if (!isnan(w->delay[d]) || isnan(count) || count < 1)
			continue;
		double mean = NAN, nearest = NAN, best = INFINITY;
		for (long long dist = 1; dist <= s->reach && isnan(mean); dist++) {
			double match = INFINITY;
			for (int side = 0; side < 2; side++) {
				long long j = side ? k + dist : k - dist;
				if (j < oldest(s) || j >= s->read)
					continue;
				const struct swindow *o = WIN(s, j);
				if (!known(o, d))
					continue;
				double off = fabs(log(o->g.delay_count[d] / count));
				if (off <= log_match && off < match) {
					match = off;
					mean = o->g.delay_ns[d] / o->g.delay_count[d];
				} else if (dist <= s->around && off < best) {
					best = off;
					nearest = o->g.delay_ns[d] / o->g.delay_count[d];
				}
			}
		}
		if (isnan(mean))
			mean = nearest;
		if (!isnan(mean)) {
			w->delay[d] = count * mean;
			w->estimated |= 1u << d;
		}
	}
	w->busy = isnan(w->g.run_ns) ? 0 : w->g.run_ns;
	for (int d = 0; d < VD_COUNT; d++)
		w->busy += isnan(w->delay[d]) ? 0 : w->delay[d];
}

/* Window k's room: the threads at work around it (the mean of their
 * running and waiting time a window over the second before it or the
 * second after, the larger, rounded up, never more than it has) times its
 * width, less their run time: the threads that sleep throughout take no
 * wait back. Then it enters the CPU's pass. */
static void make_room(struct verdict_signal *s, long long k)
{
	double side[2] = {0, 0};
	for (int after = 0; after < 2; after++) {
		double sum = 0, width = 0;
		long long from = after ? k : k - s->around, to = after ? k + s->around : k;
		if (from < 0)
			from = 0;
		if (to > s->estimated - 1)
			to = s->estimated - 1;
		for (long long j = from; j <= to; j++) {
			sum += WIN(s, j)->busy;
			width += (double)(WIN(s, j)->g.t_end - WIN(s, j)->g.t_start);
		}
		side[after] = width > 0 ? sum / width : 0;
	}
	const struct swindow *w = WIN(s, k);
	double threads = w->g.in.nthreads;
	double at_work = ceil((side[0] > side[1] ? side[0] : side[1]) - verdict_at_work_slack);
	if (at_work < 1)
		at_work = 1;
	if (!isnan(threads) && threads >= 1 && at_work > threads)
		at_work = threads;
	double run = w->g.run_ns, width = (double)(w->g.t_end - w->g.t_start);
	RING(&s->r, room, k) = at_work * width - (isnan(run) ? 0 : run);
	RING(&s->r, end, k) = (double)w->g.t_end;
	RING(&s->r, left, k) = k - 1;
	spread_enter(&s->r, s->put[P_CPU], k, w->delay[VD_CPU]);
}

/* Runs every stage as far as the windows read let it. */
static void advance(struct verdict_signal *s)
{
	bool all = s->ended;
	while (s->estimated < s->read && (all || s->read > s->estimated + s->reach))
		estimate(s, s->estimated++);
	while (s->roomed < s->estimated && (all || s->estimated > s->roomed + s->around))
		make_room(s, s->roomed++);
	s->r.lo = oldest(s);
	for (; s->put_done[P_CPU] < s->roomed; s->put_done[P_CPU]++)
		spread_one(&s->r, s->put[P_CPU], s->put_done[P_CPU],
			   WIN(s, s->put_done[P_CPU])->delay[VD_CPU]);
	/* block I/O's pass behind the CPU's by the spread-back limit: no CPU
	 * delay still to come reaches the windows it fills */
	for (long long m = s->put_done[P_BLKIO];
	     m < s->put_done[P_CPU] && (all || s->put_done[P_CPU] > m + s->back); m = ++s->put_done[P_BLKIO]) {
		spread_enter(&s->r, s->put[P_BLKIO], m, WIN(s, m)->delay[VD_BLKIO]);
		spread_one(&s->r, s->put[P_BLKIO], m, WIN(s, m)->delay[VD_BLKIO]);
	}
}

/* Window k's time in the kernel: its cgroup CPU time times the kernel's
 * share of the cgroup's CPU time over the second around it (see
 * verdict_around_ns). */
static double kernel_time(const struct verdict_signal *s, long long k)
{
	double system = 0, usage = 0;
	long long from = k - s->around > oldest(s) ? k - s->around : oldest(s);
	for (long long j = from; j < s->read && j <= k + s->around; j++) {
		double sy = WIN(s, j)->g.system_ns, u = WIN(s, j)->g.usage_ns;
		if (!isnan(sy) && !isnan(u)) {
			system += sy;
			usage += u;
		}
	}
	const struct swindow *w = WIN(s, k);
	return usage > 0 && !isnan(w->g.usage_ns) ? w->g.usage_ns * system / usage : w->g.system_ns;
}

/* A quota's throttled time around window k (verdict_around_ns), per ns,
 * times its width: charged when the period refreshes, it lands in
 * whichever window the refresh falls in. NAN where window k has none. */
static double throttled_around(const struct verdict_signal *s, long long k, bool ancestor)
{
	const struct swindow *w = WIN(s, k);
	double own = ancestor ? w->g.in.ancestor_throttled_ns : w->g.in.throttled_ns;
	if (isnan(own))
		return own;
	double sum = 0, width = 0;
	long long from = k - s->around > oldest(s) ? k - s->around : oldest(s);
	for (long long j = from; j < s->read && j <= k + s->around; j++) {
		const struct swindow *o = WIN(s, j);
		double v = ancestor ? o->g.in.ancestor_throttled_ns : o->g.in.throttled_ns;
		if (!isnan(v)) {
			sum += v;
			width += (double)(o->g.t_end - o->g.t_start);
		}
	}
	return width > 0 ? sum / width * (double)(w->g.t_end - w->g.t_start) : own;
}

/* memory.high's events in window k and the penalty's reach before it:
 * the sleep follows the event (verdict_high_reach_ns). */
static double high_recent(const struct verdict_signal *s, long long k)
{
	double n = 0;
	for (long long j = k - s->high > oldest(s) ? k - s->high : oldest(s); j <= k; j++) {
		double e = WIN(s, j)->g.in.memory_high_events;
		n += isnan(e) ? 0 : e;
	}
	return isnan(WIN(s, k)->g.in.memory_high_events) && n == 0 ? NAN : n;
}

static bool ready(const struct verdict_signal *s)
{
	long long k = s->out;
	if (k >= s->read)
		return false;
	if (s->ended)
		return s->put_done[P_BLKIO] > k;
	return s->put_done[P_BLKIO] > k + s->back && s->read > k + s->around;
}

int verdict_signal_next(struct verdict_signal *s, struct verdict_grid_window *out)
{
	while (!ready(s)) {
		if (s->ended)
			return s->code;
		struct swindow *w = WIN(s, s->read);
		memset(w, 0, sizeof(*w));
		int r = verdict_grid_next(s->grid, &w->g);
		if (r == 1)
			s->read++;
		else {
			s->ended = true;
			s->code = r;
			if (r)
				return r;
		}
		advance(s);
	}
	long long k = s->out++;
	const struct swindow *w = WIN(s, k);
	*out = w->g;
	struct verdict_in *in = &out->in;
	in->run_ns = w->g.run_ns;
	in->cpu_delay_ns = s->put[P_CPU][(size_t)k % s->cap];
	in->blkio_ns = s->put[P_BLKIO][(size_t)k % s->cap];
	in->swapin_ns = w->delay[VD_SWAPIN];
	in->freepages_ns = w->delay[VD_FREEPAGES];
	in->thrashing_ns = w->delay[VD_THRASHING];
	in->compact_ns = w->delay[VD_COMPACT];
	in->estimated = w->estimated;
	in->system_ns = kernel_time(s, k);
	in->high_recent = high_recent(s, k);
	in->throttled_ns = throttled_around(s, k, false);
	in->ancestor_throttled_ns = throttled_around(s, k, true);
	return 1;
}
