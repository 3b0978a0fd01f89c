// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sysio: a workload that counts its own read/write syscalls, for syscall_io's
 * tests to compare with.
 *
 * Threads, forked children and a child started by posix_spawn (a vfork) each
 * run rounds of the ten default syscalls (read, write, pread64, pwrite64,
 * readv, writev, preadv, pwritev, preadv2, pwritev2) over sizes from 1 B to
 * 32 KiB on a private memfd, plus calls that fail (EBADF, ESPIPE) and reads
 * at end of file (0 bytes). A pipe carries a byte per round to a reader
 * thread that spends its time blocked in read(), where signals land. Every
 * syscall is issued with syscall(2) so exactly what is counted is called, and
 * each result is added to counters in a shared memfd:
 *
 *   per syscall: calls and bytes that succeeded, calls that failed
 *   per direction: a log2 histogram of the bytes returned (docs/data-model.md)
 *
 * --exec-from-thread: after the first phase a thread that is not the leader
 * execs this program again (a blocked read of the leader dies with it, never
 * returning); the new image maps the same counters and runs a second phase.
 *
 * At the end the report goes to --report FILE through mmap, so reporting
 * adds no read or write. The program is linked statically: no dynamic loader
 * reads shared libraries before main. SIGRTMIN is counted (queued signals do
 * not merge); SIGSTOP/SIGCONT and any number of them must not change a count.
 * --wait-for-go: before any counted call, fork an elder child; both wait for
 * SIGUSR1 to the leader, which passes it on, and then each runs a phase. An
 * observer that attaches meanwhile finds a tree of two waiting processes,
 * and every count comes after it: the elder's, the leader's, and those of
 * the children, threads and spawns that follow.
 *
 * --until-signals N: the pipe's feeder goes on past its rounds until N
 * SIGRTMIN have arrived (a minute at most), so a test that signals the
 * process never finds it gone, however slowly its kill(1)s run.
 *
 * --tag is ignored: it marks the command line so a test can find leftovers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmap_report.h"

enum { READ, WRITE, PREAD64, PWRITE64, READV, WRITEV, PREADV, PWRITEV, PREADV2, PWRITEV2, NSYS };
static const char *const names[NSYS] = {"read",   "write",   "pread64", "pwrite64", "readv",
					"writev", "preadv",  "pwritev", "preadv2",  "pwritev2"};
static const int nrs[NSYS] = {SYS_read,   SYS_write,   SYS_pread64, SYS_pwrite64, SYS_readv,
			      SYS_writev, SYS_preadv,  SYS_pwritev, SYS_preadv2,  SYS_pwritev2};
#define HIST 32

struct counters {
	atomic_ullong calls[NSYS], bytes[NSYS], errors[NSYS];
	atomic_ullong hist[2][HIST];
	atomic_uint signals, processes, threads;
};

static struct counters *cnt;
static int counters_fd = -1;
static int threads = 3, children = 2, rounds = 4, pause_ms = 10;
static unsigned until_signals;
static bool exec_from_thread, spawned, phase2, wait_for_go;
static const char *report;
static char **orig_argv;

