// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* phasework: a job whose bottleneck is injected phase by phase, for the
 * verdict's tests (tests/e2e/verdict.sh). Each phase prints one JSON line
 * when it ends: {"phase": NAME, "start_ns": T, "end_ns": T, ...what it did},
 * times on CLOCK_MONOTONIC since the job started; the first line is
 * {"t0_wall_ns": CLOCK_REALTIME at that start}, so that a test puts the
 * phases on the episode's time (t_wall_start_ns is the origin's).
 *
 *   phasework PHASE...
 *     cpu:S              one thread computes for S seconds
 *     idle:S             sleeps S seconds
 *     dread:S:FILE       O_DIRECT reads of 1 MiB from FILE (a file or a block
 *                        device), in order and round again, for S seconds
 *     pool:S:N:FILE      N worker processes each do dread on FILE for S
 *                        seconds while the parent waits for them (waitpid)
 *     decode:S:N         N worker processes compute and send a result down
 *                        a pipe every 10 ms for S seconds; the parent reads
 *                        them (a data loader's main thread)
 *     pinned:S:GO:STOP   pins itself to CPU 0, creates GO, computes for S
 *                        seconds, creates STOP, and takes its CPUs back
 *     anon:S:MIB         an anonymous working set of MIB MiB, written once
 *                        (the set-up), then one byte of a random page at a
 *                        time for S seconds (under a memory limit below
 *                        MIB, with swap: pages swapped out and in)
 *     swapread:S:MIB:FILE  anon's working set touched at random by the job
 *                        while a worker process does dread on FILE, both
 *                        for S seconds: paging and the disk at once; its
 *                        line says what each waited (disk_ns, paging_ns)
 *     stream:S:FILE      1 MiB reads through the page cache of FILE, in order
 *                        and round again, for S s, after its cache is
 *                        dropped and it is read once (the set-up)
 *     rdlimit:MAJ:MIN:BPS limits its own cgroup's reads from device MAJ:MIN to
 *                        BPS bytes a second (0: no limit): cgroup v1
 *                        blkio.throttle.read_bps_device, else v2 io.max
 *     memlimit:BYTES     limits its own cgroup's memory to BYTES (0: no
 *                        limit): v1 memory.limit_in_bytes, else v2 memory.max
 *     memhigh:BYTES      sets its own cgroup's memory.high (v2 only; 0: max)
 *     churn:S:MIB:HIGH   anon's working set held, then memhigh:HIGH, and
 *                        for S seconds 4 MiB mapped, written and unmapped
 *                        over and over (each chunk charged anew past the
 *                        limit), then memhigh:0
 *
 *   read:S:FILE        reads of 128 KiB through the page cache of FILE, in
 *                        order, for S seconds (a file on a FUSE mount whose
 *                        daemon answers slowly: the reads wait on it)
 *   recv:S:PORT        connects to 127.0.0.1:PORT and receives what it sends
 *                        for S seconds (a server that sends slowly)
 *   lock:S:N           N threads take one mutex in turn, each holding it
 *                        asleep for 10 ms, for S seconds: the others wait
 *                        on it (a futex); the main thread joins them
 *   child:S:N          a child sleeps S seconds while N threads of the
 *                        parent wait for it (waitid WNOWAIT), then reap it
 *   fifo:S:PATH        reads the FIFO at PATH for S seconds (a writer
 *                        outside the tree writes slowly)
 *
 *   phasework hog GO STOP
 *     for the processes outside the tree: pinned to CPU 0, waits for GO,
 *     then computes until STOP exists. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)
#define PAGE 4096

static int64_t t0;
/* When the running phase began: a phase with a set-up (anon's first
 * touch, stream's first pass) moves it to where its steady part begins,
 * and its line gives the set-up's start as "setup_ns". */
static int64_t phase_start, setup_start;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t since_start(void)
{
	return mono_ns() - t0;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	close(fd);
}

