// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io's two backends on one tree at the same instants. A keeper (a
 * subreaper, as iopsample's) runs iowork (threads, children, grandchildren,
 * an orphan) and then taskwork io (files written, fsynced, dropped from the
 * cache and read back, dirty pages truncated) under /bin/sh, which forks,
 * execs and reaps between them. Every 10 ms the tree is frozen (cgroup v2's
 * cgroup.freeze) and both backends read it: their changes must be equal,
 * field by field, tick by tick, and nprocs too. At the end their totals
 * must equal what wait4 says of the keeper's whole tree (ru_inblock and
 * ru_oublock are its read_bytes and write_bytes in 512-byte blocks) and
 * what the workloads counted themselves (iowork's wchar and syscw). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "proc_io/pio_backend.h"
#include "testing.h"

static char cg_dir[480];
static char work_dir[64];
static pid_t keeper_pid;

/* However a test ends: the tree thawed and killed, its cgroup and files
 * gone (a failed expectation leaves the test by longjmp). */
static void clean_up(void)
{
	char path[520];
	if (keeper_pid > 0)
		kill(keeper_pid, SIGKILL);
	if (cg_dir[0]) {
		snprintf(path, sizeof(path), "%s/cgroup.freeze", cg_dir);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, "0", 1);
			close(fd);
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
		for (int i = 0; i < 1000 && rmdir(cg_dir) < 0 && errno == EBUSY; i++) {
			char buf[4096] = "";
			procfs_read(path, buf, sizeof(buf));
			for (char *p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
				kill(atoi(p), SIGKILL);
			usleep(1000);
		}
		cg_dir[0] = '\0';
	}
	if (keeper_pid > 0)
		waitpid(keeper_pid, NULL, 0);
	keeper_pid = 0;
	if (work_dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", work_dir);
		(void)!system(cmd);
		work_dir[0] = '\0';
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int r = n == (ssize_t)strlen(text) ? 0 : -errno;
	close(fd);
	return r;
}

/* Sets cgroup.freeze and waits until cgroup.events says it took. */
static void freeze(bool on)
{
	EXPECT_EQ(write_file(cg_dir, "cgroup.freeze", on ? "1" : "0"), 0);
	char path[700], buf[256];
	snprintf(path, sizeof(path), "%s/cgroup.events", cg_dir);
	for (int i = 0; i < 2000; i++) {
		ssize_t n = procfs_read(path, buf, sizeof(buf));
		if (n > 0 && strstr(buf, on ? "frozen 1" : "frozen 0"))
			return;
		sleep_ms(1);
	}
	FAILF("%s never said frozen %d", path, on);
}

/* A cgroup v2 directory of this test's own, or why not. */
static const char *make_cgroup(void)
{
	struct cgroupfs fs;
	if (cgroupfs_read(0, &fs) < 0)
		return "no cgroup hierarchy here";
	const struct cgroupfs_hierarchy *v2 = cgroupfs_v2(&fs);
	if (!v2)
		return "no cgroup v2 hierarchy here to freeze a tree in";
	static int made;
	char name[64];
	snprintf(name, sizeof(name), "iopsample-twins-%d-%d", (int)getpid(), ++made);
	if (cgroupfs_path(v2, name, cg_dir, sizeof(cg_dir)) < 0 || mkdir(cg_dir, 0755) < 0)
		return "cannot make a cgroup v2 directory (not root?)";
	char path[700];
	snprintf(path, sizeof(path), "%s/cgroup.freeze", cg_dir);
	if (access(path, W_OK) < 0) {
		rmdir(cg_dir);
		return "the kernel has no cgroup v2 freezer (Linux 5.2)";
	}
	return NULL;
}

/* The keeper: a subreaper in the cgroup that waits for "go" on fd go,
 * runs the workloads with their output to out, and reaps all. */
static pid_t start_keeper(int go, int out, const char *dir)
{
	pid_t k = fork();
	if (k != 0)
		return k;
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || write_file(cg_dir, "cgroup.procs", pid) < 0)
		_exit(100);
	char c;
	if (read(go, &c, 1) != 1)
		_exit(101);
	char script[2048];
	const char *w = getenv("WORKLOADS");
	snprintf(script, sizeof(script),
		 "for i in 1 2 3; do /bin/true; done; "
		 "%s/iowork --threads 3 --children 2 --orphan --rounds 12 --pause-ms 5 && echo && "
		 "%s/taskwork io %s && echo; (sleep 0.05; exit 3) & wait",
		 w, w, dir);
	pid_t sh = fork();
	if (sh == 0) {
		dup2(out, 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	int status, failed = 0;
	pid_t p;
	while ((p = wait(&status)) > 0 || errno == EINTR)
		if (p == sh && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			failed = 1;
	_exit(failed ? 102 : 0);
}

struct twin {
	const struct pio_backend *b;
	void *state;
	json_t *manifest;
	uint64_t total[IO_NFIELDS];
	unsigned nprocs;
};

static void twin_open(struct twin *tw, const struct pio_backend *b, const struct target_info *t)
{
	struct errbuf why;
	tw->b = b;
	tw->manifest = json_object();
	int r = b->open(t, tw->manifest, &tw->state, &why);
	if (r == -EPERM && b == &pio_bpf)
		SKIP("bpf() is refused here");
	if (r < 0)
		FAILF("%s: %s", b->name, why.msg);
}

static void twin_read(struct twin *tw, uint64_t delta[IO_NFIELDS])
{
	struct errbuf why;
	if (tw->b->measure(tw->state, delta, &tw->nprocs, &why) < 0)
		FAILF("%s: %s", tw->b->name, why.msg);
	for (int f = 0; f < IO_NFIELDS; f++)
		tw->total[f] += delta[f];
}

static void twin_close(struct twin *tw)
{
	if (tw->state)
		tw->b->close(tw->state);
	json_decref(tw->manifest);
}

/* The workloads' reports, one JSON object a line: the first's key. */
static uint64_t reported(const char *text, const char *key)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		json_t *o = json_loadb(line, strcspn(line, "\n"), 0, NULL);
		json_t *v = o ? json_object_get(o, key) : NULL;
		uint64_t n = v ? (uint64_t)json_integer_value(v) : 0;
		json_decref(o);
		if (v)
			return n;
	}
	FAILF("no workload reported %s in: %s", key, text);
}

static void run_twins(bool by_cgroup)
{
	if (getenv("IOPSAMPLE_MEMCHECK"))
		SKIP("valgrind does not implement bpf(2)");
	clean_up(); /* what a failed test before left */
	static bool registered;
	if (!registered)
		registered = atexit(clean_up) == 0;
	const char *no = make_cgroup();
	if (no) {
		cg_dir[0] = '\0';
		SKIP(no);
	}
	char outpath[] = "/var/tmp/iopsample-twins-out-XXXXXX";
	snprintf(work_dir, sizeof(work_dir), "/var/tmp/iopsample-twins-XXXXXX");
	EXPECT(mkdtemp(work_dir) != NULL);
	const char *dir = work_dir;
	int out = mkstemp(outpath);
	EXPECT(out >= 0);
	unlink(outpath);
	int go[2];
	EXPECT_EQ(pipe2(go, O_CLOEXEC), 0);
	pid_t keeper = keeper_pid = start_keeper(go[0], out, dir);
	EXPECT(keeper > 0);
	close(go[0]);
	for (int i = 0; i < 1000; i++) { /* until the keeper is in the cgroup */
		char path[700], buf[64] = "";
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
		if (procfs_read(path, buf, sizeof(buf)) > 0 && atoi(buf) == keeper)
			break;
		sleep_ms(1);
	}

	struct cgroup_set set = {.owned = true};
	snprintf(set.dir[CGR_V2], sizeof(set.dir[CGR_V2]), "%s", cg_dir);
	struct target_info t = {.pid = keeper, .keeper = keeper, .observer = getpid(),
				.cgroups = by_cgroup ? &set : NULL};
	struct twin procfs = {0}, bpf = {0};
	twin_open(&bpf, &pio_bpf, &t);
	twin_open(&procfs, &pio_procfs, &t);
	EXPECT_EQ(write(go[1], "g", 1), 1);

	int ticks = 0, status = 0, busy = 0;
	for (bool ended = false; !ended; ticks++) {
		sleep_ms(10);
		struct proc_stat st;
		ended = procfs_read_stat(keeper, &st) < 0 || st.state == 'Z';
		freeze(true);
		sleep_ms(3); /* an exit past its cgroup_exit() finishes */
		uint64_t a[IO_NFIELDS], b[IO_NFIELDS];
		twin_read(&procfs, a);
		twin_read(&bpf, b);
		freeze(false);
		for (int f = 0; f < IO_NFIELDS; f++)
			if (a[f] != b[f])
				FAILF("tick %d: %s procfs %llu, bpf %llu", ticks, procfs_io_names[f],
				      (unsigned long long)a[f], (unsigned long long)b[f]);
		if (procfs.nprocs != bpf.nprocs)
			FAILF("tick %d: nprocs procfs %u, bpf %u", ticks, procfs.nprocs, bpf.nprocs);
		busy += a[IO_SYSCW] > 0;
		EXPECT(ticks < 3000);
	}
	struct rusage ru;
	EXPECT_EQ(wait4(keeper, &status, 0, &ru), keeper);
	keeper_pid = 0;
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	char text[4096] = "";
	ssize_t n = pread(out, text, sizeof(text) - 1, 0);
	EXPECT(n > 0);
	text[n] = '\0';
	uint64_t wchar = reported(text, "wchar"), syscw = reported(text, "syscw");
	uint64_t read_b = reported(text, "read"), written = reported(text, "written");
	for (struct twin *tw = &procfs; tw; tw = tw == &procfs ? &bpf : NULL) {
		const char *name = tw->b->name;
		if (tw->total[IO_READ_BYTES] != (uint64_t)ru.ru_inblock * 512)
			FAILF("%s read_bytes %llu, wait4's ru_inblock %ld blocks", name,
			      (unsigned long long)tw->total[IO_READ_BYTES], ru.ru_inblock);
		if (tw->total[IO_WRITE_BYTES] != (uint64_t)ru.ru_oublock * 512)
			FAILF("%s write_bytes %llu, wait4's ru_oublock %ld blocks", name,
			      (unsigned long long)tw->total[IO_WRITE_BYTES], ru.ru_oublock);
		/* the tree wrote more than the workloads (the shell's echo, the
		 * reports): at least what they counted, and no less */
		EXPECT(tw->total[IO_WCHAR] >= wchar && tw->total[IO_SYSCW] >= syscw);
		EXPECT(tw->total[IO_READ_BYTES] >= read_b && tw->total[IO_WRITE_BYTES] >= written);
		EXPECT_EQ(tw->nprocs, 0u);
	}
	EXPECT(busy >= 3); /* the tree did its I/O over several ticks */
	twin_close(&procfs);
	twin_close(&bpf);
	close(out);
	clean_up();
}

TEST(proc_io_backends_equal_tick_by_tick_found_by_cgroup)
{
	run_twins(true);
}

TEST(proc_io_backends_equal_tick_by_tick_found_by_walk)
{
	run_twins(false);
}


