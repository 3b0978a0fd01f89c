// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* taskwork: workloads for the taskstats tests, each saying what it did.
 *
 *   taskwork io DIR
 *       2 threads of the main process and 2 children with 2 threads each;
 *       every thread writes 16 pages to its own file in DIR, fsyncs, drops
 *       the file's cache and reads it back (read_bytes), then dirties 8 more
 *       pages and truncates them away unwritten (cancelled_write_bytes).
 *       Prints {"threads": N, "written": B, "read": B, "cancelled": B}.
 *   taskwork burst N DIR
 *       150 ms idle, then N threads, 50 at a time, each writing one page to
 *       its own offset of one file and exiting at once, then 150 ms idle:
 *       the threads live and die between two ticks of a 100 ms grid.
 *       Prints {"threads": N, "written": B}.
 *   taskwork spin SECONDS
 *       2 threads pinned to CPU 0 spin for SECONDS; each reads its own
 *       /proc/thread-self/schedstat as its last act. Prints
 *       {"run_ns": N, "run_delay_ns": N} summed over the two.
 *   taskwork dread FILE N HOLD_FILE
 *       N O_DIRECT reads of 4 KiB from FILE, counting those during which the
 *       thread switched out voluntarily (it slept for the I/O). Prints
 *       {"reads": N, "waited": N, "tid": TID}, then waits for HOLD_FILE to
 *       exist before it exits, so the test can read the thread's delays.
 *   taskwork storm GO_FILE THREADS STORMED_FILE GO2_FILE DIR
 *       waits for GO_FILE, creates and ends THREADS threads doing nothing,
 *       creates STORMED_FILE, waits for GO2_FILE, then 4 threads each write
 *       one page to DIR/after and exit. Prints {"after_written": B}. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void write_pages(int fd, int n, off_t at)
{
	static const char page[PAGE] = {1};
	for (int i = 0; i < n; i++)
		if (pwrite(fd, page, PAGE, at + (off_t)i * PAGE) != PAGE)
			die("pwrite");
}

/* ---- io ---- */

static const char *io_dir;
static atomic_int io_seq;

static void *io_thread(void *arg)
{
	(void)arg;
	char path[4096];
	snprintf(path, sizeof(path), "%s/io.%d.%d", io_dir, (int)getpid(), atomic_fetch_add(&io_seq, 1));
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	write_pages(fd, 16, 0);
	if (fsync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		die("fsync");
	char buf[PAGE];
	for (int i = 0; i < 16; i++)
		if (pread(fd, buf, PAGE, (off_t)i * PAGE) != PAGE)
			die("pread");
	write_pages(fd, 8, 16 * PAGE); /* dirty, then cancelled */
	if (ftruncate(fd, 16 * PAGE) < 0)
		die("ftruncate");
	close(fd);
	unlink(path);
	return NULL;
}

static void io_process(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, io_thread, NULL))
			die("pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static int cmd_io(const char *dir)
{
	io_dir = dir;
	pid_t kids[2];
	for (int i = 0; i < 2; i++) {
		if ((kids[i] = fork()) < 0)
			die("fork");
		if (kids[i] == 0) {
			io_process();
			_exit(0);
		}
	}
	io_process();
	for (int i = 0; i < 2; i++)
		waitpid(kids[i], NULL, 0);
	int threads = 6;
	printf("{\"threads\": %d, \"written\": %d, \"read\": %d, \"cancelled\": %d}\n", threads,
	       threads * 24 * PAGE, threads * 16 * PAGE, threads * 8 * PAGE);
	return 0;
}

/* ---- burst ---- */

static int burst_fd;
static void *burst_thread(void *arg)
{
	write_pages(burst_fd, 1, (off_t)(intptr_t)arg * PAGE);
	return NULL;
}

static int cmd_burst(int n, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/burst", dir);
	if ((burst_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		die(path);
	usleep(150000);
	for (int i = 0; i < n; i += 50) {
		pthread_t t[50];
		int k = n - i < 50 ? n - i : 50;
		for (int j = 0; j < k; j++)
			if (pthread_create(&t[j], NULL, burst_thread, (void *)(intptr_t)(i + j)))
				die("pthread_create");
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	close(burst_fd);
	usleep(150000);
	printf("{\"threads\": %d, \"written\": %d}\n", n, n * PAGE);
	return 0;
}

/* ---- spin ---- */

static double spin_s;
static unsigned long long spin_run[2], spin_delay[2];

static void *spin_thread(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < spin_s);
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu", &spin_run[me], &spin_delay[me]) != 2)
		die("schedstat");
	fclose(f);
	return NULL;
}

static int cmd_spin(double seconds)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		die("sched_setaffinity");
	spin_s = seconds;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin_thread, (void *)(intptr_t)i))
			die("pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("{\"run_ns\": %llu, \"run_delay_ns\": %llu}\n", spin_run[0] + spin_run[1],
	       spin_delay[0] + spin_delay[1]);
	return 0;
}

/* ---- dread ---- */

static void wait_file(const char *path)
{
	struct stat st;
	while (stat(path, &st) < 0)
		usleep(10000);
}

static long nvcsw(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static int cmd_dread(const char *file, int n, const char *hold)
{
	int fd = open(file, O_RDONLY | O_DIRECT);
	void *buf;
	if (fd < 0 || posix_memalign(&buf, PAGE, PAGE))
		die(file);
	int waited = 0;
	for (int i = 0; i < n; i++) {
		long before = nvcsw();
		if (pread(fd, buf, PAGE, (off_t)i * PAGE) != PAGE)
			die("pread");
		waited += nvcsw() > before;
	}
	printf("{\"reads\": %d, \"waited\": %d, \"tid\": %d}\n", n, waited, (int)gettid());
	fflush(stdout);
	wait_file(hold);
	return 0;
}

/* ---- storm ---- */

static void *nothing(void *arg)
{
	return arg;
}

static int cmd_storm(const char *go, int n, const char *stormed, const char *go2, const char *dir)
{
	wait_file(go);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, nothing, NULL))
			die("pthread_create");
		pthread_join(t, NULL);
	}
	int fd = open(stormed, O_WRONLY | O_CREAT, 0600);
	close(fd);
	wait_file(go2);
	char path[4096];
	snprintf(path, sizeof(path), "%s/after", dir);
	if ((burst_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		die(path);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, burst_thread, (void *)(intptr_t)(i * 4)))
			die("pthread_create");
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("{\"after_written\": %d}\n", 4 * PAGE);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "io"))
		return cmd_io(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "burst"))
		return cmd_burst(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return cmd_spin(atof(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "dread"))
		return cmd_dread(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 7 && !strcmp(argv[1], "storm"))
		return cmd_storm(argv[2], atoi(argv[3]), argv[4], argv[5], argv[6]);
	fprintf(stderr, "usage: taskwork io DIR | burst N DIR | spin SECONDS | dread FILE N HOLD_FILE | "
			"storm GO THREADS STORMED GO2 DIR\n");
	return 2;
}