/* A few microseconds of arithmetic the compiler cannot drop. */
static void compute(void)
{
	static volatile uint64_t x = 1;
	uint64_t v = x;
	for (int i = 0; i < 20000; i++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	x = v;
}

static uint64_t compute_until(int64_t end)
{
	uint64_t rounds = 0;
	while (mono_ns() < end) {
		compute();
		rounds++;
	}
	return rounds;
}

static void *aligned_buffer(size_t n)
{
	void *p;
	if (posix_memalign(&p, PAGE, n))
		die("posix_memalign");
	memset(p, 0, n);
	return p;
}

/* O_DIRECT 1 MiB reads until end: {reads, bytes}. */
static void direct_reads(const char *file, int64_t end, uint64_t *reads, uint64_t *bytes, off_t start)
{
	int fd = open(file, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		die(file);
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < MIB)
		die("file smaller than 1 MiB");
	char *buf = aligned_buffer(MIB);
	off_t at = (start / MIB * MIB) % (size / MIB * MIB);
	while (mono_ns() < end) {
		ssize_t n = pread(fd, buf, MIB, at);
		if (n < 0)
			die("pread");
		*reads += 1;
		*bytes += (uint64_t)n;
		at = n < MIB || at + 2 * MIB > size ? 0 : at + MIB;
	}
	free(buf);
	close(fd);
}

/* A phase's set-up is over: its steady part starts now, and ends as long
 * after as *end was after the phase's start. */
static void steady(int64_t *end)
{
	int64_t now = mono_ns();
	*end += now - (t0 + phase_start);
	setup_start = phase_start;
	phase_start = now - t0;
}

/* Drops what the page cache holds of fd (its pages are clean). */
static void drop_cache(int fd)
{
	if (fdatasync(fd) < 0 && errno != EINVAL)
		die("fdatasync");
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("posix_fadvise");
}

/* 1 MiB reads through the page cache, in order and round again, until end. */
static void buffered_reads(int fd, int64_t end, uint64_t *reads, uint64_t *bytes)
{
	char *buf = aligned_buffer(MIB);
	off_t at = 0;
	while (mono_ns() < end) {
		ssize_t got = pread(fd, buf, MIB, at);
		if (got < 0)
			die("pread");
		*reads += 1;
		*bytes += (uint64_t)got;
		at = got < MIB ? 0 : at + MIB;
	}
	free(buf);
}

/* An anonymous working set of size bytes, written once. */
static volatile unsigned char *anon_set(size_t size)
{
	volatile unsigned char *map =
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		die("mmap");
	for (size_t at = 0; at < size; at += PAGE)
		map[at] = 1;
	return map;
}

/* One byte of a random page of the set at a time, until end. */
static void anon_touch(volatile unsigned char *map, size_t size, int64_t end, uint64_t *touches)
{
	uint64_t seed = 88172645463325252ull, pages = size / PAGE;
	while (mono_ns() < end)
		for (int i = 0; i < 64; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			map[(seed % pages) * PAGE] += 1;
			*touches += 1;
		}
}

static void anon(size_t size, int64_t end, uint64_t *touches)
{
	volatile unsigned char *map = anon_set(size);
	steady(&end);
	anon_touch(map, size, end, touches);
	munmap((void *)map, size);
}

static int64_t cpu_ns(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The time this process's thread waited runnable for a CPU: the second
 * figure of /proc/thread-self/schedstat. */
static int64_t runqueue_ns(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	long long on_cpu = 0, waited = 0;
	if (!f || fscanf(f, "%lld %lld", &on_cpu, &waited) != 2)
		die("/proc/thread-self/schedstat");
	fclose(f);
	return waited;
}

static int64_t user_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (int64_t)ru.ru_utime.tv_sec * 1000000000 + (int64_t)ru.ru_utime.tv_usec * 1000;
}

/* The working set paging while a worker process reads FILE with O_DIRECT:
 * the tree waits on the disk and on pages at once. What each waited, for
 * the verdict's test: the reader its time neither on a CPU nor waiting for
 * one (wall less its CPU time and its run-queue wait), the job its time
 * neither running its own code nor waiting for a CPU (its faults' kernel
 * time is paging's). */
static void swapread(size_t size, int64_t end, const char *file, uint64_t *touches,
		     uint64_t *reads, uint64_t *bytes, int64_t *disk_ns, int64_t *paging_ns)
{
	volatile unsigned char *map = anon_set(size);
	steady(&end);
	int fds[2];
	if (pipe(fds) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		uint64_t got[3] = {0, 0, 0};
		int64_t wall = mono_ns(), cpu = cpu_ns(CLOCK_PROCESS_CPUTIME_ID), queued = runqueue_ns();
		direct_reads(file, end, &got[0], &got[1], 0);
		got[2] = (uint64_t)((mono_ns() - wall) - (cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu) -
				    (runqueue_ns() - queued));
		if (write(fds[1], got, sizeof(got)) != sizeof(got))
			die("write");
		_exit(0);
	}
	close(fds[1]);
	int64_t wall = mono_ns(), user = user_ns(), queued = runqueue_ns();
	anon_touch(map, size, end, touches);
	*paging_ns = (mono_ns() - wall) - (user_ns() - user) - (runqueue_ns() - queued);
	uint64_t got[3] = {0, 0, 0};
	if (read(fds[0], got, sizeof(got)) != sizeof(got) || waitpid(pid, NULL, 0) != pid)
		die("the reader");
	close(fds[0]);
	*reads = got[0];
	*bytes = got[1];
	*disk_ns = (int64_t)got[2];
	munmap((void *)map, size);
}

/* ---- cgroup limits: the job's own cgroup, v1 controller or v2 ------------- */

/* The job's cgroup file for a v1 controller (/sys/fs/cgroup/CONTROLLER/PATH/
 * FILE), else the v2 one (V2FILE under the cgroup2 mount): 0 or -1. */
static int own_cgroup_file(const char *controller, const char *file, const char *v2file, char *out,
			   size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		die("/proc/self/cgroup");
	char line[4096], v2[4096] = "";
	int found = -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *ctrls = strchr(line, ':'), *path = ctrls ? strchr(ctrls + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = 0;
		ctrls++;
		if (!*ctrls) {
			snprintf(v2, sizeof(v2), "%s", path);
			continue;
		}
		for (char *save = NULL, *c = strtok_r(ctrls, ",", &save); c; c = strtok_r(NULL, ",", &save))
			if (!strcmp(c, controller)) {
				snprintf(out, len, "/sys/fs/cgroup/%s%s/%s", controller, path, file);
				found = exists(out) ? 0 : -1;
			}
	}
	fclose(f);
	if (found == 0)
		return 0;
	static const char *const mounts[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(out, len, "%s%s/%s", mounts[i], v2, v2file);
		if (exists(out))
			return 0;
	}
	return -1;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

static void rdlimit(const char *dev, long long bps)
{
	char path[4200], text[128];
	if (own_cgroup_file("blkio", "blkio.throttle.read_bps_device", "io.max", path, sizeof(path)))
		die("no blkio.throttle.read_bps_device or io.max in the job's cgroup");
	if (strstr(path, "blkio.throttle"))
		snprintf(text, sizeof(text), "%s %lld", dev, bps);
	else if (bps)
		snprintf(text, sizeof(text), "%s rbps=%lld", dev, bps);
	else
		snprintf(text, sizeof(text), "%s rbps=max", dev);
	write_file(path, text);
}

/* memory.high of the job's own v2 cgroup (0: max); v1 has none. */
static void memhigh(long long bytes)
{
	char path[4200], text[64];
	if (own_cgroup_file("memory", "memory.high (cgroup v2 only)", "memory.high", path, sizeof(path)) ||
	    !strstr(path, "memory.high"))
		die("no memory.high in the job's cgroup (cgroup v2 only)");
	snprintf(text, sizeof(text), bytes ? "%lld" : "max", bytes);
	write_file(path, text);
}

/* A working set held, then its cgroup's memory.high set to high bytes
 * (below it), and for S seconds 4 MiB mapped, written and unmapped over
 * and over: each chunk charged anew past the limit, for which the kernel
 * makes the job reclaim (nothing it can, anonymous pages and no swap) and
 * sleep; memory.high back to max at the end. */
static void churn(size_t size, long long high, int64_t end, uint64_t *chunks)
{
	volatile unsigned char *map = anon_set(size);
	memhigh(high);
	steady(&end);
	while (mono_ns() < end) {
		volatile unsigned char *c = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			die("mmap");
		for (size_t at = 0; at < 4 * MIB; at += PAGE)
			c[at] = 1;
		munmap((void *)c, 4 * MIB);
		*chunks += 1;
	}
	memhigh(0);
	munmap((void *)map, size);
}

static void memlimit(long long bytes)
{
	char path[4200], text[64];
	if (own_cgroup_file("memory", "memory.limit_in_bytes", "memory.max", path, sizeof(path)))
		die("no memory.limit_in_bytes or memory.max in the job's cgroup");
	if (bytes)
		snprintf(text, sizeof(text), "%lld", bytes);
	else
		snprintf(text, sizeof(text), strstr(path, "memory.max") ? "max" : "-1");
	write_file(path, text);
}

/* ---- the phases -------------------------------------------------------------- */

static void report(const char *phase, const char *more)
{
	printf("{\"phase\": \"%s\", \"start_ns\": %lld, \"end_ns\": %lld", phase,
	       (long long)phase_start, (long long)since_start());
	if (setup_start >= 0)
		printf(", \"setup_ns\": %lld", (long long)setup_start);
	printf("%s%s}\n", more[0] ? ", " : "", more);
	fflush(stdout);
}

static double seconds_of(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || v < 0)
		die("a phase's seconds");
	return v;
}

static int64_t end_after(double s)
{
	return mono_ns() + (int64_t)(s * 1e9);
}

/* n worker processes, each running work(i, the pipe's write end, arg) and
 * exiting; the pipe's read end, for what they send. */
static int workers(int n, void (*work)(int i, int out, void *arg), void *arg)
{
	int fds[2];
	if (pipe(fds) < 0)
		die("pipe");
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			work(i, fds[1], arg);
			_exit(0);
		}
	}
	close(fds[1]);
	return fds[0];
}

