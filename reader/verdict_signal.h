/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The signals the rules read, conditioned: what taskstats and cgroup give
 * a window is not yet what the tree's threads did in it.
 *
 *   - taskstats charges a wait when it ends: each window's wait for a CPU
 *     and for block I/O is put back over the time it was waited
 *     (verdict_spread's rule);
 *   - a delay taskstats nulled (the kernel's accounting faulted) where its
 *     waits were still counted is estimated from the mean wait of a window
 *     near it whose count matches;
 *   - the kernel splits CPU time between user and system by timer ticks:
 *     a window's time in the kernel is its CPU time times the kernel's
 *     share of it over the second around it;
 *   - a CPU quota's throttling is charged as its period refreshes: a
 *     window's throttled time is its mean over the second around it.
 *
 * Each needs windows around the one it conditions, a few seconds of them
 * (verdict.c's verdict_around_ns, verdict_estimate_reach_ns,
 * verdict_spread_back_ns), never the episode: the signals hold a ring of
 * that many windows, read ahead from the grid. */
#ifndef IOPSAMPLE_VERDICT_SIGNAL_H
#define IOPSAMPLE_VERDICT_SIGNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict_grid.h"

struct verdict_signal;

/* Over the windows of g (window_ns wide): NULL when out of memory. */
struct verdict_signal *verdict_signal_open(struct verdict_grid *g, int64_t window_ns);
/* 1 with the next window in *w, its figures complete (run_ns, the delays
 * put back, estimated, system_ns); 0 after the last; or the grid's
 * sysexits code. */
int verdict_signal_next(struct verdict_signal *s, struct verdict_grid_window *w);
void verdict_signal_close(struct verdict_signal *s);

/* A delay charged when each wait ends, put back over the time it was
 * waited: the rule verdict_signal applies, on whole arrays. delay[k] is
 * what window k's waits were charged; room[k] the time its threads had
 * neither run nor been given another wait; end[k] when it ends (window k
 * is (end[k - 1], end[k]]). Each window's charge fills its own room, then
 * the room of the windows before it, latest first, back to its end less
 * the charge (and no further back than verdict_spread_back_ns): a wait
 * ends where it is charged and began as far before as it lasted, and one
 * thread cannot wait twice at once. What finds no room stays where it was
 * charged. out[k] (n of them) gets the result, the total kept; room[] is
 * left with what no wait took (for the next kind of wait); a NAN delay
 * stays NAN and takes nothing. 0 or -ENOMEM. */
int verdict_spread(const double *delay, double *room, const double *end, size_t n, double *out);

#endif
