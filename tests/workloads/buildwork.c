// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* buildwork: a parallel build in miniature, saying what it did.
 *
 *   buildwork DIR JOBS FILES
 *
 * Like make -jJOBS of FILES objects with cc: it writes FILES sources of
 * 256 KiB to DIR, syncs them and drops them from the page cache, then runs
 * JOBS compiles at a time. Each compile is a short-lived tree of its own
 * processes, every stage an exec of this program, as gcc -> cc1 -> as:
 *
 *   driver: forks cc1 and waits for it, then a second thread of the driver
 *           writes a 16 KiB dependency file (as gcc -MD), and 30 ms later
 *           (a sampler at 10 ms has counted it under its own id) execs
 *           the assembler: the driver's process becomes `as`, the thread
 *           taking over the leader's id (the kernel's de_thread);
 *   cc1:    reads the source (from storage), burns 80 ms of CPU, writes a
 *           128 KiB assembly file;
 *   as:     reads the assembly file, burns 40 ms, writes a 64 KiB object,
 *           and writes 8 pages of a scratch file it deletes unwritten.
 *
 * Prints {"files": N, "processes": P, "threads": T, "execs": E,
 * "written": B, "read": B, "read_from_storage": B}: the processes and
 * threads it made (itself included), the execs, the bytes its write and
 * read calls moved, and the sources' bytes, which come from storage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

#define SRC_BYTES (256 * 1024)
#define ASM_BYTES (128 * 1024)
#define OBJ_BYTES (64 * 1024)
#define SCRATCH_BYTES (8 * 4096)
#define DEP_BYTES (16 * 1024)
/* ms of CPU: cc1 burns twice this, as once (a small C file's compile) */
#define BURN 40

static const char *self = "/proc/self/exe";

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void path(char *out, size_t cap, const char *dir, const char *kind, int i)
{
	snprintf(out, cap, "%s/%s.%d", dir, kind, i);
}

static void write_file(const char *p, size_t n)
{
	static char block[4096];
	memset(block, 'x', sizeof(block));
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(p);
	for (size_t done = 0; done < n; done += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			die("write");
	close(fd);
}

static size_t read_file(const char *p)
{
	char buf[16384];
	size_t total = 0;
	ssize_t n;
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		die(p);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)n;
	close(fd);
	return total;
}

static int run_cc1(const char *dir, int i)
{
	char src[4096], s[4096];
	path(src, sizeof(src), dir, "src", i);
	path(s, sizeof(s), dir, "s", i);
	if (read_file(src) != SRC_BYTES)
		return 3;
	burn_ms(BURN * 2);
	write_file(s, ASM_BYTES);
	return 0;
}

static int run_as(const char *dir, int i)
{
	char s[4096], o[4096], scratch[4096];
	path(s, sizeof(s), dir, "s", i);
	path(o, sizeof(o), dir, "o", i);
	path(scratch, sizeof(scratch), dir, "scratch", i);
	if (read_file(s) != ASM_BYTES)
		return 3;
	burn_ms(BURN);
	write_file(o, OBJ_BYTES);
	write_file(scratch, SCRATCH_BYTES);
	unlink(scratch); /* dirty pages never written: cancelled */
	unlink(s);
	return 0;
}

struct exec_args {
	char *const *argv;
	const char *dir;
	int i;
};

static void *exec_as(void *arg)
{
	const struct exec_args *a = arg;
	char d[4096];
	path(d, sizeof(d), a->dir, "d", a->i);
	write_file(d, DEP_BYTES);
	struct timespec wait = {0, 30 * 1000000};
	nanosleep(&wait, NULL);
	execv(self, a->argv);
	die("execv as");
	return NULL;
}

static int run_driver(const char *dir, int i)
{
	char n[16];
	snprintf(n, sizeof(n), "%d", i);
	pid_t cc1 = fork();
	if (cc1 < 0)
		die("fork");
	if (cc1 == 0) {
		execl(self, "cc1", "cc1", dir, n, (char *)NULL);
		die("execl cc1");
	}
	int st;
	if (waitpid(cc1, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 3;
	/* the assembler, exec'd by a thread that is not the leader */
	char *argv[] = {"as", "as", (char *)dir, n, NULL};
	struct exec_args a = {argv, dir, i};
	pthread_t t;
	if (pthread_create(&t, NULL, exec_as, &a))
		die("pthread_create");
	pthread_join(t, NULL); /* never returns: the exec kills this thread */
	return 4;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "cc1"))
		return run_cc1(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "as"))
		return run_as(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "driver"))
		return run_driver(argv[2], atoi(argv[3]));
	if (argc != 4) {
		fprintf(stderr, "usage: buildwork DIR JOBS FILES\n");
		return 2;
	}
	const char *dir = argv[1];
	int jobs = atoi(argv[2]), files = atoi(argv[3]);
	if (jobs < 1 || files < 1)
		return 2;

	for (int i = 0; i < files; i++) {
		char src[4096];
		path(src, sizeof(src), dir, "src", i);
		write_file(src, SRC_BYTES);
		int fd = open(src, O_RDONLY);
		if (fd < 0 || fsync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			die("fsync");
		close(fd);
	}

	int next = 0, running = 0, failed = 0;
	while (next < files || running) {
		if (next < files && running < jobs) {
			char n[16];
			snprintf(n, sizeof(n), "%d", next++);
			pid_t p = fork();
			if (p < 0)
				die("fork");
			if (p == 0) {
				execl(self, "cc", "driver", dir, n, (char *)NULL);
				die("execl driver");
			}
			running++;
			continue;
		}
		int st;
		if (wait(&st) < 0)
			die("wait");
		running--;
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (failed)
		return 3;
	/* per file: the driver (which becomes as) and cc1; its exec thread */
	printf("{\"files\": %d, \"processes\": %d, \"threads\": %d, \"execs\": %d, "
	       "\"written\": %d, \"read\": %d, \"read_from_storage\": %d}\n",
	       files, 1 + 2 * files, 1 + 3 * files, 3 * files,
	       files * (SRC_BYTES + ASM_BYTES + OBJ_BYTES + SCRATCH_BYTES + DEP_BYTES),
	       files * (SRC_BYTES + ASM_BYTES), files * SRC_BYTES);
	return 0;
}
