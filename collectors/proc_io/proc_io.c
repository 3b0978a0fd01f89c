/* proc_io: /proc/PID/io counters summed over the target's whole process tree.
 *
 * Deployable: it needs nothing but read access to /proc. Each sample walks the
 * tree from its root (iopsample's keeper, or the attached process) parents
 * first, then hands the snapshot to proc_io_tree.c, which decides whether it is
 * settled and turns it into per-interval changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "pidmap.h"
#include "proc_io_tree.h"
#include "procfs.h"

/* A pass is unsettled only when a reap lands mid-scan; more than a handful in
 * a row means the tree reaps faster than it can be read, and the tree module's
 * never-decreasing total carries any late count into the next row. */
#define MAX_PASSES 16

struct proc_io {
	struct pio_tree tree;
	struct pio_obs *obs;
	size_t nobs, obs_cap;
	struct pid_list queue;
	struct pidmap seen; /* pids visited in this pass */
	unsigned present; /* fields this kernel reports */
	json_t *field[IO_NFIELDS];
	json_t *nprocs;
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

/* Reads one process and queues its children. io before stat: a stat that is
 * not X after the io read proves the process was not being reaped when its
 * parent (read earlier still) was read. A process that vanishes midway is
 * simply not observed. */
static int visit(struct proc_io *p, pid_t pid)
{
	struct proc_io_counters io;
	struct proc_stat st;
	if (procfs_read_io(pid, &io) < 0 || procfs_read_stat(pid, &st) < 0)
		return 0;
	struct pio_obs o = {.pid = pid, .ppid = st.ppid, .start = st.starttime, .state = st.state};
	memcpy(o.v, io.v, sizeof(o.v));
	int r = obs_push(p, &o);
	if (r == 0 && st.state != 'Z' && st.state != 'X')
		r = procfs_children(pid, st.num_threads, &p->queue);
	return r;
}

static int drain(struct proc_io *p, size_t from)
{
	/* the queue grows while it is walked: breadth first, parents first */
	for (size_t i = from; i < p->queue.n; i++) {
		int r = pidmap_add(&p->seen, p->queue.v[i], 0);
		if (r == 1)
			r = visit(p, p->queue.v[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int scan(struct proc_io *p)
{
	int r;
	pidmap_clear(&p->seen);
	p->nobs = 0;
	p->queue.n = 0;
	if ((r = pid_list_add(&p->queue, p->tree.root)) < 0 || (r = drain(p, 0)) < 0)
		return r;
	/* Tracked processes the walk did not reach were re-parented while it
	 * ran, or (attach mode) adopted outside the tree: read them directly. */
	for (size_t i = 0; i < p->tree.n; i++) {
		if (p->tree.t[i].gone)
			continue;
		size_t from = p->queue.n;
		if ((r = pid_list_add(&p->queue, p->tree.t[i].pid)) < 0 || (r = drain(p, from)) < 0)
			return r;
	}
	return 0;
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
	return pio_tick_commit(&p->tree, p->obs, p->nobs, delta, nprocs);
}

static int proc_io_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	(void)manifest;
	(void)sc;
	struct proc_io_counters c;
	int r = procfs_read_io(getpid(), &c);
	if (r == -ENOENT)
		return errbuf_set(why, ENOTSUP,
				  "/proc/PID/io is missing: the kernel lacks CONFIG_TASK_IO_ACCOUNTING");
	if (r < 0)
		return errbuf_set(why, r, "/proc/self/io: %s", strerror(-r));
	return 0;
}

static void proc_io_close(void *state)
{
	struct proc_io *p = state;
	if (!p)
		return;
	pio_tree_free(&p->tree);
	pid_list_free(&p->queue);
	pidmap_free(&p->seen);
	free(p->obs);
	free(p);
}

static int proc_io_open(const struct source_config *sc, const struct target_info *t, json_t *row,
			json_t *manifest, void **state, struct errbuf *why)
{
	(void)manifest;
	(void)sc;
	pid_t root = t->keeper ? t->keeper : t->pid;
	struct proc_io_counters io;
	int r = procfs_read_io(root, &io);
	if (r < 0)
		return errbuf_set(why, r, "/proc/%d/io: %s", (int)root, strerror(-r));

	struct proc_io *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	pio_tree_init(&p->tree, root, t->keeper != 0);
	p->present = io.present;

	/* A counter this kernel does not keep is null in every row, never 0. */
	for (int f = 0; f < IO_NFIELDS; f++) {
		p->field[f] = (p->present & (1u << f)) ? json_integer(0) : json_null();
		json_object_set_new(row, procfs_io_names[f], p->field[f]);
	}
	p->nprocs = json_integer(0);
	json_object_set_new(row, "nprocs", p->nprocs);

	/* The baseline: the rows count from here, the target still waiting. */
	uint64_t ignored[IO_NFIELDS];
	unsigned n;
	if ((r = measure(p, ignored, &n)) < 0) {
		proc_io_close(p);
		return errbuf_set(why, r, "scanning /proc: %s", strerror(-r));
	}
	*state = p;
	return 0;
}

static int proc_io_sample(void *state, struct errbuf *why)
{
	struct proc_io *p = state;
	uint64_t delta[IO_NFIELDS];
	unsigned nprocs;
	int r = measure(p, delta, &nprocs);
	if (r < 0)
		return errbuf_set(why, r, "scanning /proc: %s", strerror(-r));
	for (int f = 0; f < IO_NFIELDS; f++)
		if (p->present & (1u << f))
			json_integer_set(p->field[f], (json_int_t)delta[f]);
	json_integer_set(p->nprocs, nprocs);
	return 0;
}

const struct collector_ops proc_io_ops = {
	.name = "proc_io",
	.available_in_deployment = true,
	.probe = proc_io_probe,
	.open = proc_io_open,
	.sample = proc_io_sample,
	.close = proc_io_close,
};
