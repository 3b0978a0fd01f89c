// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* taskstats: what the kernel's taskstats interface keeps for every thread,
 * summed over the target's whole tree, exited threads included: the delay
 * accounting iotop shows (waiting for a CPU, for block I/O, for swap-in,
 * ...), I/O bytes and calls, context switches, CPU time.
 *
 * Deployable: the kernel keeps these for every task whatever watches it (the
 * delays once one sysctl is on), and a deployed service can read its own
 * through the same netlink interface iotop uses, without tracing or
 * stopping anything.
 *
 * Two backends read the live threads (taskstats.backend; `auto` takes bpf
 * where its program loads): netlink asks TASKSTATS_CMD_GET for every
 * thread of the tree, in batches (ts_get_many); bpf has a task iterator
 * (taskstats.bpf.c) write what each answer would hold, every thread of the
 * tree in one walk, the tree kept in the kernel by fork and free. Either
 * way the tick then takes the exit records a reader thread has
 * received since the last tick, and ts_tree.c turns both into the tree's
 * change. The threads: where the episode has its own cgroup, those its
 * cgroup.threads (v1: tasks) lists, one read whatever the tree's size, and
 * any thread tracked last tick that it no longer lists (a zombie, or one
 * that moved itself out); otherwise a walk from the root through each
 * process's threads and children. Per-process (TGID) queries would be one
 * per process, but give other sums: the kernel adds only the delays and
 * CPU of a group's exited threads to the group's totals, and none of the
 * I/O counters, which it keeps per thread. The reader keeps the socket
 * from overflowing between ticks (its buffer is 8 MiB; a record is one
 * exiting task anywhere on the host); if it overflows anyway the kernel says
 * so (ENOBUFS), and that row's counters are null: some thread's last counts
 * are unknown, so no total for the interval can be trusted.
 *
 * kernel.task_delayacct is off by default since Linux 5.14, and a task
 * forked while it is off never gets delay records. The prepare hook
 * switches it on, through host_settings, before the target's first process is
 * forked (before 5.14 there is no such sysctl, and delays count from boot
 * unless the kernel was booted with nodelayacct); where it cannot, the
 * delay fields that need it are null with the reason in the manifest. cpu_delay_* come from the scheduler's own
 * run-queue accounting (what /proc/PID/schedstat shows), which the kernel
 * keeps whatever the sysctl says, so they always count. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "clock.h"
#include "collector.h"
#include "common/ebpf/ebpf.h"
#include "common/ebpf/ebpf_tree.h"
#include "host_settings.h"
#include "jsonl_writer.h"
#include "kernel_version.h"
#include "pidmap.h"
#include "procfs.h"
#include "procfs_files.h"
#include "taskstats.skel.h"
#include "ts_bpf_layout.h"
#include "ts_config.h"
#include "ts_netlink.h"
#include "ts_tree.h"

_Static_assert(TS_BPF_FIELDS == TS_NFIELDS, "taskstats.bpf.c writes ts_record.h's fields");

#define RCVBUF (8 << 20)
#define DELAYACCT "kernel.task_delayacct"
#define DELAYACCT_PATH "/proc/sys/kernel/task_delayacct"

static const char *const choice_names[] = {[TS_AUTO] = "auto", [TS_NETLINK] = "netlink", [TS_BPF] = "bpf"};

struct taskstats {
	struct ts_sock ask, listen;
	struct ts_tree tree;
	pid_t root, keeper;
	pid_t observer; /* iopsample, left out with what it started */
	uint32_t counted; /* the fields this kernel and host provide */
	bool delays;      /* the TS_DELAYACCT fields count */
	int delayacct_fd; /* the sysctl, read at each tick while delays count */
	unsigned nthreads;
	json_t *row, *manifest, *warnings;

	/* the bpf backend's */
	struct taskstats_bpf *skel;
	struct ebpf_tree btree;
	struct ebpf_tree_ran ran;
	unsigned still; /* ticks that walked nothing: the tree had not run */
	int walk_fd;
	char *walk_buf;
	size_t walk_cap;
	unsigned version;
	uint32_t present;

	/* the scan */
	struct procfs_files files;
	struct pid_list queue, tids;
	struct pidmap visited;
	/* walking: the threads to ask, each with its process (negated for a
	 * process that waits to be reaped, whose threads are not counted live) */
	struct pid_list walked;
	struct pidmap process_of;
	int threads_fd; /* the episode cgroup's thread list, or -1: walk the tree */
	char *threads_buf;
	size_t threads_cap;
	struct answer {
		struct ts_record r;
		uint64_t asked, answered;
	} *ans;
	size_t nans, ans_cap;
	uint32_t *order; /* indexes in ans, a process's threads together */
	size_t order_cap;

