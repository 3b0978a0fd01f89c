// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waits' procfs backend: each thread of the tree from /proc.
 *
 * Which threads: where the episode has its own cgroup, those its thread
 * list holds (cgroup.threads, v1's tasks), iopsample's keeper left out;
 * else a walk from the target through each process's threads and
 * children. For each, two files kept open and read again with pread:
 * /proc/TID/task/TID/stat (its state, PF_* flags, start) and schedstat (its
 * time on a CPU, on the run queue, and how often it got one). A thread
 * that waits and has not been on a CPU since the last tick, in the same
 * state, waits where it did: nothing more is read. Otherwise its wchan
 * (the function it sleeps in), its syscall (the call and its arguments),
 * its kernel stack where that decides (a fault's wait, as root), and the
 * descriptors the call waits on (wait_fds.h), for wait_classify. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procfs.h"
#include "procfs_files.h"
#include "waits_backend.h"

/* Reads of /proc/TID/syscall for a thread found running at the first */
#define CALL_TRIES 3
enum { FD_STAT, FD_SCHED };

struct waits_procfs {
	struct waits_tick *tk;
	pid_t root, keeper, observer;
	int threads_fd; /* the episode cgroup's thread list, or -1: walk */
	char *buf;
	size_t cap;
	struct pid_list tids, procs, queue;
	struct pidmap tgids; /* the tree's processes this tick */
	bool stack_readable; /* /proc/TID/stack: root */
	bool have_sched;     /* schedstat exists (CONFIG_SCHED_INFO) */
	long hz;             /* clock ticks a second, /proc/TID/stat's starttime's unit */
};

/* What one thread's files said. */
struct seen {
	char state;
	unsigned flags;
	uint64_t start_ns;
	uint64_t run_ns, runq_ns, switches;
	bool have_sched;
};

/* A file of thread tid kept open in *fd, read from offset 0; opened again
 * once when the kept one fails (its thread gone, the id another's now). */
static ssize_t read_kept(pid_t tid, int *fd, const char *name, char *buf, size_t cap)
{
	for (int again = 0; again < 2; again++) {
		if (*fd < 0) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)tid, (int)tid, name);
			if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				return -errno;
		}
		ssize_t n = pread(*fd, buf, cap - 1, 0);
		if (n > 0) {
			buf[n] = '\0';
			return n;
		}
		close(*fd);
		*fd = -1;
	}
	return -ESRCH;
}

/* A thread's own file, read once. */
static ssize_t read_once(pid_t tid, const char *name, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)tid, (int)tid, name);
	return procfs_read(path, buf, cap);
}

static pid_t tgid_of(pid_t tid)
{
	char buf[1024];
	if (read_once(tid, "status", buf, sizeof(buf)) <= 0)
		return 0;
	const char *at = strstr(buf, "\nTgid:");
	return at ? (pid_t)atoi(at + 6) : 0;
}

/* ---- the threads of the tree -------------------------------------------------- */

static int list_threads(struct waits_procfs *p)
{
	p->tids.n = 0;
	if (p->threads_fd >= 0) {
		ssize_t n = procfs_pread_all(p->threads_fd, &p->buf, &p->cap);
		if (n < 0)
			return (int)n;
		return pid_list_parse(p->buf, &p->tids);
	}
	/* a walk: the root's process, then its children's, breadth first */
	p->queue.n = 0;
	int r = pid_list_add(&p->queue, p->root);
	for (size_t i = 0; r == 0 && i < p->queue.n; i++) {
		pid_t pid = p->queue.v[i];
		if (pid == p->observer)
			continue;
		size_t from = p->tids.n;
		if ((r = procfs_threads(pid, &p->tids)) < 0)
			continue; /* gone */
		for (size_t k = from; r == 0 && k < p->tids.n; k++)
			r = procfs_thread_children(pid, p->tids.v[k], &p->queue);
	}
	return r == -ENOMEM ? r : 0;
}