struct pool_job {
	const char *file;
	int64_t end;
};

static void pool_worker(int i, int out, void *arg)
{
	const struct pool_job *job = arg;
	uint64_t got[2] = {0, 0};
	direct_reads(job->file, job->end, &got[0], &got[1], (off_t)i * 64 * MIB);
	if (write(out, got, sizeof(got)) != sizeof(got))
		die("write");
}

/* workers on the disk, the parent waiting for them */
static void phase_pool(double s, int n, const char *file, uint64_t *reads, uint64_t *bytes)
{
	struct pool_job job = {file, end_after(s)};
	int in = workers(n, pool_worker, &job);
	while (wait(NULL) > 0)
		;
	uint64_t got[2];
	while (read(in, got, sizeof(got)) == sizeof(got)) {
		*reads += got[0];
		*bytes += got[1];
	}
	close(in);
}

static void decode_worker(int i, int out, void *arg)
{
	int64_t end = *(const int64_t *)arg;
	(void)i;
	while (mono_ns() < end) {
		uint64_t rounds = compute_until(mono_ns() + 10000000);
		if (write(out, &rounds, sizeof(rounds)) != sizeof(rounds))
			die("write");
	}
}

/* workers computing, the parent reading a result from each every 10 ms */
static void phase_decode(double s, int n, uint64_t *results)
{
	int64_t end = end_after(s);
	int in = workers(n, decode_worker, &end);
	uint64_t r;
	while (read(in, &r, sizeof(r)) == sizeof(r))
		*results += 1;
	close(in);
	while (wait(NULL) > 0)
		;
}