	/* exit records between ticks, from the reader thread */
	pthread_t reader;
	bool reading;
	int stop[2];
	pthread_mutex_t lock;
	struct received {
		struct ts_record r;
		uint64_t at; /* CLOCK_MONOTONIC */
	} *inbox;
	size_t ninbox, inbox_cap;
	struct pidmap recorded; /* leaders' ids with a record in the inbox */
	struct pidmap procs_scratch; /* the tree's processes, for unlisted zombies */
	unsigned overflows, overflows_seen;
	int reader_err;
	unsigned rows_nulled;
};

static void inbox_add(void *arg, const struct ts_record *r, uint64_t received_ns)
{
	struct taskstats *p = arg;
	if (p->ninbox == p->inbox_cap) {
		size_t cap = p->inbox_cap ? p->inbox_cap * 2 : 256;
		struct received *v = reallocarray(p->inbox, cap, sizeof(*v));
		if (!v) {
			p->overflows++; /* as lost as a full socket */
			return;
		}
		p->inbox = v;
		p->inbox_cap = cap;
	}
	p->inbox[p->ninbox++] = (struct received){*r, received_ns};
	if ((r->tid == r->tgid || !r->tgid) && pidmap_add(&p->recorded, r->tid, 0) < 0)
		p->overflows++; /* the succession rule would go wrong: as lost */
}

static void *reader(void *arg)
{
	struct taskstats *p = arg;
	struct pollfd pfd[2] = {{.fd = ts_fd(&p->listen), .events = POLLIN},
				{.fd = p->stop[0], .events = POLLIN}};
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			p->reader_err = errno;
			return NULL;
		}
		if (pfd[1].revents)
			return NULL;
		pthread_mutex_lock(&p->lock);
		int r = ts_drain(&p->listen, inbox_add, p, &p->overflows);
		if (r < 0)
			p->reader_err = -r;
		pthread_mutex_unlock(&p->lock);
		if (r < 0)
			return NULL;
	}
}

/* Whether a leader sighted after its exit record was still exiting: its
 * process's PF_EXITING, or gone, read now. Asked only once the record is
 * known, which it is by now for any sighting answered after it was sent
 * (the kernel queues it to the listener as it sends it); an earlier
 * sighting is younger than the record and taken for the leader's own. */
static bool leader_exiting(struct taskstats *p, pid_t tgid)
{
	if (!ts_tree_exited(&p->tree, tgid) && !pidmap_get(&p->recorded, tgid))
		return true;
	struct proc_stat st;
	return procfs_files_stat(&p->files, tgid, &st) < 0 || (st.flags & PROCFS_PF_EXITING);
}

