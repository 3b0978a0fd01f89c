/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Burning a known amount of the calling thread's own CPU time, for the
 * workloads whose ground truth includes the CPU they used. */
#ifndef IOPSAMPLE_WORKLOADS_BURN_H
#define IOPSAMPLE_WORKLOADS_BURN_H

#include <stdint.h>
#include <time.h>

/* Spins until the thread has run for ms milliseconds of its CPU clock
 * (not the wall clock: time spent waiting for a CPU does not count). */
static void burn_ms(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	volatile uint64_t x = 1;
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

#endif
