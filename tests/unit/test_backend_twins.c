// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Each source with two backends, both on one tree at the same instants.
 * A keeper (a subreaper, as iopsample's, outside the tree's cgroup, as
 * iopsample's) runs, in a cgroup v2 of the test's own, iowork (threads,
 * children, grandchildren, an orphan) and then taskwork io (files
 * written, fsynced, dropped from the cache and read back, dirty pages
 * truncated) under /bin/sh, which forks, execs and reaps between them.
 * Every 10 ms the cgroup is frozen (cgroup.freeze) and the source's two
 * instances, one a backend, take their row: the rows must be equal, every
 * field of every tick. At the end their totals must equal what wait4 says
 * of the keeper's whole tree (ru_inblock, ru_oublock and ru_nvcsw; for
 * taskstats, whose I/O counts are each thread's rounded down to a KiB, as
 * far as that rounding allows) and what the workloads counted themselves. */
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
#include "collector.h"
#include "jsonl_writer.h"
#include "proc_io/pio_backend.h"
#include "taskstats/ts_config.h"
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

/* Whether a thread of the cgroup has begun to exit: the freezer leaves it
 * running (tearing down its memory, closing its files) until it leaves
 * the cgroup. */
static bool exiting(void)
{
	char path[700], list[16384] = "";
	snprintf(path, sizeof(path), "%s/cgroup.threads", cg_dir);
	procfs_read(path, list, sizeof(list));
	for (char *p = list; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		struct proc_stat st;
		if (procfs_read_stat((pid_t)atoi(p), &st) == 0 && (st.flags & PROCFS_PF_EXITING) && st.state != 'Z')
			return true;
	}
	return false;
}

/* Sets cgroup.freeze and waits until cgroup.events says it took (and,
 * frozen, until no thread is on its way out). */
