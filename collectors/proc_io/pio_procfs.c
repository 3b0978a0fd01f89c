// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io's procfs backend: /proc/PID/io counters summed over the target's
 * whole process tree. It needs nothing but read access to /proc. Each
 * reading reads every process of the tree, parents before children, then
 * hands the snapshot to proc_io_tree.c, which decides whether it is settled
 * and turns it into per-interval changes.
 *
 * Which processes: where the episode has its own cgroup, the members its
 * cgroup.procs lists (read again only when a pid was handed out since the
 * last read: /proc/loadavg's last field, the pid namespace's newest pid,
 * moved; every fork of the tree moves it, and a tree that forks nothing
 * costs no read of the list a tick; then the members' children are read
 * too, for a child that was born and exited since, which no list has but
 * whose counts are the tree's until it is reaped), and any process
 * seen last tick that it no longer lists: a zombie waiting to be reaped,
 * which a cgroup does not list, or one that moved itself out, whose
 * children are then found by the walk below. Otherwise (an attached
 * target) a walk from the root through each process's children file. The
 * files of every process are kept open (procfs_files.h) and re-read with
 * pread: a tick reads each process's io; walking, its stat and children
 * too; from the cgroup's list, its stat only when its pidfd says it exited
 * (visit() says why that is enough). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pio_backend.h"
#include "pidmap.h"
#include "proc_io_tree.h"
#include "procfs.h"
#include "procfs_files.h"

/* A pass is unsettled only when a reap lands mid-scan; more than a handful in
 * a row means the tree reaps faster than it can be read, and the tree module's
 * never-decreasing total carries any late count into the next row. */
#define MAX_PASSES 16

/* One process cgroup.procs lists, placed in the tree to be read in order. */
struct member {
	pid_t pid, ppid;
	int depth; /* -1: not known yet; -2: being worked out */
};

struct proc_io {
	struct pio_tree tree;
	struct procfs_files files;
	struct pio_obs *obs;
	size_t nobs, obs_cap;
	struct pid_list queue;
	struct pidmap seen; /* pids visited in this pass */
	pid_t observer;     /* iopsample, left out with what it started */
	bool watch;         /* pidfds tell when a process exits */
	struct pid_list unconfirmed; /* indexes in obs of stats not read this pass */

	/* the episode cgroup's members, when there is one */
	int procs_fd; /* its cgroup.procs, or -1: walk the tree */
	int loadavg_fd;    /* /proc/loadavg, or -1: read the list every pass */
	long newest_pid;   /* its last field when the list was last read */
	bool listed_valid; /* the list is as read then */
	bool listed_now;   /* ... read in this pass: a fork since the last */
	char *procs_buf;
	size_t procs_cap;
	struct pid_list listed;
	struct member *m;
	size_t m_cap;
	struct pidmap at; /* pid -> index in m */
	int *chain;       /* scratch: a chain of parents being placed */
	pid_t *order;     /* the members as order_members queued them last */
	size_t order_n, order_cap;
	size_t *count;    /* scratch: members per depth */

};

static int obs_push(struct proc_io *p, const struct pio_obs *o)
{
	if (p->nobs == p->obs_cap) {
		size_t cap = p->obs_cap ? p->obs_cap * 2 : 32;
		struct pio_obs *v = reallocarray(p->obs, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->obs = v;
		p->obs_cap = cap;
	}
	p->obs[p->nobs++] = *o;
	return 0;
}

/* Reads one process and, with walk, queues its children. io before stat: a
 * stat that is not X after the io read proves the process was not being
 * reaped when its parent (read earlier still) was read. A process that
 * vanishes midway is simply not observed.
 *
 * Without walk the stat read last time stands for a process whose pidfd
 * has not said it exited: only its state and parent matter here, and
 * neither changes while it lives but by its parent's exit, which
 * order_members sees. confirm() asks the pidfds after the pass's io reads
 * and reads the stat of those that exited (the "after" above). */
static int visit(struct proc_io *p, pid_t pid, bool walk)
{
	struct proc_io_counters io;
	struct proc_stat st;
	int r = pidmap_add(&p->seen, pid, 0);
	if (r <= 0)
		return r;
	bool known = false;
	if (procfs_files_io(&p->files, pid, &io, &st, !walk && p->watch ? &known : NULL) < 0)
		return 0;
	if (!known) {
		if (!walk && p->watch && procfs_files_watch(&p->files, pid) == -ENOSYS)
			p->watch = false; /* a kernel before 5.3: read every stat */
		if (procfs_files_stat(&p->files, pid, &st) < 0)
			return 0;
	}
	struct pio_obs o = {.pid = pid, .ppid = st.ppid, .start = st.starttime, .state = st.state};
	memcpy(o.v, io.v, sizeof(o.v));
	if ((r = obs_push(p, &o)) < 0 || (known && (r = pid_list_add(&p->unconfirmed, (pid_t)(p->nobs - 1))) < 0))
		return r;
	if (walk && st.state != 'Z' && st.state != 'X')
		r = procfs_files_children(&p->files, pid, st.num_threads, &p->queue);
	return r;
}

/* The stat of each process visited on a known one whose pidfd now says it
 * exited; one that is gone by now is not observed. */
static int confirm(struct proc_io *p)
{
	int r = procfs_files_poll(&p->files);
	if (r <= 0 || !p->unconfirmed.n) { /* none exited since: each known stat stands */
		p->unconfirmed.n = 0;
		return r < 0 ? r : 0;
	}
	size_t k = 0, next = 0;
	for (size_t i = 0; i < p->nobs; i++) {
		struct pio_obs *o = &p->obs[i];
		bool check = next < p->unconfirmed.n && (size_t)p->unconfirmed.v[next] == i;
		next += check;
		struct proc_stat st;
		if (check && !procfs_files_known_stat(&p->files, o->pid, &st)) {
			if (procfs_files_stat(&p->files, o->pid, &st) < 0)
				continue;
			o->ppid = st.ppid;
			o->start = st.starttime;
			o->state = st.state;
		}
		p->obs[k++] = *o;
	}
	p->nobs = k;
	p->unconfirmed.n = 0;
	return 0;
}

static int drain(struct proc_io *p, size_t from, bool walk)
{
	/* the queue grows while it is walked: breadth first, parents first */
	for (size_t i = from; i < p->queue.n; i++) {
		int r = visit(p, p->queue.v[i], walk);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- the members of the episode cgroup, parents first ---- */

static int grow_members(struct proc_io *p, size_t n)
{
	if (n <= p->m_cap && p->count) /* an empty list needs count too */
		return 0;
	size_t cap = p->m_cap ? p->m_cap : 64;
	while (cap < n)
		cap *= 2;
	struct member *m = reallocarray(p->m, cap, sizeof(*m));
	if (m)
		p->m = m;
	int *chain = m ? reallocarray(p->chain, cap, sizeof(*chain)) : NULL;
	if (chain)
		p->chain = chain;
	size_t *count = chain ? reallocarray(p->count, cap + 2, sizeof(*count)) : NULL;
	if (!count)
		return -ENOMEM;
	p->count = count;
	p->m_cap = cap;
	return 0;
}

static int index_of(const struct proc_io *p, pid_t pid)
{
	int64_t *i = pidmap_get(&p->at, pid);
	return i ? *i : -1;
}

/* Each member's depth below the root through its parents: 1 under the
 * root, or under a parent that is not a member. */
static void place(struct proc_io *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p->m[i].depth >= 0)
			continue;
		size_t len = 0;
		int k = (int)i;
		while (k >= 0 && p->m[k].depth == -1) {
			p->m[k].depth = -2;
			p->chain[len++] = k;
			k = index_of(p, p->m[k].ppid);
		}
		int d = k >= 0 && p->m[k].depth >= 0 ? p->m[k].depth : 0; /* -2: a cycle, no parent */
		while (len)
			p->m[p->chain[--len]].depth = ++d;
	}
}

/* The cgroup's members into p->queue, parents before children. A parent's
 * pid comes from the last tick's reading of the process, or, for a process
 * new to it or whose parent is no longer a member (it was re-parented), from
 * its stat now. */
/* The newest pid of iopsample's pid namespace, which the tree's are in or
 * below (so each of its forks takes one here too), or -1. */
static long newest_pid(struct proc_io *p)
{
	char buf[128];
	ssize_t n = p->loadavg_fd >= 0 ? pread(p->loadavg_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *last = strrchr(buf, ' ');
	return last ? strtol(last + 1, NULL, 10) : -1;
}

/* The cgroup's list of processes, read again only when a pid was handed
 * out since it was last read. */
static int list_members(struct proc_io *p)
{
	long newest = newest_pid(p);
	p->listed_now = !(p->listed_valid && newest >= 0 && newest == p->newest_pid);
	if (!p->listed_now)
		return 0;
	ssize_t len = procfs_pread_all(p->procs_fd, &p->procs_buf, &p->procs_cap);
	if (len < 0)
		return (int)len;
	p->listed.n = 0;
	int r = pid_list_parse(p->procs_buf, &p->listed);
	p->listed_valid = r == 0;
	p->newest_pid = newest;
	return r;
}

static int order_members(struct proc_io *p)
{
	int r = list_members(p);
	if (r < 0)
		return r;
	/* no pid handed out since, and the last tick's processes were the
	 * ones before it, each where it was: the same members, the same
	 * parents, the same order */
	if (!p->listed_now && p->tree.was_steady && p->order_n) {
		for (size_t i = 0; i < p->order_n; i++)
			if ((r = pid_list_add(&p->queue, p->order[i])) < 0)
				return r;
		return 0;
	}
	p->order_n = 0;
	if ((r = grow_members(p, p->listed.n)) < 0)
		return r;
	pidmap_clear(&p->at);
	size_t n = 0;
	for (size_t i = 0; i < p->listed.n; i++) {
		pid_t pid = p->listed.v[i];
		if (pid == p->tree.root || (r = pidmap_add(&p->at, pid, (int)n)) == 0)
			continue;
		if (r < 0)
			return r;
		p->m[n++] = (struct member){.pid = pid, .ppid = pio_tree_ppid(&p->tree, pid), .depth = -1};
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct member *m = &p->m[i];
		if (m->ppid == p->tree.root || index_of(p, m->ppid) >= 0) {
			p->m[k++] = *m;
			continue;
		}
		struct proc_stat st;
		if (procfs_files_stat(&p->files, m->pid, &st) < 0) {
			pidmap_del(&p->at, m->pid); /* gone already */
			continue;
		}
		m->ppid = st.ppid;
		p->m[k++] = *m;
	}
	n = k;
	for (size_t i = 0; i < n; i++)
		*pidmap_get(&p->at, p->m[i].pid) = (int)i;
	place(p, n);

	/* counting sort by depth */
	memset(p->count, 0, (n + 2) * sizeof(*p->count));
	for (size_t i = 0; i < n; i++)
		p->count[p->m[i].depth + 1]++;
	for (size_t d = 1; d < n + 2; d++)
		p->count[d] += p->count[d - 1];
	size_t base = p->queue.n;
	for (size_t i = 0; i < n; i++)
		if ((r = pid_list_add(&p->queue, 0)) < 0)
			return r;
	for (size_t i = 0; i < n; i++)
		p->queue.v[base + p->count[p->m[i].depth]++] = p->m[i].pid;
	if (n > p->order_cap) {
		pid_t *o = reallocarray(p->order, n, sizeof(*o));
		if (!o)
			return 0; /* not kept: computed again next time */
		p->order = o;
		p->order_cap = n;
	}
	memcpy(p->order, p->queue.v + base, n * sizeof(*p->order));
	p->order_n = n;
	return 0;
}

/* One pass over the tree: the root, its members (or its walk), then any
 * tracked process neither reached, with a walk below it. */
static int scan(struct proc_io *p)
{
	int r;
	bool walk = p->procs_fd < 0;
	pidmap_clear(&p->seen);
	if (p->observer > 0 && (r = pidmap_add(&p->seen, p->observer, 0)) < 0)
		return r; /* seen already: never visited, nor what is below it */
	p->nobs = 0;
	p->queue.n = 0;
	p->unconfirmed.n = 0;
	if ((r = pid_list_add(&p->queue, p->tree.root)) < 0 || (r = drain(p, 0, walk)) < 0)
		return r;
	if (!walk) {
		size_t from = p->queue.n;
		/* After a fork the members are walked too: a child that exited
		 * since, and waits to be reaped, is in no cgroup's list, and its
		 * counts are in no parent's yet. */
		if ((r = order_members(p)) < 0 || (r = drain(p, from, p->listed_now)) < 0)
			return r;
	}
	/* Tracked processes not reached: re-parented while the walk ran, or
	 * adopted outside the tree (attached); zombies and processes that left
	 * the cgroup (members). Read directly, and what they started below.
	 * None when what was read is the last commit's processes, in order:
	 * each tracked one was reached (a steady tree, the most ticks). */
	size_t tracked = pio_tick_steady(&p->tree, p->obs, p->nobs) ? 0 : p->tree.n;
	for (size_t i = 0; i < tracked; i++) {
		if (p->tree.t[i].gone)
			continue;
		size_t from = p->queue.n;
		if ((r = pid_list_add(&p->queue, p->tree.t[i].pid)) < 0 || (r = drain(p, from, true)) < 0)
			return r;
	}
	return confirm(p);
}

static int measure(struct proc_io *p, uint64_t delta[IO_NFIELDS], unsigned *nprocs)
{
	int r;
	pio_tick_begin(&p->tree);
	for (int pass = 0;; pass++) {
		if ((r = scan(p)) < 0 || (r = pio_tick_pass(&p->tree, p->obs, p->nobs)) < 0)
			return r;
		if (r == 1 || pass + 1 == MAX_PASSES)
			break;
		sched_yield(); /* let the reaper finish what it started */
	}
	procfs_files_sweep(&p->files);
	return pio_tick_commit(&p->tree, p->obs, p->nobs, delta, nprocs);
}

static int procfs_probe(struct pio_config *cfg, json_t *facts, struct errbuf *why)
{
	(void)cfg;
	(void)facts;
	struct proc_io_counters c;
	int r = procfs_read_io(getpid(), &c);
	if (r == -ENOENT)
		return errbuf_set(why, ENOTSUP,
				  "/proc/PID/io is missing: the kernel lacks CONFIG_TASK_IO_ACCOUNTING");
	if (r < 0)
		return errbuf_set(why, -r, "/proc/self/io: %s", strerror(-r));
	return 0;
}

static void procfs_close(void *state)
{
	struct proc_io *p = state;
	if (!p)
		return;
	pio_tree_free(&p->tree);
	procfs_files_free(&p->files);
	pid_list_free(&p->queue);
	pid_list_free(&p->unconfirmed);
	pidmap_free(&p->seen);
	if (p->procs_fd >= 0)
		close(p->procs_fd);
	if (p->loadavg_fd >= 0)
		close(p->loadavg_fd);
	free(p->procs_buf);
	pid_list_free(&p->listed);
	free(p->m);
	free(p->chain);
	free(p->order);
	free(p->count);
	pidmap_free(&p->at);
	free(p->obs);
	free(p);
}

static int procfs_open(const struct pio_config *cfg, const struct target_info *t, json_t *manifest,
		       void **state, struct errbuf *why)
{
	(void)cfg;
	pid_t root = t->keeper ? t->keeper : t->pid;
	struct proc_io *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	pio_tree_init(&p->tree, root, t->keeper != 0);
	p->observer = t->observer;
	procfs_files_init(&p->files);
	p->procs_fd = t->keeper ? cgroup_set_open_members(t->cgroups, false) : -1;
	p->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	p->watch = p->procs_fd >= 0;
	json_object_set_new(manifest, "tree", json_string(p->procs_fd >= 0 ? "cgroup" : "walk"));

	/* The baseline: the rows count from here, the target still waiting. */
	uint64_t ignored[IO_NFIELDS];
	unsigned n;
	int r = measure(p, ignored, &n);
	if (r < 0) {
		procfs_close(p);
		return errbuf_set(why, -r, "scanning /proc: %s", strerror(-r));
	}
	*state = p;
	return 0;
}

static int procfs_measure(void *state, uint64_t delta[IO_NFIELDS], unsigned *nprocs,
			  struct errbuf *why)
{
	int r = measure(state, delta, nprocs);
	return r < 0 ? errbuf_set(why, -r, "scanning /proc: %s", strerror(-r)) : 0;
}

const struct pio_backend pio_procfs = {
	.name = "procfs",
	.probe = procfs_probe,
	.open = procfs_open,
	.measure = procfs_measure,
	.close = procfs_close,
};
