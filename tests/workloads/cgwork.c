// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgwork: workloads for the cgroup tests, each saying what it did.
 *
 *   cgwork use MIB DEVICE BYTES
 *       Touches MIB MiB of anonymous memory and holds it 300 ms; burns CPU
 *       in 3 threads and a child process (about 150 ms each); writes BYTES
 *       to DEVICE with O_DIRECT in 64 KiB writes. Prints {"anon_bytes": N,
 *       "written": B, "cpu_ns": N}, cpu_ns from its own getrusage (itself
 *       and its child, reaped).
 *   cgwork spin THREADS MS
 *       THREADS threads spin for MS milliseconds: more runnable threads than
 *       CPUs make them wait. Prints {"threads": N}.
 *   cgwork daemon DEVICE BYTES HOLD_FILE
 *       Double-forks a daemon (setsid, its parent gone at once) that waits
 *       until that parent has exited, then writes BYTES to DEVICE with
 *       O_DIRECT and creates HOLD_FILE.done, and sleeps until killed. The
 *       target waits for HOLD_FILE.done, then exits, leaving the daemon
 *       running. Prints {"daemon_written": B}. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

#define BLOCK (64 * 1024)

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&t, &t) < 0)
		;
}

static void *burner(void *arg)
{
	burn_ms((long)(intptr_t)arg);
	return NULL;
}

static void write_direct(const char *dev, long long bytes)
{
	int fd = open(dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		die(dev);
	void *buf;
	if (posix_memalign(&buf, 4096, BLOCK))
		die("posix_memalign");
	memset(buf, 0x5a, BLOCK);
	for (long long done = 0; done < bytes; done += BLOCK)
		if (pwrite(fd, buf, BLOCK, done) != BLOCK)
			die("pwrite");
	if (fsync(fd) < 0)
		die("fsync");
	close(fd);
	free(buf);
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

static int cmd_use(long mib, const char *dev, long long bytes)
{
	size_t len = (size_t)mib << 20;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	for (size_t i = 0; i < len; i += 4096)
		mem[i] = 1;
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		burn_ms(150);
		_exit(0);
	}
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, burner, (void *)(intptr_t)150))
			die("pthread_create");
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	sleep_ms(300); /* the memory, held for the samples */
	munmap(mem, len);
	write_direct(dev, bytes);
	if (waitpid(child, NULL, 0) < 0)
		die("waitpid");
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	int64_t cpu = tv_ns(self.ru_utime) + tv_ns(self.ru_stime) + tv_ns(kids.ru_utime) + tv_ns(kids.ru_stime);
	printf("{\"anon_bytes\": %zu, \"written\": %lld, \"cpu_ns\": %lld}\n", len, bytes, (long long)cpu);
	return 0;
}

static int cmd_spin(int threads, long ms)
{
	pthread_t t[64];
	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, burner, (void *)(intptr_t)ms))
			die("pthread_create");
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("{\"threads\": %d}\n", threads);
	return 0;
}

static int cmd_daemon(const char *dev, long long bytes, const char *hold)
{
	char done[4096];
	snprintf(done, sizeof(done), "%s.done", hold);
	fflush(stdout);
	pid_t mid = fork();
	if (mid < 0)
		die("fork");
	if (mid == 0) {
		pid_t me = getpid();
		pid_t d = fork();
		if (d < 0)
			die("fork");
		if (d > 0)
			_exit(0); /* the daemon's parent, gone at once */
		setsid();
		while (getppid() == me) /* until it is reparented: its parent has exited */
			sleep_ms(5);
		write_direct(dev, bytes);
		int fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		for (;;)
			pause();
	}
	waitpid(mid, NULL, 0);
	struct stat st;
	while (stat(done, &st) < 0)
		sleep_ms(5);
	printf("{\"daemon_written\": %lld}\n", bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "use"))
		return cmd_use(atol(argv[2]), argv[3], atoll(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "spin"))
		return cmd_spin(atoi(argv[2]), atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "daemon"))
		return cmd_daemon(argv[2], atoll(argv[3]), argv[4]);
	fprintf(stderr, "usage: cgwork use MIB DEVICE BYTES | spin THREADS MS | daemon DEVICE BYTES HOLD\n");
	return 2;
}
