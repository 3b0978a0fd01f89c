// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* perfwork: a workload whose page faults and CPU work are known, for the
 * perf_event tests.
 *
 * Every worker (the main thread, --threads more, or, with --children, forked
 * processes instead of the main one) writes one byte to each of --pages fresh
 * anonymous pages, with huge pages turned off, so each page is one page fault,
 * then spins --spin iterations of arithmetic. With --go FILE the existing
 * workers wait for FILE to appear before they start (a test attaches
 * meanwhile), and once started each also creates a new thread and a child
 * process that do the same work, so a test sees threads and processes born
 * after it attached. The pages touched are added up in shared memory and
 * printed at the end as
 *
 *   {"pages": N, "workers": N}
 *
 * on stdout or to --report FILE. --tag is ignored: it marks command lines. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct totals {
	atomic_ullong pages;
	atomic_uint workers;
};

static struct totals *tot;
static long pages = 1000, spin = 0;
static const char *go;

static void die(const char *what)
{
	fprintf(stderr, "perfwork: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void wait_for_go(void)
{
	struct timespec ts = {0, 2 * 1000 * 1000};
	while (go && access(go, F_OK) != 0)
		nanosleep(&ts, NULL);
}

static void touch_and_spin(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages * psz);
	if (pages > 0) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap");
		madvise(p, len, MADV_NOHUGEPAGE); /* one fault per page */
		for (long i = 0; i < pages; i++)
			((volatile char *)p)[i * psz] = 1;
		munmap(p, len);
	}
	volatile uint64_t x = 1;
	for (long i = 0; i < spin; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	atomic_fetch_add(&tot->pages, (unsigned long long)pages);
	atomic_fetch_add(&tot->workers, 1);
}

static void *born_thread(void *arg)
{
	(void)arg;
	touch_and_spin();
	return NULL;
}

/* One worker; after a --go start it also begins a thread and a process. */
static void work(void)
{
	wait_for_go();
	pthread_t t;
	pid_t child = -1;
	if (go) {
		if (pthread_create(&t, NULL, born_thread, NULL))
			die("pthread_create");
		if ((child = fork()) < 0)
			die("fork");
		if (child == 0) {
			touch_and_spin();
			_exit(0);
		}
	}
	touch_and_spin();
	if (go) {
		pthread_join(t, NULL);
		waitpid(child, NULL, 0);
	}
}

static void *worker_thread(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 0, children = 0;
	const char *report = NULL;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";
		if (!strcmp(argv[i], "--pages"))
			pages = atol(v);
		else if (!strcmp(argv[i], "--spin"))
			spin = atol(v);
		else if (!strcmp(argv[i], "--threads"))
			threads = atoi(v);
		else if (!strcmp(argv[i], "--children"))
			children = atoi(v);
		else if (!strcmp(argv[i], "--go"))
			go = v;
		else if (!strcmp(argv[i], "--report"))
			report = v;
		else if (!strcmp(argv[i], "--tag"))
			;
		else {
			fprintf(stderr, "perfwork: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tot == MAP_FAILED)
		die("mmap");

	pthread_t tid[64];
	threads = threads > 64 ? 64 : threads;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker_thread, NULL))
			die("pthread_create");
	if (children > 0) {
		for (int i = 0; i < children; i++) {
			pid_t c = fork();
			if (c < 0)
				die("fork");
			if (c == 0) {
				work();
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
	} else {
		work();
	}
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);

	FILE *out = report ? fopen(report, "w") : stdout;
	if (!out)
		die(report);
	fprintf(out, "{\"pages\": %llu, \"workers\": %u}\n", (unsigned long long)tot->pages,
		(unsigned)tot->workers);
	return fclose(out) == 0 ? 0 : 2;
}