static void freeze(bool on)
{
	EXPECT_EQ(write_file(cg_dir, "cgroup.freeze", on ? "1" : "0"), 0);
	char path[700], buf[256];
	snprintf(path, sizeof(path), "%s/cgroup.events", cg_dir);
	for (int i = 0; i < 2000; i++) {
		ssize_t n = procfs_read(path, buf, sizeof(buf));
		if (n > 0 && strstr(buf, on ? "frozen 1" : "frozen 0") && !(on && exiting()))
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
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		_exit(100);
	char script[2048];
	const char *w = getenv("WORKLOADS");
	snprintf(script, sizeof(script),
		 "for i in 1 2 3; do /bin/true; done; "
		 "%s/iowork --threads 3 --children 2 --orphan --rounds 12 --pause-ms 5 && echo && "
		 "%s/taskwork io %s && echo; (sleep 0.05; exit 3) & wait",
		 w, w, dir);
	/* the workload joins the cgroup before anything is read, and waits */
	pid_t sh = fork();
	if (sh == 0) {
		char pid[32], c;
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (write_file(cg_dir, "cgroup.procs", pid) < 0 || read(go, &c, 1) != 1)
			_exit(126);
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

/* One instance of a source: its config, its row, its totals. */
struct twin {
	struct source_config sc;
	_Alignas(16) unsigned char priv[4096];
	void *state;
	json_t *row, *manifest;
	json_t *total; /* the rows' fields summed: name -> integer */
};

static void twin_open(struct twin *tw, const char *source, const char *backend,
		      const struct target_info *t)
{
	struct errbuf why;
	const struct collector_ops *ops = collector_find(source);
	EXPECT(ops && ops->priv_size <= sizeof(tw->priv));
	tw->sc = (struct source_config){.ops = ops, .interval_ns = 10000000, .priv = tw->priv};
	memset(tw->priv, 0, sizeof(tw->priv));
	ops->init(tw->priv);
	if (!strcmp(source, "proc_io")) {
		((struct pio_config *)tw->priv)->backend = !strcmp(backend, "bpf") ? PIO_BPF : PIO_PROCFS;
	} else {
		struct ts_config *c = (struct ts_config *)tw->priv;
		char v[8] = "";
		c->backend = !strcmp(backend, "bpf") ? TS_BPF : TS_NETLINK;
		c->found_on = c->on = procfs_read("/proc/sys/kernel/task_delayacct", v, sizeof(v)) > 0 && v[0] == '1';
		snprintf(c->why_off, sizeof(c->why_off), "kernel.task_delayacct is off here");
	}
	tw->manifest = json_object();
	tw->row = json_object();
	tw->total = json_object();
	int r = ops->probe(&tw->sc, t, tw->manifest, &why);
	if (r == 0)
		r = ops->open(&tw->sc, t, tw->row, tw->manifest, &tw->state, &why);
	if ((r == -EPERM || r == -EACCES) && !strcmp(backend, "bpf"))
		SKIP("bpf() is refused here");
	if (r < 0)
		FAILF("%s %s: %s", source, backend, why.msg);
	json_t *b = json_object_get(tw->manifest, "backend");
	EXPECT(b && !strcmp(json_string_value(b), backend));
}

static void twin_sample(struct twin *tw)
{
	struct errbuf why;
	if (tw->sc.ops->sample(tw->state, &why) < 0)
		FAILF("%s: %s", tw->sc.ops->name, why.msg);
	const char *k;
	json_t *v;
	json_object_foreach(tw->row, k, v) {
		if (!json_is_integer(v))
			continue;
		json_t *sum = json_object_get(tw->total, k);
		json_object_set_new(tw->total, k, json_integer((sum ? json_integer_value(sum) : 0) + json_integer_value(v)));
	}
}

static long long total_of(const struct twin *tw, const char *field)
{
	json_t *v = json_object_get(tw->total, field);
	if (!v)
		FAILF("%s has no %s", tw->sc.ops->name, field);
	return json_integer_value(v);
}

/* Closes tw: its readings that walked nothing (tree.bpf.h's TREE_RAN), or
 * -1 for a backend that always reads. */
static long long twin_close(struct twin *tw)
{
	if (tw->state)
		tw->sc.ops->close(tw->state);
	json_t *still = json_object_get(tw->manifest, "readings_still");
	long long n = still ? json_integer_value(still) : -1;
	json_decref(tw->manifest);
	json_decref(tw->row);
	json_decref(tw->total);
	return n;
}

/* The two backends' rows at one reading, field by field. */
static void expect_equal_rows(const struct twin *one, const struct twin *two, int tick,
			      const char *const backends[2])
{
	if (json_equal(one->row, two->row))
		return;
	char diff[2048] = "";
	size_t len = 0;
	const char *k;
	json_t *v;
	json_object_foreach(one->row, k, v) {
		json_t *w = json_object_get(two->row, k);
		if (w && json_equal(v, w))
			continue;
		char *a = json_dumps(v, JSON_ENCODE_ANY), *b = w ? json_dumps(w, JSON_ENCODE_ANY) : NULL;
		len += (size_t)snprintf(diff + len, len < sizeof(diff) ? sizeof(diff) - len : 0,
					" %s %s/%s", k, a, b ? b : "-");
		free(a);
		free(b);
	}
	FAILF("tick %d, %s/%s:%s", tick, backends[0], backends[1], diff);
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

static void run_twins(const char *source, const char *const backends[2], bool by_cgroup)
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
	for (int i = 0; i < 1000; i++) { /* until the workload is in the cgroup */
		char path[700], buf[64] = "";
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
		if (procfs_read(path, buf, sizeof(buf)) > 0 && atoi(buf) > 0)
			break;
		sleep_ms(1);
	}
	struct cgroup_set set = {.owned = true};
	snprintf(set.dir[CGR_V2], sizeof(set.dir[CGR_V2]), "%s", cg_dir);
	struct target_info t = {.pid = keeper, .keeper = keeper, .observer = getpid(),
				.cgroups = by_cgroup ? &set : NULL};
	struct twin one = {0}, two = {0};
	twin_open(&one, source, backends[0], &t);
	twin_open(&two, source, backends[1], &t);
	EXPECT_EQ(write(go[1], "g", 1), 1);

	int ticks = 0, status = 0;
	for (bool ended = false; !ended; ticks++) {
		sleep_ms(10);
		struct proc_stat st;
		ended = procfs_read_stat(keeper, &st) < 0 || st.state == 'Z';
		freeze(true);
		sleep_ms(1); /* an exit past its cgroup_exit() finishes */
		/* every fourth tick twice: the second time nothing of the tree
		 * ran since the first, and the bpf backend walks nothing */
		for (int again = ticks % 4 ? 1 : 2; again--;) {
			twin_sample(&one);
			twin_sample(&two);
			expect_equal_rows(&one, &two, ticks, backends);
		}
		freeze(false);
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
	long long wchar = (long long)reported(text, "wchar"), syscw = (long long)reported(text, "syscw");
	long long read_b = (long long)reported(text, "read"), written = (long long)reported(text, "written");
	long long threads = (long long)reported(text, "threads");
	for (struct twin *tw = &one; tw; tw = tw == &one ? &two : NULL) {
		bool ts = !strcmp(source, "taskstats");
		long long r = total_of(tw, "read_bytes"), w = total_of(tw, "write_bytes");
		long long wc = total_of(tw, ts ? "write_chars" : "wchar");
		long long wcalls = ts ? -1 : total_of(tw, "syscw");
		/* taskstats rounds each thread's counters down to a KiB: below
		 * the exact sums by less than a KiB a thread */
		long long slack = ts ? 1024 * (threads + 64) : 0;
		if (r > (long long)ru.ru_inblock * 512 || r < (long long)ru.ru_inblock * 512 - slack)
			FAILF("%s read_bytes %lld, wait4's ru_inblock %ld blocks", source, r, ru.ru_inblock);
		if (w > (long long)ru.ru_oublock * 512 || w < (long long)ru.ru_oublock * 512 - slack)
			FAILF("%s write_bytes %lld, wait4's ru_oublock %ld blocks", source, w, ru.ru_oublock);
		/* the tree wrote more than the workloads (the shell's echo, the
		 * reports): at least what they counted */
		EXPECT(wc >= wchar - slack && (ts || wcalls >= syscw));
		EXPECT(r >= read_b - slack && w >= written - slack);
		if (ts) /* ru_nvcsw: the keeper's own too, which taskstats leaves out */
			EXPECT(total_of(tw, "voluntary_ctxsw") <= ru.ru_nvcsw &&
			       total_of(tw, "voluntary_ctxsw") >= ru.ru_nvcsw / 2);
	}
	EXPECT_EQ(twin_close(&one), -1);
	EXPECT(twin_close(&two) >= ticks / 4); /* the bpf backend's */
	close(out);
	clean_up();
}

static const char *const proc_io_backends[2] = {"procfs", "bpf"};
static const char *const taskstats_backends[2] = {"netlink", "bpf"};

TEST(proc_io_backends_equal_tick_by_tick_found_by_cgroup)
{
	run_twins("proc_io", proc_io_backends, true);
}

TEST(proc_io_backends_equal_tick_by_tick_found_by_walk)
{
	run_twins("proc_io", proc_io_backends, false);
}

TEST(taskstats_backends_equal_tick_by_tick_found_by_cgroup)
{
	run_twins("taskstats", taskstats_backends, true);
}

TEST(taskstats_backends_equal_tick_by_tick_found_by_walk)
{
	run_twins("taskstats", taskstats_backends, false);
}