static int keep_answer(void *arg, const struct ts_record *r, uint64_t asked, uint64_t answered)
{
	struct taskstats *p = arg;
	if (p->nans == p->ans_cap) {
		size_t cap = p->ans_cap ? p->ans_cap * 2 : 256;
		struct answer *v = reallocarray(p->ans, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->ans = v;
		p->ans_cap = cap;
	}
	p->ans[p->nans++] = (struct answer){*r, asked, answered};
	return 0;
}

/* Takes what the listener has queued into the inbox now. */
static void drain_listener(struct taskstats *p)
{
	pthread_mutex_lock(&p->lock);
	if (!p->reader_err)
		p->reader_err = -ts_drain(&p->listen, inbox_add, p, &p->overflows);
	pthread_mutex_unlock(&p->lock);
}

static int by_tgid(const void *a, const void *b, void *arg)
{
	const struct answer *ans = arg;
	const struct ts_record *x = &ans[*(const uint32_t *)a].r, *y = &ans[*(const uint32_t *)b].r;
	if (x->tgid != y->tgid)
		return (x->tgid > y->tgid) - (x->tgid < y->tgid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The tick's answers to ts_tree, a process's threads together (sorted by
 * process and thread), then the process. */
static int feed(struct taskstats *p)
{
	size_t n = p->nans;
	if (n > p->order_cap) {
		uint32_t *o = reallocarray(p->order, n, sizeof(*o));
		if (!o)
			return -ENOMEM;
		p->order = o;
		p->order_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		p->order[i] = (uint32_t)i;
	if (n > 1)
		qsort_r(p->order, n, sizeof(*p->order), by_tgid, p->ans);
	int r = 0;
	for (size_t i = 0; r == 0 && i < n;) {
		pid_t tgid = p->ans[p->order[i]].r.tgid;
		for (; r == 0 && i < n && p->ans[p->order[i]].r.tgid == tgid; i++) {
			const struct answer *a = &p->ans[p->order[i]];
			r = ts_tree_thread(&p->tree, tgid, &a->r, a->asked, a->answered);
		}
		if (r == 0)
			r = ts_tree_process(&p->tree, tgid, leader_exiting(p, tgid));
	}
	return r;
}

/* Reads one process of the tree (walking): its threads noted, to be asked
 * for with the rest of the walk's, its children queued. */
static int visit(struct taskstats *p, pid_t pid)
{
	int r = pidmap_add(&p->visited, pid, 0);
	if (r <= 0)
		return r;
	struct proc_stat st;
	if (procfs_files_stat(&p->files, pid, &st) < 0)
		return 0; /* gone */
	p->tids.n = 0;
	if ((r = st.num_threads == 1 ? pid_list_add(&p->tids, pid) : procfs_threads(pid, &p->tids)) < 0)
		return r;
	/* The keeper is iopsample's: its children are the tree's, its own
	 * CPU time and switches are not (wait4 and perf leave it out too). */
	if (pid == p->keeper) {
		if ((r = ts_tree_process(&p->tree, pid, false)) < 0)
			return r;
	} else {
		/* a process that exited and waits to be reaped has no live thread */
		int process = st.state == 'Z' && st.num_threads <= 1 ? -pid : pid;
		for (size_t i = 0; i < p->tids.n; i++) {
			if ((r = pidmap_add(&p->process_of, p->tids.v[i], process)) == 1)
				r = pid_list_add(&p->walked, p->tids.v[i]);
			if (r < 0)
				return r;
		}
	}
	if (st.state == 'Z' || st.state == 'X')
		return 0;
	if (st.num_threads == 1)
		return procfs_files_children(&p->files, pid, 1, &p->queue);
	for (size_t i = 0; i < p->tids.n; i++)
		if ((r = procfs_thread_children(pid, p->tids.v[i], &p->queue)) < 0)
			return r;
	return 0;
}

static int walk(struct taskstats *p, size_t from)
{
	for (size_t i = from; i < p->queue.n; i++) {
		int r = visit(p, p->queue.v[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The tree from the root, then any tracked thread's process the walk did
 * not reach (re-parented while it ran, or, attached, adopted outside the
 * tree); its threads asked in batches, each answer named by the process
 * the walk found it in (a kernel before version 12 does not say). */
static int scan_walk(struct taskstats *p, struct errbuf *why)
{
	int r;
	p->walked.n = 0;
	pidmap_clear(&p->process_of);
	if ((r = pid_list_add(&p->queue, p->root)) < 0 || (r = walk(p, 0)) < 0)
		return r;
	for (size_t i = 0; i < p->tree.n; i++) {
		pid_t tgid = p->tree.t[i].tgid;
		if (!tgid || pidmap_get(&p->visited, tgid))
			continue;
		size_t from = p->queue.n;
		if ((r = pid_list_add(&p->queue, tgid)) < 0 || (r = walk(p, from)) < 0)
			return r;
	}
	if ((r = ts_get_many(&p->ask, p->walked.v, p->walked.n, keep_answer, p, why)) < 0)
		return r;
	for (size_t i = 0; i < p->nans; i++) {
		int64_t *process = pidmap_get(&p->process_of, p->ans[i].r.tid);
		if (!process)
			continue;
		p->ans[i].r.tgid = *process < 0 ? -*process : *process;
		p->nthreads += *process > 0;
	}
	return 0;
}

/* A process born since the last tick that has exited already is in no
 * list and was never tracked, but its leader waits to be reaped, its counts
 * going on past its exit record (what the rest of its exit took): asked
 * too, found by its record, when its parent is a process of the tree (one
 * answered for this tick, or such a zombie itself). */
static int ask_unlisted_zombies(struct taskstats *p, struct errbuf *why)
{
	pidmap_clear(&p->procs_scratch);
	int r = p->keeper ? pidmap_add(&p->procs_scratch, p->keeper, 0) : 0;
	for (size_t i = 0; r >= 0 && i < p->nans; i++)
		r = pidmap_add(&p->procs_scratch, p->ans[i].r.tgid, 0);
	if (r >= 0)
		drain_listener(p);
	for (bool grew = true; r >= 0 && grew;) {
		grew = false;
		p->tids.n = 0;
		pthread_mutex_lock(&p->lock);
		for (size_t i = 0; r >= 0 && i < p->ninbox; i++) {
			const struct ts_record *rec = &p->inbox[i].r;
			if (rec->tid != rec->tgid || !pidmap_get(&p->procs_scratch, rec->ppid) ||
			    (r = pidmap_add(&p->visited, rec->tid, 0)) != 1)
				continue;
			if ((r = pid_list_add(&p->tids, rec->tid)) == 0)
				r = pidmap_add(&p->procs_scratch, rec->tid, 0);
		}
		pthread_mutex_unlock(&p->lock);
		if (r >= 0 && p->tids.n) {
			grew = true;
			r = ts_get_many(&p->ask, p->tids.v, p->tids.n, keep_answer, p, why);
		}
	}
	return r < 0 ? r : 0;
}

/* The threads the episode cgroup lists, then those tracked that it does
 * not (any more), asked in batches. */
static int scan_members(struct taskstats *p, struct errbuf *why)
{
	ssize_t len = procfs_pread_all(p->threads_fd, &p->threads_buf, &p->threads_cap);
	if (len < 0)
		return errbuf_set(why, (int)-len, "reading the episode cgroup's threads: %s",
				  strerror((int)-len));
	p->tids.n = 0;
	int r = pid_list_parse(p->threads_buf, &p->tids);
	for (size_t i = 0; r >= 0 && i < p->tids.n; i++)
		r = pidmap_add(&p->visited, p->tids.v[i], 0);
	if (r < 0 || (r = ts_get_many(&p->ask, p->tids.v, p->tids.n, keep_answer, p, why)) < 0)
		return r;
	p->nthreads = (unsigned)p->nans;

	p->tids.n = 0;
	for (size_t i = 0; r >= 0 && i < p->tree.n; i++)
		if (!p->tree.t[i].gone && (r = pidmap_add(&p->visited, p->tree.t[i].tid, 0)) == 1)
			r = pid_list_add(&p->tids, p->tree.t[i].tid);
	if (r < 0 || (r = ts_get_many(&p->ask, p->tids.v, p->tids.n, keep_answer, p, why)) < 0)
		return r;
	if ((r = ask_unlisted_zombies(p, why)) < 0)
		return r;
	return p->keeper ? ts_tree_process(&p->tree, p->keeper, false) : 0;
}

/* Every thread of the tree, as its TASKSTATS_CMD_GET answer would be,
 * from one run of the task iterator (the keeper left out, as the
 * cgroup's list leaves it out). */
static int scan_bpf(struct taskstats *p, struct errbuf *why)
{
	int fd = bpf_iter_create(p->walk_fd);
	if (fd < 0)
		return errbuf_set(why, errno, "walking the tasks: %s", strerror(errno));
	size_t len = 0;
	for (;;) {
		if (p->walk_cap - len < 65536) {
			size_t cap = p->walk_cap ? p->walk_cap * 2 : 1 << 20;
			char *b = realloc(p->walk_buf, cap);
			if (!b) {
				close(fd);
				return -ENOMEM;
			}
			p->walk_buf = b;
			p->walk_cap = cap;
		}
		ssize_t n = read(fd, p->walk_buf + len, p->walk_cap - len);
		if (n < 0) {
			int e = errno;
			close(fd);
			return errbuf_set(why, e, "walking the tasks: %s", strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	int r = 0;
	for (size_t at = 0; r == 0 && at + sizeof(struct ts_bpf_thread) <= len; at += sizeof(struct ts_bpf_thread)) {
		struct ts_bpf_thread t;
		memcpy(&t, p->walk_buf + at, sizeof(t));
		struct ts_record rec = {.version = p->version, .tid = (pid_t)t.tid, .tgid = (pid_t)t.tgid,
					.ppid = (pid_t)t.ppid, .present = p->present, .age_ns = t.age_ns};
		memcpy(rec.v, t.v, sizeof(rec.v));
		p->nthreads += t.live;
		r = keep_answer(p, &rec, t.now_ns, t.now_ns);
	}
	if (r == 0 && (r = ebpf_tree_check(&p->btree, why)) < 0)
		return r;
	return r == 0 && p->keeper ? ts_tree_process(&p->tree, p->keeper, false) : r;
}

/* The tree's threads asked for, by the cgroup's lists or a walk; then the
 * exit records the kernel queued up to the last answer taken in, and the
 * answers fed to ts_tree a process at a time. */
static int scan(struct taskstats *p, struct errbuf *why)
{
	p->nthreads = 0;
	p->nans = 0;
	p->queue.n = 0;
	pidmap_clear(&p->visited);
	/* visited already: never walked, nor what is below it */
	int r = p->observer > 0 ? pidmap_add(&p->visited, p->observer, 0) : 0;
	if (r >= 0)
		r = p->skel ? scan_bpf(p, why) : p->threads_fd >= 0 ? scan_members(p, why) : scan_walk(p, why);
	if (r < 0)
		return r;
	drain_listener(p);
	return feed(p);
}

/* A tick of the bpf backend at which no task of the tree had run since the
 * last walk (tree.bpf.h, TREE_RAN): nothing changed, and every exit record
 * received meanwhile is a stranger's, since a thread of the tree ran to
 * exit. Those are dropped, with the socket drained first; a task of the
 * tree that ran in the meantime, or records lost, make it a tick like any
 * other (the records kept for it). */
static bool still(struct taskstats *p)
{
	if (!p->skel || !ebpf_tree_still(&p->ran))
		return false;
	drain_listener(p);
	pthread_mutex_lock(&p->lock);
	bool quiet = ebpf_tree_still(&p->ran) && !p->reader_err && p->overflows == p->overflows_seen;
	if (quiet) {
		p->ninbox = 0;
		pidmap_clear(&p->recorded);
	}
	pthread_mutex_unlock(&p->lock);
	if (quiet) {
		memset(p->tree.delta, 0, sizeof(p->tree.delta));
		p->still++;
	}
	return quiet;
}

/* One tick: the scan, then the exit records received up to its end (it
 * drains the socket after its last answer: every record sent before then
 * is in the batch), which ts_tree applies before the scan's sightings;
 * *lost when records were lost since the last tick. */
static int measure(struct taskstats *p, bool *lost, struct errbuf *why)
{
	*lost = false;
	if (still(p))
		return 0;
	if (p->skel)
		ebpf_tree_ran_mark(&p->ran);
	ts_tree_begin(&p->tree);
	int r = scan(p, why);
	if (r < 0)
		return r == -ENOMEM ? errbuf_set(why, ENOMEM, "out of memory") : r;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; r == 0 && i < p->ninbox; i++) {
		const struct ts_record *rec = &p->inbox[i].r;
		if (p->keeper && (rec->tid == p->keeper || rec->tgid == p->keeper))
			continue; /* iopsample's, as in the scan */
		r = ts_tree_exit(&p->tree, rec, p->inbox[i].at);
	}
	p->ninbox = 0;
	pidmap_clear(&p->recorded);
	procfs_files_sweep(&p->files);
	*lost = p->overflows != p->overflows_seen;
	p->overflows_seen = p->overflows;
	int err = p->reader_err;
	pthread_mutex_unlock(&p->lock);
	if (err)
		return errbuf_set(why, err, "receiving taskstats exit records: %s", strerror(err));
	if (r < 0 || (r = ts_tree_end(&p->tree, *lost)) < 0)
		return errbuf_set(why, -r, "out of memory");
	return 0;
}

/* Whether task_delayacct still reads 1: switched off mid-episode, the
 * threads forked from then on have no delay records for good. */
static void check_delayacct(struct taskstats *p)
{
	char v[8];
	ssize_t n = pread(p->delayacct_fd, v, sizeof(v) - 1, 0);
	if (n > 0 && v[0] == '1')
		return;
	p->delays = false;
	p->counted &= ~TS_DELAYACCT;
	close(p->delayacct_fd);
	p->delayacct_fd = -1;
	json_object_set_new(p->manifest, "delays_counted", json_false());
	json_object_set_new(p->manifest, "delays_reason",
			    json_string(DELAYACCT " was switched off during the episode"));
	json_array_append_new(p->warnings,
			      json_string(DELAYACCT " was switched off during the episode: the delay "
					  "fields that need it are null from then on"));
}

/* Times longer than a thread could have spent: the first gets a warning,
 * and the manifest counts them and the excess dropped, per field. */
static void note_faults(struct taskstats *p, unsigned before)
{
	const struct ts_fault *f = &p->tree.fault;
	if (p->tree.nfaults == before)
		return;
	if (!before)
		json_array_append_new(
			p->warnings,
			json_sprintf("the kernel said thread %d spent %" PRIu64 " ns in %s, more than "
				     "its life (%" PRIu64 " ns) allows: a fault of the kernel's "
				     "accounting; the excess is dropped, the rest counted (kernel_faults, "
				     "kernel_faulted_ns)",
				     (int)f->tid, f->value, ts_field_names[f->field], f->age_ns));
	json_object_set_new(p->manifest, "kernel_faults", json_integer(p->tree.nfaults));
	json_t *ns = json_object();
	for (int i = 0; ns && i < TS_NFIELDS; i++)
		if (p->tree.faulted_ns[i])
			json_object_set_new(ns, ts_field_names[i], json_integer((json_int_t)p->tree.faulted_ns[i]));
	json_object_set_new(p->manifest, "kernel_faulted_ns", ns);
}

static void put_row(struct taskstats *p, bool lost)
{
	uint32_t known = lost ? 0 : p->counted;
	for (int f = 0; f < TS_NFIELDS; f++)
		jsonl_cell_int(p->row, ts_field_names[f], known & TS_BIT(f), (json_int_t)p->tree.delta[f]);
	jsonl_cell_int(p->row, "nthreads", true, p->nthreads);
}

static void ts_close_state(void *state)
{
	struct taskstats *p = state;
	if (!p)
		return;
	if (p->skel && p->manifest && json_object_get(p->manifest, "readings_still"))
		json_object_set_new(p->manifest, "readings_still", json_integer(p->still));
	if (p->reading) {
		(void)!write(p->stop[1], "x", 1);
		pthread_join(p->reader, NULL);
	}
	if (p->stop[0] >= 0) {
		close(p->stop[0]);
		close(p->stop[1]);
	}
	pthread_mutex_destroy(&p->lock);
	if (p->listen.nl)
		ts_unlisten(&p->listen);
	ts_close(&p->listen);
	ts_close(&p->ask);
	if (p->delayacct_fd >= 0)
		close(p->delayacct_fd);
	ts_tree_free(&p->tree);
	procfs_files_free(&p->files);
	pid_list_free(&p->queue);
	pid_list_free(&p->tids);
	pidmap_free(&p->visited);
	pid_list_free(&p->walked);
	pidmap_free(&p->process_of);
	if (p->threads_fd >= 0)
		close(p->threads_fd);
	free(p->threads_buf);
	taskstats_bpf__destroy(p->skel);
	free(p->walk_buf);
	free(p->ans);
	free(p->order);
	free(p->inbox);
	pidmap_free(&p->recorded);
	pidmap_free(&p->procs_scratch);
	free(p);
}

/* ---- config: the backend ---------------------------------------------- */

static void ts_init(void *priv)
{
	struct ts_config *c = priv;
	c->backend = TS_AUTO;
}

static int ts_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *v)
{
	struct ts_config *cfg = priv;
	if (strcmp(key, "backend"))
		return -ENOENT;
	int i;
	int r = cfg_choice(c, v, "taskstats backend", choice_names, sizeof(choice_names) / sizeof(choice_names[0]), &i);
	if (r == 0)
		cfg->backend = (enum ts_backend_choice)i;
	return r;
}

static void ts_describe(const void *priv, json_t *out)
{
	const struct ts_config *cfg = priv;
	json_object_set_new(out, "backend", json_string(choice_names[cfg->backend]));
}

static void destroy_bpf(void *skel)
{
	taskstats_bpf__destroy(skel);
}

/* The task iterator's programs, loaded (the iterator came in Linux 5.8). */
static int load_bpf(struct taskstats_bpf **out, struct errbuf *why)
{
	ebpf_quiet_libbpf();
	struct taskstats_bpf *skel = taskstats_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	int r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0 && (r = ebpf_load(skel->skeleton, why)) < 0 && !ebpf_refused(why))
		ebpf_older_than(why, 5, 8, r);
	if (r < 0) {
		taskstats_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

/* Whether the bpf backend reads the threads here: what it found into
 * manifest's "bpf", and cfg's choice and its reason. The exit records come
 * from netlink under either backend, so netlink must work first. */
static int choose_backend(struct ts_config *cfg, json_t *manifest, struct errbuf *why)
{
	cfg->bpf = false;
	if (cfg->backend == TS_NETLINK) {
		snprintf(cfg->backend_reason, sizeof(cfg->backend_reason), "set in the config");
		return 0;
	}
	json_t *facts = json_object();
	struct taskstats_bpf *skel = NULL;
	struct errbuf no;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	int r = ebpf_host_check(facts, &no);
	if (r == 0 && (r = load_bpf(&skel, &no)) == 0) /* kept for the sampler */
		ebpf_preload_keep(&cfg->preload, &before, skel, destroy_bpf);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(no.msg));
	json_object_set_new(manifest, "bpf", facts);
	cfg->bpf = r == 0;
	if (cfg->backend == TS_BPF && r < 0)
		return errbuf_set(why, -r, "backend bpf: %s", no.msg);
	snprintf(cfg->backend_reason, sizeof(cfg->backend_reason), "%s%s",
		 cfg->backend == TS_BPF ? "set in the config"
		 : r == 0	       ? "auto: the BPF task iterator loads here"
				       : "auto: bpf unavailable: ",
		 cfg->backend == TS_AUTO && r < 0 ? no.msg : "");
	return 0;
}

static int ts_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	struct ts_config *cfg = sc->priv;
	char v[16];
	bool known = procfs_read(DELAYACCT_PATH, v, sizeof(v)) > 0;
	v[strcspn(v, "\n")] = '\0';
	json_object_set_new(manifest, "task_delayacct",
			    json_pack("{s:o, s:b}", "value", known ? json_string(v) : json_null(),
				      "writable", faccessat(AT_FDCWD, DELAYACCT_PATH, W_OK, AT_EACCESS) == 0));

	struct ts_sock s;
	struct ts_record self;
	int r = ts_open(&s, 0, why);
	if (r == 0)
		r = ts_get(&s, gettid(), &self, why);
	if (r == 0 && (r = ts_listen(&s, why)) == 0)
		ts_unlisten(&s);
	ts_close(&s);
	if (r == -EPERM || r == -EACCES)
		return errbuf_set(why, EPERM, "taskstats needs CAP_NET_ADMIN (iotop runs as root for the same reason)");
	if (r == 0)
		r = choose_backend(cfg, manifest, why);
	json_object_set_new(manifest, "backend", r == 0 ? json_string(cfg->bpf ? "bpf" : "netlink") : json_null());
	json_object_set_new(manifest, "backend_reason", r == 0 ? json_string(cfg->backend_reason) : json_null());
	return r;
}

/* A kernel without the task_delayacct sysctl: before Linux 5.14 delay
 * accounting was on from boot unless the kernel was booted with
 * nodelayacct; from 5.14 the sysctl exists wherever the kernel accounts
 * delays at all. Whether the delays count, with why_off when not. */
static bool delayacct_without_sysctl(char *why_off, size_t cap)
{
	char cmdline[4096] = "";
	if (!kernel_older_than(5, 14)) {
		snprintf(why_off, cap, "the kernel accounts no delays (no " DELAYACCT ": CONFIG_TASK_DELAY_ACCT)");
		return false;
	}
	procfs_read("/proc/cmdline", cmdline, sizeof(cmdline));
	for (char *w = strtok(cmdline, " \n"); w; w = strtok(NULL, " \n"))
		if (strcmp(w, "nodelayacct") == 0) {
			snprintf(why_off, cap, "the kernel was booted with nodelayacct");
			return false;
		}
	return true;
}

static void ts_prepare(struct source_config *sc)
{
	struct ts_config *c = sc->priv;
	char v[16];
	struct errbuf why;
	if (access(DELAYACCT_PATH, F_OK) < 0 && errno == ENOENT) {
		c->no_sysctl = true;
		c->found_on = c->on = delayacct_without_sysctl(c->why_off, sizeof(c->why_off));
		return;
	}
	c->found_on = procfs_read(DELAYACCT_PATH, v, sizeof(v)) > 0 && v[0] == '1';
	c->on = host_settings_sysctl(DELAYACCT, "1", sc->ops->name, &why) == 0;
	if (!c->on)
		snprintf(c->why_off, sizeof(c->why_off), "%s", why.msg);
}

/* The fields this host provides: what the kernel's struct has (version
 * 0: the kernel answered nothing, why_none), less the I/O bytes a kernel
 * without CONFIG_TASK_IO_ACCOUNTING leaves at 0, less the delays when
 * task_delayacct is off (why_off). Each field left out goes into
 * null_fields with its reason. */
static uint32_t provided(const struct taskstats *p, unsigned version, uint32_t in_struct,
			 const char *why_none, const char *why_off, json_t *null_fields)
{
	uint32_t io_bytes = TS_BIT(TS_READ_BYTES) | TS_BIT(TS_WRITE_BYTES) | TS_BIT(TS_CANCELLED_WRITE_BYTES);
	char not_in_struct[96];
	snprintf(not_in_struct, sizeof(not_in_struct),
		 "the kernel's struct taskstats (version %u) has no such field", version);
	struct proc_io_counters io;
	bool io_counted = procfs_read_io(getpid(), &io) == 0 && io.present & (1u << IO_READ_BYTES);
	uint32_t m = in_struct;
	for (int f = 0; f < TS_NFIELDS; f++) {
		const char *reason = NULL;
		if (!version)
			reason = why_none;
		else if (!(in_struct & TS_BIT(f)))
			reason = not_in_struct;
		else if (!io_counted && io_bytes & TS_BIT(f))
			reason = "the kernel counts no task I/O bytes (CONFIG_TASK_IO_ACCOUNTING)";
		else if (!p->delays && TS_DELAYACCT & TS_BIT(f))
			reason = why_off;
		if (reason) {
			m &= ~TS_BIT(f);
			json_object_set_new(null_fields, ts_field_names[f], json_string(reason));
		}
	}
	return m;
}

/* The bpf backend's programs: this process's copy of what the probe loaded,
 * else a load of its own; attached first, then seeded: a fork from here on
 * is seen. */
static int open_bpf(struct taskstats *p, const struct ts_config *c, const struct target_info *t,
		    struct errbuf *why)
{
	int r = 0;
	p->skel = c->preload.skel;
	if (!p->skel && (r = load_bpf(&p->skel, why)) < 0)
		return r;
	p->skel->bss->skip_tgid = (__u32)t->keeper;
	ebpf_tree_ran_init(&p->ran, &p->skel->bss->tree_ran);
	if ((r = ebpf_tree_init(&p->btree, p->skel->obj, &p->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(p->skel->skeleton, why)) < 0)
		return r;
	return ebpf_tree_seed(&p->btree, p->root, true, t->observer, why);
}

static int ts_open_source(const struct source_config *sc, const struct target_info *t, json_t *row,
			  json_t *manifest, void **state, struct errbuf *why)
{
	const struct ts_config *c = sc->priv;
	struct taskstats *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->root = t->keeper ? t->keeper : t->pid;
	p->keeper = t->keeper;
	p->observer = t->observer;
	p->delayacct_fd = p->stop[0] = p->stop[1] = p->threads_fd = -1;
	procfs_files_init(&p->files);
	p->row = row;
	p->manifest = manifest;
	ts_tree_init(&p->tree);
	pthread_mutex_init(&p->lock, NULL);

	const char *why_off = c->why_off;
	p->delays = c->on;
	if (p->delays && !t->keeper && !c->found_on) {
		p->delays = false;
		why_off = "the target started before " DELAYACCT " was switched on, and the kernel "
			  "gives no delay records to a task forked while it is off";
	}
	if (p->delays && !c->no_sysctl && (p->delayacct_fd = open(DELAYACCT_PATH, O_RDONLY | O_CLOEXEC)) < 0)
		p->delays = false, why_off = DELAYACCT_PATH ": cannot be read";

	/* the answers to a batch wait in the asking socket's buffer */
	int r = ts_open(&p->ask, 1 << 20, why);
	if (r == 0)
		r = ts_open(&p->listen, RCVBUF, why);
	if (r == 0)
		r = ts_listen(&p->listen, why);
	if (r == 0 && pipe2(p->stop, O_CLOEXEC) < 0)
		r = errbuf_set(why, errno, "pipe: %s", strerror(errno));
	if (r == 0 && (r = -pthread_create(&p->reader, NULL, reader, p)) < 0)
		errbuf_set(why, -r, "pthread_create: %s", strerror(-r));
	p->reading = r == 0;

	struct ts_record self;
	struct errbuf unanswered = {0};
	unsigned version = r == 0 && ts_get(&p->ask, p->root, &self, &unanswered) == 0 ? self.version : 0;
	p->version = version;
	p->present = version ? self.present : 0;
	/* the cgroup's thread list needs each answer to name its process */
	if (t->keeper && version >= 12 && !c->bpf)
		p->threads_fd = cgroup_set_open_members(t->cgroups, true);
	if (r == 0 && c->bpf && version && (r = open_bpf(p, c, t, why)) < 0) {
		char detail[sizeof(why->msg)];
		snprintf(detail, sizeof(detail), "%s", why->msg);
		errbuf_set(why, -r, "backend bpf: %s", detail);
	}
	if (p->skel)
		p->walk_fd = bpf_link__fd(p->skel->links.ts_walk);

	/* The baseline: the rows count from here, the target still waiting. */
	bool lost;
	if (r == 0)
		r = measure(p, &lost, why);
	p->tree.nfaults = 0; /* a fault before the baseline changes no row */
	memset(p->tree.faulted_ns, 0, sizeof(p->tree.faulted_ns));
	if (r < 0) {
		ts_close_state(p);
		return r;
	}
	json_t *null_fields = json_object();
	p->counted = provided(p, version, version ? self.present : 0, unanswered.msg, why_off, null_fields);

	put_row(p, false);
	json_object_set_new(manifest, "taskstats_version", json_integer(version));
	json_object_set_new(manifest, "backend", json_string(p->skel ? "bpf" : "netlink"));
	json_object_set_new(manifest, "backend_reason", json_string(c->backend_reason));
	json_object_set_new(manifest, "tree", json_string(p->skel ? "fork" : p->threads_fd >= 0 ? "cgroup" : "walk"));
	json_object_set_new(manifest, "delays_counted", json_boolean(p->delays));
	json_object_set_new(manifest, "delays_reason", p->delays ? json_null() : json_string(why_off));
	json_object_set_new(manifest, "null_fields", null_fields);
	json_object_set_new(manifest, "exit_overflows", json_integer(0));
	json_object_set_new(manifest, "rows_nulled", json_integer(0));
	json_object_set_new(manifest, "kernel_faults", json_integer(0));
	json_object_set_new(manifest, "kernel_faulted_ns", json_object());
	if (p->skel)
		json_object_set_new(manifest, "readings_still", json_integer(0));
	json_object_set_new(manifest, "warnings", p->warnings = json_array());
	*state = p;
	return 0;
}

static int ts_sample(void *state, struct errbuf *why)
{
	struct taskstats *p = state;
	bool lost;
	unsigned faults = p->tree.nfaults;
	int r = measure(p, &lost, why);
	if (r < 0)
		return r;
	note_faults(p, faults);
	if (p->delays && p->delayacct_fd >= 0)
		check_delayacct(p);
	if (lost) {
		if (!p->rows_nulled)
			json_array_append_new(
				p->warnings,
				json_sprintf("taskstats exit records were lost (the receive buffer overflowed) "
					     "in the interval of row %zu: its counters are null, as in every "
					     "such row (rows_nulled)",
					     (size_t)0 + p->tree.tick - 2));
		p->rows_nulled++;
		json_object_set_new(p->manifest, "exit_overflows", json_integer(p->overflows));
		json_object_set_new(p->manifest, "rows_nulled", json_integer(p->rows_nulled));
	}
	put_row(p, lost);
	return 0;
}

/* What the probe loaded, for a sampler forked with a copy of its own, or
 * never. */
static void ts_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct ts_config *)sc->priv)->preload);
}

static size_t ts_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct ts_config *)sc->priv)->preload, fds, max);
}

const struct collector_ops taskstats_ops = {
	.name = "taskstats",
	.available_in_deployment = true,
	.priv_size = sizeof(struct ts_config),
	.init = ts_init,
	.parse_key = ts_parse_key,
	.describe = ts_describe,
	.probe = ts_probe,
	.release = ts_release,
	.inherited = ts_inherited,
	.prepare = ts_prepare,
	.open = ts_open_source,
	.sample = ts_sample,
	.close = ts_close_state,
};
