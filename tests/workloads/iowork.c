// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iowork: a workload that counts the I/O it does, for tests to compare with.
 *
 * Threads, forked children, grandchildren and an orphan (a grandchild whose
 * parent exits first) each do rounds of write()s of known sizes to a private
 * unlinked file and pread()s of the same bytes back, pausing between rounds so
 * the I/O spreads over many sampling intervals. Every process and thread adds
 * what the kernel will count (bytes and calls, reads and writes) to counters in
 * shared memory. At the end the main process prints
 *
 *   {"wchar": N, "syscw": N, "rchar": N, "syscr": N, "processes": N, "threads": N}
 *
 * in a single write(2) with fixed-width numbers, so the report's own write is
 * part of the totals it reports.
 *
 * Other modes serve the supervisor's tests: --sleep-ms (idle, with --sleepers
 * children), --ignore-term, --daemon (a descendant that outlives the target),
 * --crash SIG (die by a signal after the I/O). --tag is ignored: it marks the
 * processes' command lines so a test can look for leftovers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct totals {
	atomic_ullong wchar, syscw, rchar, syscr;
	atomic_uint processes, threads;
	atomic_uint orphan_done;
};

static struct totals *tot;
static int rounds = 10, pause_ms = 20;

/* the sizes each round writes and reads back: 1 B to 32 KiB */
static const size_t sizes[] = {1, 7, 512, 4096, 1000, 32768, 100};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void die(const char *what)
{
	fprintf(stderr, "iowork: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Writes and reads back every size, each call counted as the kernel counts it
 * (vfs_write/vfs_read: bytes returned to rchar/wchar, one call to syscr/syscw). */
static void work(void)
{
	static char zeros[32768];
	char buf[32768];
	char name[] = "iowork.XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		die("mkstemp");
	unlink(name);
	for (int r = 0; r < rounds; r++) {
		off_t off = 0;
		for (size_t i = 0; i < NSIZES; i++) {
			ssize_t n = write(fd, zeros, sizes[i]);
			if (n != (ssize_t)sizes[i])
				die("write");
			atomic_fetch_add(&tot->wchar, (unsigned long long)n);
			atomic_fetch_add(&tot->syscw, 1);
		}
		for (size_t i = 0; i < NSIZES; i++) {
			ssize_t n = pread(fd, buf, sizes[i], off);
			if (n != (ssize_t)sizes[i])
				die("pread");
			off += n;
			atomic_fetch_add(&tot->rchar, (unsigned long long)n);
			atomic_fetch_add(&tot->syscr, 1);
		}
		if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
			die("truncate");
		sleep_ms(pause_ms);
	}
	close(fd);
}

static void *thread_main(void *arg)
{
	(void)arg;
	atomic_fetch_add(&tot->threads, 1);
	work();
	return NULL;
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		atomic_fetch_add(&tot->processes, 1);
		fn();
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "iowork: child %d failed\n", (int)pid);
		exit(2);
	}
}

/* a child with its own child: the grandchild's counts reach the main process
 * through two reaps */
static void child_with_grandchild(void)
{
	pid_t g = spawn(work);
	work();
	reap(g);
}

static void orphan(void)
{
	sleep_ms(3 * pause_ms); /* its parent is gone by now: adopted */
	work();
	atomic_store(&tot->orphan_done, 1);
}

/* exits at once, leaving an orphan to work on */
static void orphan_parent(void)
{
	spawn(orphan);
}

static void report(void)
{
	char text[256];
	int len = 0;
	/* Twice: the first pass only measures the (fixed) length of the text,
	 * which the second pass counts as written. */
	for (int pass = 0; pass < 2; pass++) {
		unsigned long long w = atomic_load(&tot->wchar) + (unsigned long long)len;
		unsigned long long cw = atomic_load(&tot->syscw) + (pass ? 1 : 0);
		len = snprintf(text, sizeof(text),
			       "{\"wchar\": %12llu, \"syscw\": %12llu, \"rchar\": %12llu, "
			       "\"syscr\": %12llu, \"processes\": %6u, \"threads\": %6u}\n",
			       w, cw, atomic_load(&tot->rchar), atomic_load(&tot->syscr),
			       atomic_load(&tot->processes), atomic_load(&tot->threads));
	}
	if (write(1, text, (size_t)len) != len)
		die("write report");
}

static void sleeper(void)
{
	pause();
}

int main(int argc, char **argv)
{
	int threads = 0, children = 0, sleep_for = 0, sleepers = 0, crash = 0;
	int do_orphan = 0, daemon_child = 0, ignore_term = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : "0";
		if (!strcmp(a, "--threads"))
			threads = atoi(v), i++;
		else if (!strcmp(a, "--children"))
			children = atoi(v), i++;
		else if (!strcmp(a, "--rounds"))
			rounds = atoi(v), i++;
		else if (!strcmp(a, "--pause-ms"))
			pause_ms = atoi(v), i++;
		else if (!strcmp(a, "--sleep-ms"))
			sleep_for = atoi(v), i++;
		else if (!strcmp(a, "--sleepers"))
			sleepers = atoi(v), i++;
		else if (!strcmp(a, "--crash"))
			crash = atoi(v), i++;
		else if (!strcmp(a, "--tag"))
			i++;
		else if (!strcmp(a, "--orphan"))
			do_orphan = 1;
		else if (!strcmp(a, "--daemon"))
			daemon_child = 1;
		else if (!strcmp(a, "--ignore-term"))
			ignore_term = 1;
		else {
			fprintf(stderr, "iowork: unknown option %s\n", a);
			return 2;
		}
	}

	tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tot == MAP_FAILED)
		die("mmap");
	atomic_store(&tot->processes, 1);
	if (ignore_term)
		signal(SIGTERM, SIG_IGN);

	for (int i = 0; i < sleepers; i++)
		spawn(sleeper);
	if (daemon_child) {
		pid_t d = fork();
		if (d == 0) {
			setsid(); /* a new session and process group, as daemons do */
			sleep_ms(60000);
			_exit(0);
		}
	}

	pid_t kids[64];
	int nkids = 0;
	for (int i = 0; i < children && nkids < 64; i++)
		kids[nkids++] = spawn(child_with_grandchild);
	if (do_orphan && nkids < 64)
		kids[nkids++] = spawn(orphan_parent);
	pthread_t tids[64];
	for (int i = 0; i < threads && i < 64; i++)
		if (pthread_create(&tids[i], NULL, thread_main, NULL) != 0)
			die("pthread_create");

	work();
	for (int i = 0; i < threads && i < 64; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < nkids; i++)
		reap(kids[i]);
	while (do_orphan && !atomic_load(&tot->orphan_done))
		sleep_ms(5);
	if (sleep_for)
		sleep_ms(sleep_for);
	if (crash)
		kill(getpid(), crash);
	report();
	return 0;
}