/* reads of 128 KiB through the page cache, in order, round again */
static void cached_reads(const char *file, int64_t end, uint64_t *reads, uint64_t *bytes)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(file);
	static char buf[128 * 1024];
	while (mono_ns() < end) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0)
			die("read");
		if (n == 0 && lseek(fd, 0, SEEK_SET) < 0)
			die("lseek");
		*reads += n > 0;
		*bytes += (uint64_t)n;
	}
	close(fd);
}

static void receive(int port, int64_t end, uint64_t *bytes)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0)
		die("connect");
	static char buf[64 * 1024];
	struct timeval tick = {0, 100000}; /* to look at the time when nothing comes */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick));
	while (mono_ns() < end) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0)
			*bytes += (uint64_t)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	close(fd);
}

static pthread_mutex_t one_lock = PTHREAD_MUTEX_INITIALIZER;

struct lock_job {
	int64_t end;
	uint64_t taken;
};

static void *lock_worker(void *arg)
{
	struct lock_job *job = arg;
	while (mono_ns() < job->end) {
		pthread_mutex_lock(&one_lock);
		struct timespec t = {0, 10000000};
		nanosleep(&t, NULL);
		job->taken++;
		pthread_mutex_unlock(&one_lock);
	}
	return NULL;
}

static uint64_t contend(int n, int64_t end)
{
	pthread_t t[64];
	struct lock_job job[64];
	n = n > 64 ? 64 : n;
	for (int i = 0; i < n; i++) {
		job[i] = (struct lock_job){end, 0};
		if (pthread_create(&t[i], NULL, lock_worker, &job[i]))
			die("pthread_create");
	}
	uint64_t taken = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		taken += job[i].taken;
	}
	return taken;
}