static int read_thread(struct waits_procfs *p, pid_t tid, int fd[2], struct seen *s)
{
	char buf[1024];
	ssize_t n = read_kept(tid, &fd[FD_STAT], "stat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	struct proc_stat st;
	if (procfs_parse_stat(buf, &st) < 0)
		return -EINVAL;
	s->state = st.state;
	s->flags = st.flags;
	s->start_ns = st.starttime * (uint64_t)(NS_PER_S / p->hz);
	s->have_sched = false;
	if (p->have_sched && read_kept(tid, &fd[FD_SCHED], "schedstat", buf, sizeof(buf)) > 0) {
		unsigned long long run, runq, count;
		if (sscanf(buf, "%llu %llu %llu", &run, &runq, &count) == 3) {
			s->run_ns = run;
			s->runq_ns = runq;
			s->switches = count;
			s->have_sched = true;
		}
	}
	return 0;
}

/* ---- where a waiting thread waits ----------------------------------------------- */

/* "nr a0 a1 a2 a3 a4 a5 sp pc", "-1 sp pc" (in no call), or "running"
 * (*running: it ran as it was read). */
static long read_call(pid_t tid, unsigned long args[6], bool *running)
{
	char buf[256];
	*running = false;
	if (read_once(tid, "syscall", buf, sizeof(buf)) <= 0)
		return WAIT_CALL_UNKNOWN;
	*running = !strncmp(buf, "running", 7);
	long nr;
	if (sscanf(buf, "%ld", &nr) != 1)
		return WAIT_CALL_UNKNOWN;
	if (nr < 0)
		return WAIT_NO_CALL;
	if (sscanf(buf, "%*d %lx %lx %lx %lx %lx %lx", &args[0], &args[1], &args[2], &args[3], &args[4],
		   &args[5]) != 6)
		return WAIT_CALL_UNKNOWN;
	return nr;
}

/* /proc/TID/stack's frames ("[<0>] folio_wait_bit_common+0x.../0x..."),
 * from the first outside the scheduler's: how many. */
static size_t read_stack(pid_t tid, char names[WAIT_STACK_MAX + 1][48])
{
	char buf[4096];
	if (read_once(tid, "stack", buf, sizeof(buf)) <= 0)
		return 0;
	size_t n = 0;
	for (char *line = buf; line && *line && n <= WAIT_STACK_MAX; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *name = strchr(line, ']');
		if (!name)
			break;
		name += name[1] == ' ' ? 2 : 1;
		size_t len = strcspn(name, "+\n ");
		snprintf(names[n], 48, "%.*s", (int)len, name);
		if (n || !wait_fn_is_scheduler(names[n]))
			n++;
	}
	return n;
}

static enum wait_class classify(struct waits_procfs *p, struct wait_thread *th, const struct seen *s,
				char fn[48], int *mount)
{
	struct wait_obs o = {.state = s->state, .flags = s->flags};
	char buf[128], frames[WAIT_STACK_MAX + 1][48];
	*mount = -1;
	fn[0] = '\0';
	if (read_once(th->tid, "wchan", buf, sizeof(buf)) > 0 && strcmp(buf, "0")) {
		snprintf(fn, 48, "%.*s", (int)strcspn(buf, "\n"), buf);
		o.fn = fn;
	}
	unsigned long args[6] = {0};
	/* it ran between the reads ("running"): a thread that runs and waits
	 * so fast likely waits again as it did (a fault's page waits come
	 * some thousands a second), so the call is read again, twice at most */
	bool running = true;
	for (int tries = 0; tries < CALL_TRIES && running; tries++)
		o.call = read_call(th->tid, args, &running);
	bool read_now = o.call != WAIT_CALL_UNKNOWN;
	if (read_now)
		th->call = o.call;
	else if (o.fn && !th->fresh)
		o.call = th->call; /* still not read: the call it was last read in, its descriptors not known */
	if (read_now && o.call >= 0) {
		int m;
		o.fds_known = wait_fds_of_call(&p->tk->fds, th->tid, o.call, args, &o.kinds, &o.nfds, &m);
		*mount = m;
		if (m >= 0 && p->tk->fds.mount[m].kind == WFD_FUSE) {
			pid_t d = wait_fds_daemon(&p->tk->fds, m);
			o.daemon_in_tree = d && pidmap_get(&p->tgids, d);
		}
	}
	/* the stack, where the function alone does not decide: a fault's
	 * wait (a swap-in, or a mapped file's page), a call not read (it ran
	 * between the reads), or no wchan (5.10's walk fails under the ORC
	 * unwinder) */
	if (p->stack_readable && ((s->state == 'D' && (!read_now || o.call < 0)) || !o.fn)) {
		size_t n = read_stack(th->tid, frames);
		if (n && !o.fn) {
			snprintf(fn, 48, "%s", frames[0]);
			o.fn = fn;
		}
		for (size_t i = 1; i < n; i++)
			o.stack[o.nstack++] = frames[i];
	}
	/* woken between the reads (no function, no stack, nothing the rules
	 * could place): where it waited at the last tick, the likelier */
	enum wait_class c = wait_classify(&o);
	if (c == WC_OTHER && !o.fn && !o.nstack && !th->fresh) {
		snprintf(fn, 48, "%s", th->fn);
		*mount = th->mount;
		return th->wait;
	}
	return c;
}

/* ---- a tick ------------------------------------------------------------------------ */

static uint64_t boottime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static int measure(struct waits_procfs *p)
{
	/* the tick's time first, as close to the row's as can be: a walk of
	 * hundreds of threads takes milliseconds, which would move each
	 * row's time against its interval */
	uint64_t now = boottime_ns();
	int r = list_threads(p);
	if (r < 0)
		return r;
	struct wait_account *a = &p->tk->acct;
	wait_account_begin(a, now);
	pidmap_clear(&p->tgids);
	struct seen *seen = calloc(p->tids.n ? p->tids.n : 1, sizeof(*seen));
	struct wait_thread **th = calloc(p->tids.n ? p->tids.n : 1, sizeof(*th));
	/* th[] holds the account's threads through the tick: room for every
	 * one first, so that none moves */
	if (!seen || !th || wait_account_reserve(a, a->n + p->tids.n) < 0) {
		free(seen);
		free(th);
		return -ENOMEM;
	}
	/* first each thread's state and counts, and the tree's processes */
	for (size_t i = 0; i < p->tids.n; i++) {
		pid_t tid = p->tids.v[i];
		int64_t *at = pidmap_get(&a->index, tid);
		struct wait_thread *known = at ? &a->t[*at] : NULL;
		/* its files, taken out of its entry while they are read: a new
		 * lifetime in its place would close them */
		int fd[2] = {-1, -1};
		if (known) {
			memcpy(fd, known->fd, sizeof(fd));
			known->fd[0] = known->fd[1] = -1;
		}
		int got = read_thread(p, tid, fd, &seen[i]);
		pid_t tgid = known && known->start_ns == seen[i].start_ns ? known->tgid : tgid_of(tid);
		if (got < 0 || !tgid || tgid == p->keeper || tgid == p->observer) {
			for (int f = 0; f < 2; f++)
				if (fd[f] >= 0)
					close(fd[f]);
			continue;
		}
		if (!(th[i] = wait_account_thread(a, tid, tgid, seen[i].start_ns))) {
			r = -ENOMEM;
			break;
		}
		memcpy(th[i]->fd, fd, sizeof(fd));
		if ((r = pidmap_add(&p->tgids, tgid, 0)) < 0)
			break;
		r = 0;
	}
	/* then where each waits, its tree known */
	for (size_t i = 0; r == 0 && i < p->tids.n; i++) {
		struct wait_thread *t = th[i];
		const struct seen *s = &seen[i];
		if (!t || s->state == 'Z' || s->state == 'X')
			continue;
		enum wait_class wait = WC_OTHER;
		int mount = -1;
		char fn[48] = "";
		if (s->state != 'R') {
			if (s->have_sched && wait_account_unchanged(t, s->state, s->switches, s->run_ns)) {
				wait = t->wait;
				mount = t->mount;
				snprintf(fn, sizeof(fn), "%s", t->fn);
			} else {
				wait = classify(p, t, s, fn, &mount);
			}
		}
		r = wait_account_add(a, t, s->have_sched, s->run_ns, s->runq_ns, s->switches, s->state, wait, mount, fn);
	}
	free(seen);
	free(th);
	wait_account_end(a);
	return r;
}

/* ---- the backend -------------------------------------------------------------------- */

static int procfs_probe(struct waits_config *cfg, json_t *facts, struct errbuf *why)
{
	(void)cfg;
	char buf[256];
	pid_t self = getpid();
	if (read_once(self, "stat", buf, sizeof(buf)) <= 0)
		return errbuf_set(why, ENOTSUP, "/proc/%d/task/%d/stat cannot be read: no /proc", (int)self, (int)self);
	if (read_once(self, "wchan", buf, sizeof(buf)) < 0)
		return errbuf_set(why, ENOTSUP, "/proc/PID/task/TID/wchan is missing: the kernel lacks CONFIG_KALLSYMS or hides it");
	json_object_set_new(facts, "schedstat", json_boolean(read_once(self, "schedstat", buf, sizeof(buf)) > 0));
	return 0;
}

static void procfs_close(void *state)
{
	struct waits_procfs *p = state;
	if (!p)
		return;
	if (p->threads_fd >= 0)
		close(p->threads_fd);
	free(p->buf);
	pid_list_free(&p->tids);
	pid_list_free(&p->procs);
	pid_list_free(&p->queue);
	pidmap_free(&p->tgids);
	free(p);
}

static int procfs_open(const struct waits_config *cfg, const struct target_info *t, struct waits_tick *tk,
		       json_t *manifest, void **state, struct errbuf *why)
{
	(void)cfg;
	struct waits_procfs *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->tk = tk;
	p->root = t->keeper ? t->keeper : t->pid;
	p->keeper = t->keeper;
	p->observer = t->observer;
	p->hz = sysconf(_SC_CLK_TCK);
	if (p->hz <= 0)
		p->hz = 100;
	p->threads_fd = t->keeper ? cgroup_set_open_members(t->cgroups, true) : -1;
	char buf[256];
	/* what this user may read of the target's threads */
	/* what this user may read of the target's threads: wchan says 0,
	 * and no error, to one who may not (ptrace's read mode), as its
	 * descriptors' directory refuses */
	char fds[64];
	snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)t->pid);
	ssize_t got = read_once(t->pid, "wchan", buf, sizeof(buf));
	if (got < 0 || (access(fds, R_OK | X_OK) < 0 && errno != ENOENT)) {
		int e = got < 0 ? (int)-got : errno;
		procfs_close(p);
		return errbuf_set(why, EACCES, "/proc/%d cannot be read (%s): the target is another user's, "
				  "or /proc is mounted with hidepid", (int)t->pid, strerror(e));
	}
	p->have_sched = read_once(t->pid, "schedstat", buf, sizeof(buf)) > 0;
	p->stack_readable = read_once(getpid(), "stack", buf, sizeof(buf)) > 0;
	json_object_set_new(manifest, "tree", json_string(p->threads_fd >= 0 ? "cgroup" : "walk"));
	json_object_set_new(manifest, "schedstat", json_boolean(p->have_sched));
	json_object_set_new(manifest, "kernel_stacks", json_boolean(p->stack_readable));
	int r = measure(p); /* the baseline */
	if (r < 0) {
		procfs_close(p);
		return errbuf_set(why, -r, "reading the threads: %s", strerror(-r));
	}
	*state = p;
	return 0;
}

static int procfs_measure(void *state, struct errbuf *why)
{
	int r = measure(state);
	return r < 0 ? errbuf_set(why, -r, "reading the threads: %s", strerror(-r)) : 0;
}

const struct waits_backend waits_procfs = {
	.name = "procfs",
	.probe = procfs_probe,
	.open = procfs_open,
	.measure = procfs_measure,
	.close = procfs_close,
};
