// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The thread that takes the gpu source's readings (gpu_source.h says why).
 *
 * It first takes the counters' baselines (gpu_begin). Then the sampler
 * asks (want++) at each tick; the reader takes every GPU's
 * readings, says it is done, then reads the energy where it is due: an
 * energy reading, milliseconds long, never holds a row. The last reading
 * takes the energy before it says it is done, so the last row holds all of
 * it. The thread blocks every signal, as NVML's own do (nvml.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "clock.h"
#include "gpu_source.h"

static struct timespec at(int64_t mono_ns)
{
	return (struct timespec){.tv_sec = mono_ns / NS_PER_S, .tv_nsec = mono_ns % NS_PER_S};
}

void gpu_read_baseline(struct gpu *g)
{
	int64_t now = clock_mono_ns();
	gpu_read_all(g, now);
	for (size_t i = 0; i < g->n; i++)
		gpu_read_energy(g, &g->dev[i], now, true);
	gpu_lock(g);
	for (size_t i = 0; i < g->n; i++) {
		struct gpu_dev *d = &g->dev[i];
		d->acc_pcie[0] = d->acc_pcie[1] = d->acc_energy = 0;
		d->acc_ambiguous = false;
	}
	gpu_unlock(g);
}

static void *reader(void *arg)
{
	struct gpu *g = arg;
	gpu_read_baseline(g); /* before any row's reading */
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->stop && g->done == g->want)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop)
			break;
		uint64_t asked = g->want;
		bool final = g->final;
		pthread_mutex_unlock(&g->mu);

		int64_t now = clock_mono_ns();
		gpu_read_all(g, now);
		if (final)
			for (size_t i = 0; i < g->n; i++)
				gpu_read_energy(g, &g->dev[i], now, true);
		/* the sampler woken once the mutex is free: it takes it at once */
		pthread_mutex_lock(&g->mu);
		g->done = asked;
		pthread_mutex_unlock(&g->mu);
		pthread_cond_broadcast(&g->cv);
		if (!final)
			for (size_t i = 0; i < g->n; i++)
				gpu_read_energy(g, &g->dev[i], clock_mono_ns(), false);
		pthread_mutex_lock(&g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

void gpu_reader_start(struct gpu *g)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&g->mu, NULL);
	g->stop = false;
	g->want = g->done = 0;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* set before the thread runs: its first job locks (gpu_lock) */
	g->running = true;
	if (pthread_create(&g->thread, NULL, reader, g) != 0)
		g->running = false;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!g->running) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
	}
}

bool gpu_reader_read(struct gpu *g, int64_t deadline)
{
	if (!g->running) { /* no thread: the sampler reads */
		int64_t now = clock_mono_ns();
		gpu_read_all(g, now);
		for (size_t i = 0; i < g->n; i++)
			gpu_read_energy(g, &g->dev[i], now, g->final);
		return true;
	}
	pthread_mutex_lock(&g->mu);
	/* a fresh reading: one still under way (late for its own row) ends
	 * first, and its counters' change goes to this row or the next */
	g->want++;
	pthread_mutex_unlock(&g->mu);
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_lock(&g->mu);
	struct timespec until = at(deadline);
	int r = 0;
	while (g->done != g->want && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&g->cv, &g->mu, &until);
	bool done = g->done == g->want;
	pthread_mutex_unlock(&g->mu);
	return done;
}

void gpu_reader_stop(struct gpu *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	/* a reader stuck in the driver is left to the process's exit */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_timedjoin_np(g->thread, NULL, &until) != 0)
		return;
	g->running = false;
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}