static const size_t sizes[] = {1, 7, 100, 512, 1000, 4096, 32768};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void die(const char *what)
{
	fprintf(stderr, "sysio: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Written independently of iopsample's log2_bucket(): the edges of the doc. */
static unsigned bucket(unsigned long long n)
{
	unsigned b = 0;
	while (b < HIST - 1 && n >= (1ull << b))
		b++;
	return b;
}

static bool is_read(int i)
{
	return i % 2 == 0;
}

/* Counts one result exactly as the kernel returned it. */
static long note(int i, long r)
{
	if (r < 0) {
		atomic_fetch_add(&cnt->errors[i], 1);
		return r;
	}
	atomic_fetch_add(&cnt->calls[i], 1);
	atomic_fetch_add(&cnt->bytes[i], (unsigned long long)r);
	atomic_fetch_add(&cnt->hist[is_read(i) ? 0 : 1][bucket((unsigned long long)r)], 1);
	return r;
}

static long sys(int i, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(nrs[i], a, b, c, d, e, f);
	return note(i, r < 0 ? -errno : r);
}

/* One round: every syscall at every size, on a private memfd. */
static void io_round(int fd, char *buf)
{
	for (size_t k = 0; k < NSIZES; k++) {
		size_t s = sizes[k], half = s / 2;
		struct iovec iov[2] = {{buf, half}, {buf + half, s - half}};
		if (lseek(fd, 0, SEEK_SET) < 0)
			die("lseek");
		sys(WRITE, fd, (long)buf, (long)s, 0, 0, 0);
		sys(WRITEV, fd, (long)iov, 2, 0, 0, 0);
		sys(PWRITE64, fd, (long)buf, (long)s, 64, 0, 0);
		sys(PWRITEV, fd, (long)iov, 2, 128, 0, 0);
		sys(PWRITEV2, fd, (long)iov, 2, 256, 0, 0);
		if (lseek(fd, 0, SEEK_SET) < 0)
			die("lseek");
		sys(READ, fd, (long)buf, (long)s, 0, 0, 0);
		sys(READV, fd, (long)iov, 2, 0, 0, 0);
		sys(PREAD64, fd, (long)buf, (long)s, 8, 0, 0);
		sys(PREADV, fd, (long)iov, 2, 16, 0, 0);
		sys(PREADV2, fd, (long)iov, 2, 32, 0, 0);
	}
	/* end of file: 0 bytes */
	sys(PREAD64, fd, (long)buf, 10, 1 << 30, 0, 0);
	/* failures: a bad descriptor, and an offset on a pipe */
	sys(READ, -1, (long)buf, 1, 0, 0, 0);
	sys(WRITEV, -1, (long)buf, 1, 0, 0, 0);
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	sys(PWRITE64, p[1], (long)buf, 1, 0, 0, 0);
	close(p[0]);
	close(p[1]);
}

static void work(void)
{
	char *buf = malloc(32768);
	int fd = memfd_create("sysio", 0);
	if (!buf || fd < 0)
		die("memfd");
	memset(buf, 'x', 32768);
	for (int r = 0; r < rounds; r++) {
		io_round(fd, buf);
		sleep_ms(pause_ms);
	}
	close(fd);
	free(buf);
}

static void *worker(void *arg)
{
	(void)arg;
	atomic_fetch_add(&cnt->threads, 1);
	work();
	return NULL;
}

static void on_rt(int sig)
{
	(void)sig;
	atomic_fetch_add(&cnt->signals, 1);
}

/* The pipe: a byte per round from feeder to reader, which waits in read()
 * (restarted after each signal: SA_RESTART) until the feeder closes. */
static int pipefd[2];

static void *reader(void *arg)
{
	(void)arg;
	char c;
	while (sys(READ, pipefd[0], (long)&c, 1, 0, 0, 0) > 0)
		;
	return NULL;
}

static void *feeder(void *arg)
{
	(void)arg;
	int most = rounds * 2 + (until_signals ? 60000 / (pause_ms > 0 ? pause_ms : 1) : 0);
	for (int r = 0; r < most; r++) {
		if (r >= rounds * 2 && atomic_load(&cnt->signals) >= until_signals)
			break;
		sys(WRITE, pipefd[1], (long)"p", 1, 0, 0, 0);
		sleep_ms(pause_ms);
	}
	close(pipefd[1]);
	return NULL;
}

static void run_threads(void)
{
	pthread_t t[threads + 2];
	if (pipe(pipefd) < 0)
		die("pipe");
	pthread_create(&t[0], NULL, reader, NULL);
	pthread_create(&t[1], NULL, feeder, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[2 + i], NULL, worker, NULL);
	work();
	for (int i = 0; i < threads + 2; i++)
		pthread_join(t[i], NULL);
	close(pipefd[0]);
}

static void spawn_one(void)
{
	char fdarg[16];
	snprintf(fdarg, sizeof(fdarg), "%d", counters_fd);
	char *argv[] = {"sysio", "--spawned", "--counters-fd", fdarg, NULL};
	pid_t pid;
	extern char **environ;
	int r = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
	if (r) {
		errno = r;
		die("posix_spawn");
	}
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
}

static void phase(void)
{
	pid_t kids[children];
	for (int i = 0; i < children; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (kids[i] == 0) {
			atomic_fetch_add(&cnt->processes, 1);
			pthread_t t;
			pthread_create(&t, NULL, worker, NULL);
			work();
			pthread_join(t, NULL);
			_exit(0);
		}
	}
	spawn_one();
	run_threads();
	for (int i = 0; i < children; i++)
		if (waitpid(kids[i], NULL, 0) != kids[i])
			die("waitpid");
}

/* The leader waits in read() on a pipe nobody writes: when a thread execs,
 * the kernel ends that read without a return. */
static void *exec_thread(void *arg)
{
	char fdarg[16];
	(void)arg;
	snprintf(fdarg, sizeof(fdarg), "%d", counters_fd);
	int n = 0;
	while (orig_argv[n])
		n++;
	char *argv[n + 4];
	for (int i = 0; i < n; i++)
		argv[i] = orig_argv[i];
	argv[n] = "--phase2";
	argv[n + 1] = "--counters-fd";
	argv[n + 2] = fdarg;
	argv[n + 3] = NULL;
	sleep_ms(50);
	execv("/proc/self/exe", argv);
	die("execv");
	return NULL;
}

static void write_report(void)
{
	char text[8192];
	size_t n = 0;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "{\"syscalls\": {");
	for (int i = 0; i < NSYS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s\"%s\": {\"calls\": %llu, \"bytes\": %llu, \"errors\": %llu}",
				      i ? ", " : "", names[i], atomic_load(&cnt->calls[i]),
				      atomic_load(&cnt->bytes[i]), atomic_load(&cnt->errors[i]));
	n += (size_t)snprintf(text + n, sizeof(text) - n, "}");
	for (int d = 0; d < 2; d++) {
		n += (size_t)snprintf(text + n, sizeof(text) - n, ", \"%s_size_hist\": [",
				      d ? "write" : "read");
		for (int b = 0; b < HIST; b++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%llu", b ? ", " : "",
					      atomic_load(&cnt->hist[d][b]));
		n += (size_t)snprintf(text + n, sizeof(text) - n, "]");
	}
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      ", \"signals\": %u, \"processes\": %u, \"threads\": %u}\n",
			      atomic_load(&cnt->signals), atomic_load(&cnt->processes),
			      atomic_load(&cnt->threads));
	mmap_report(report, text, n); /* not one of the writes it reports */
}

