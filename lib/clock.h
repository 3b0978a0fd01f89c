/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The two clocks rows carry. Kept apart by name: a monotonic ns is not a
 * wall-clock ns. */
#ifndef IOPSAMPLE_CLOCK_H
#define IOPSAMPLE_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "duration.h"

static inline int64_t clock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static inline int64_t clock_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

#endif
