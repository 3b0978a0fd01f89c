/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A sampler: the process one source runs in for one episode.
 *
 * It opens the source on the waiting target, reports ready, then samples on
 * the absolute grid origin + k * interval (a CLOCK_MONOTONIC timerfd armed
 * with TFD_TIMER_ABSTIME, so lateness never accumulates) and writes one row
 * per tick. On "stop" it takes the final sample (final: true) and reports the
 * row count. Being its own process, a source that crashes takes only its own
 * file's tail with it. */
#ifndef IOPSAMPLE_SAMPLER_H
#define IOPSAMPLE_SAMPLER_H

#include "collector.h"
#include "config.h"
#include "duration.h"

/* How often, at most, a sampler tells the supervisor its rows for the
 * progress line, and the line is redrawn: 4 times a second. */
#define PROGRESS_NS (NS_PER_S / 4)

/* How often a source with I/O in flight at the end is asked again. */
#define DRAIN_POLL_MS 1

/* The nice value samplers run at when the host allows it. */
#define SAMPLER_NICE (-10)
/* A row wider than this many intervals is a wide row: the manifest's
 * wide_rows names it, and why (its first WIDE_ROWS_KEPT). */
#define WIDE_ROW_INTERVALS 3
#define WIDE_ROWS_KEPT 64

/* The most descriptors a source may keep from the supervisor
 * (collector_ops.inherited). */
#define SAMPLER_MAX_INHERITED 64

struct sampler_args {
	const struct config *cfg;
	const struct source_config *sc;
	struct target_info target;
	int sock;  /* to the supervisor */
	int dirfd; /* the episode directory */
};

void sampler_main(struct sampler_args *a) __attribute__((noreturn));

#endif