int main(int argc, char **argv)
{
	orig_argv = argv;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
		if (!strcmp(a, "--threads"))
			threads = atoi(v), i++;
		else if (!strcmp(a, "--children"))
			children = atoi(v), i++;
		else if (!strcmp(a, "--rounds"))
			rounds = atoi(v), i++;
		else if (!strcmp(a, "--pause-ms"))
			pause_ms = atoi(v), i++;
		else if (!strcmp(a, "--until-signals"))
			until_signals = (unsigned)atoi(v), i++;
		else if (!strcmp(a, "--report"))
			report = v, i++;
		else if (!strcmp(a, "--counters-fd"))
			counters_fd = atoi(v), i++;
		else if (!strcmp(a, "--tag"))
			i++; /* marks the command line for the tests' cleanup */
		else if (!strcmp(a, "--exec-from-thread"))
			exec_from_thread = true;
		else if (!strcmp(a, "--spawned"))
			spawned = true;
		else if (!strcmp(a, "--phase2"))
			phase2 = true;
		else if (!strcmp(a, "--wait-for-go"))
			wait_for_go = true;
		else {
			fprintf(stderr, "sysio: unknown option %s\n", a);
			return 64;
		}
	}
	if (counters_fd < 0) {
		counters_fd = memfd_create("sysio-counters", 0);
		if (counters_fd < 0 || ftruncate(counters_fd, sizeof(*cnt)) < 0)
			die("counters");
	}
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED, counters_fd, 0);
	if (cnt == MAP_FAILED)
		die("mmap counters");

	if (spawned) {
		atomic_fetch_add(&cnt->processes, 1);
		work();
		return 0;
	}
	struct sigaction sa = {.sa_handler = on_rt, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	if (!phase2)
		atomic_fetch_add(&cnt->processes, 1);

	pid_t elder = 0;
	if (wait_for_go) {
		sigset_t go;
		int sig;
		sigemptyset(&go);
		sigaddset(&go, SIGUSR1);
		sigprocmask(SIG_BLOCK, &go, NULL);
		if ((elder = fork()) < 0)
			die("fork");
		if (elder == 0) {
			sigwait(&go, &sig);
			atomic_fetch_add(&cnt->processes, 1);
			phase();
			_exit(0);
		}
		sigwait(&go, &sig);
		kill(elder, SIGUSR1);
	}
	phase();
	if (elder > 0 && waitpid(elder, NULL, 0) != elder)
		die("waitpid");
	if (exec_from_thread && !phase2) {
		int p[2];
		pthread_t t;
		char c;
		if (pipe(p) < 0)
			die("pipe");
		pthread_create(&t, NULL, exec_thread, NULL);
		syscall(SYS_read, p[0], &c, 1); /* never returns: the exec ends it */
		die("read returned");
	}
	if (report)
		write_report();
	return 0;
}