static void *child_waiter(void *arg)
{
	siginfo_t info;
	waitid(P_PID, (id_t)(intptr_t)arg, &info, WEXITED | WNOWAIT);
	return NULL;
}

/* a child asleep, n threads waiting for it */
static void wait_child(double s, int n)
{
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
		while (nanosleep(&t, &t) < 0)
			;
		_exit(0);
	}
	pthread_t t[64];
	n = n > 64 ? 64 : n;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, child_waiter, (void *)(intptr_t)child))
			die("pthread_create");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	waitpid(child, NULL, 0);
}

static void fifo_reads(const char *path, int64_t end, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	char buf[4096];
	while (mono_ns() < end) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		*bytes += (uint64_t)n;
	}
	close(fd);
}

static void run_phase(char *spec)
{
	char *arg[6] = {0};
	int n = 0;
	for (char *save = NULL, *p = strtok_r(spec, ":", &save); p && n < 6; p = strtok_r(NULL, ":", &save))
		arg[n++] = p;
	const char *name = arg[0];
	phase_start = since_start();
	setup_start = -1;
	char more[256] = "";
	if (!strcmp(name, "cpu") && n == 2) {
		uint64_t rounds = compute_until(end_after(seconds_of(arg[1])));
		snprintf(more, sizeof(more), "\"rounds\": %llu", (unsigned long long)rounds);
	} else if (!strcmp(name, "idle") && n == 2) {
		double s = seconds_of(arg[1]);
		struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
		while (nanosleep(&t, &t) < 0)
			;
	} else if (!strcmp(name, "dread") && n == 3) {
		uint64_t reads = 0, bytes = 0;
		direct_reads(arg[2], end_after(seconds_of(arg[1])), &reads, &bytes, 0);
		snprintf(more, sizeof(more), "\"reads\": %llu, \"bytes\": %llu", (unsigned long long)reads,
			 (unsigned long long)bytes);
	} else if (!strcmp(name, "pool") && n == 4) {
		uint64_t reads = 0, bytes = 0;
		phase_pool(seconds_of(arg[1]), atoi(arg[2]), arg[3], &reads, &bytes);
		snprintf(more, sizeof(more), "\"workers\": %d, \"reads\": %llu, \"bytes\": %llu",
			 atoi(arg[2]), (unsigned long long)reads, (unsigned long long)bytes);
	} else if (!strcmp(name, "decode") && n == 3) {
		uint64_t results = 0;
		phase_decode(seconds_of(arg[1]), atoi(arg[2]), &results);
		snprintf(more, sizeof(more), "\"workers\": %d, \"results\": %llu", atoi(arg[2]),
			 (unsigned long long)results);
	} else if (!strcmp(name, "pinned") && n == 4) {
		cpu_set_t all, one;
		if (sched_getaffinity(0, sizeof(all), &all) < 0)
			die("sched_getaffinity");
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			die("sched_setaffinity");
		int64_t end = end_after(seconds_of(arg[1]));
		touch(arg[2]);
		uint64_t rounds = compute_until(end);
		touch(arg[3]);
		if (sched_setaffinity(0, sizeof(all), &all) < 0)
			die("sched_setaffinity");
		snprintf(more, sizeof(more), "\"rounds\": %llu", (unsigned long long)rounds);
	} else if (!strcmp(name, "anon") && n == 3) {
		uint64_t touches = 0;
		anon(atoll(arg[2]) * MIB, end_after(seconds_of(arg[1])), &touches);
		snprintf(more, sizeof(more), "\"touches\": %llu", (unsigned long long)touches);
	} else if (!strcmp(name, "swapread") && n == 4) {
		uint64_t touches = 0, reads = 0, bytes = 0;
		int64_t disk = 0, paging = 0;
		swapread(atoll(arg[2]) * MIB, end_after(seconds_of(arg[1])), arg[3], &touches, &reads, &bytes,
			 &disk, &paging);
		snprintf(more, sizeof(more),
			 "\"touches\": %llu, \"reads\": %llu, \"bytes\": %llu, \"disk_ns\": %lld, "
			 "\"paging_ns\": %lld",
			 (unsigned long long)touches, (unsigned long long)reads, (unsigned long long)bytes,
			 (long long)disk, (long long)paging);
	} else if (!strcmp(name, "stream") && n == 3) {
		uint64_t reads = 0, bytes = 0;
		int fd = open(arg[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(arg[2]);
		drop_cache(fd);
		int64_t end = end_after(seconds_of(arg[1]));
		char *buf = aligned_buffer(MIB);
		for (off_t at = 0; pread(fd, buf, MIB, at) > 0; at += MIB)
			;
		free(buf);
		steady(&end);
		buffered_reads(fd, end, &reads, &bytes);
		close(fd);
		snprintf(more, sizeof(more), "\"reads\": %llu, \"bytes\": %llu", (unsigned long long)reads,
			 (unsigned long long)bytes);
	} else if (!strcmp(name, "rdlimit") && n == 4) {
		char dev[64];
		snprintf(dev, sizeof(dev), "%s:%s", arg[1], arg[2]);
		rdlimit(dev, atoll(arg[3]));
	} else if (!strcmp(name, "memlimit") && n == 2) {
		memlimit(atoll(arg[1]));
	} else if (!strcmp(name, "memhigh") && n == 2) {
		memhigh(atoll(arg[1]));
	} else if (!strcmp(name, "churn") && n == 4) {
		uint64_t chunks = 0;
		churn(atoll(arg[2]) * MIB, atoll(arg[3]), end_after(seconds_of(arg[1])), &chunks);
		snprintf(more, sizeof(more), "\"chunks\": %llu", (unsigned long long)chunks);
	} else if (!strcmp(name, "read") && n == 3) {
		uint64_t reads = 0, bytes = 0;
		cached_reads(arg[2], end_after(seconds_of(arg[1])), &reads, &bytes);
		snprintf(more, sizeof(more), "\"reads\": %llu, \"bytes\": %llu", (unsigned long long)reads,
			 (unsigned long long)bytes);
	} else if (!strcmp(name, "recv") && n == 3) {
		uint64_t bytes = 0;
		receive(atoi(arg[2]), end_after(seconds_of(arg[1])), &bytes);
		snprintf(more, sizeof(more), "\"bytes\": %llu", (unsigned long long)bytes);
	} else if (!strcmp(name, "lock") && n == 3) {
		uint64_t taken = contend(atoi(arg[2]), end_after(seconds_of(arg[1])));
		snprintf(more, sizeof(more), "\"threads\": %d, \"taken\": %llu", atoi(arg[2]),
			 (unsigned long long)taken);
	} else if (!strcmp(name, "child") && n == 3) {
		wait_child(seconds_of(arg[1]), atoi(arg[2]));
		snprintf(more, sizeof(more), "\"threads\": %d", atoi(arg[2]));
	} else if (!strcmp(name, "fifo") && n == 3) {
		uint64_t bytes = 0;
		fifo_reads(arg[2], end_after(seconds_of(arg[1])), &bytes);
		snprintf(more, sizeof(more), "\"bytes\": %llu", (unsigned long long)bytes);
	} else {
		fprintf(stderr, "phasework: unknown phase %s (see the top of phasework.c)\n", name);
		exit(2);
	}
	report(name, more);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "hog")) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			die("sched_setaffinity");
		while (!exists(argv[2]))
			usleep(1000);
		while (!exists(argv[3]))
			for (int i = 0; i < 50; i++)
				compute();
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: phasework PHASE... | phasework hog GO STOP\n");
		return 2;
	}
	struct timespec wall;
	t0 = mono_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	printf("{\"t0_wall_ns\": %lld}\n", (long long)wall.tv_sec * 1000000000 + wall.tv_nsec);
	for (int i = 1; i < argc; i++)
		run_phase(argv[i]);
	return 0;
}
