// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waits' bpf backend: each thread of the tree from one walk of the
 * kernel's task list (waits.bpf.c says what it reads), classified here by
 * the same rules as the procfs backend's (wait_class.h): the stack's
 * return addresses named from /proc/kallsyms, the first outside the
 * scheduler's text standing for wchan. A poll's, select's or epoll's set
 * is in the thread's memory, which a walk cannot read: it is read as the
 * procfs backend reads it (wait_fds.h), for a thread that waits somewhere
 * new. When no thread of the tree has been on a CPU since the last walk
 * (tree.bpf.h's TREE_RAN), there is no walk: every thread is where it was. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "common/ebpf/ebpf.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/ebpf/ebpf_tree.h"
#include "common/ksyms.h"
#include "waits.skel.h"
#include "waits_backend.h"
#include "waits_bpf_layout.h"

struct wb_state {
	struct waits_bpf *skel;
	struct waits_tick *tk;
	struct ebpf_tree tree;
	struct ebpf_tree_ran ran;
	struct ksyms ksyms;
	int walk_fd;
	char *buf;
	size_t cap;
	struct pidmap tgids; /* the tree's processes at the last walk */
	unsigned still;      /* ticks with no walk */
	bool runnable;       /* the last walk found a thread running or runnable */
	json_t *manifest;
};

static void destroy(void *skel)
{
	waits_bpf__destroy(skel);
}

/* The iterator (5.8), bpf_get_task_stack (5.9) and bpf_task_pt_regs (5.15). */
static int load(struct waits_bpf **out, struct errbuf *why)
{
	ebpf_quiet_libbpf();
	struct waits_bpf *skel = waits_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	int r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0)
		r = ebpf_tree_size(skel->maps.seen, why);
	if (r == 0 && (r = ebpf_load(skel->skeleton, why)) < 0 && !ebpf_refused(why))
		ebpf_older_than(why, 5, 15, r);
	if (r < 0) {
		waits_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

static int bpf_probe(struct waits_config *cfg, json_t *facts, struct errbuf *why)
{
	struct ksyms k;
	int r = ksyms_load(&k);
	if (r < 0)
		return errbuf_set(why, -r, "/proc/kallsyms: %s", r == -EPERM ? "its addresses are hidden from this user" : strerror(-r));
	ksyms_free(&k);
	struct waits_bpf *skel;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	if ((r = ebpf_host_check(facts, why)) == 0 && (r = load(&skel, why)) == 0)
		ebpf_preload_keep(&cfg->preload, &before, skel, destroy);
	return r;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* /proc's letter for a task state (include/linux/sched.h's bits). */
static char state_letter(uint32_t s)
{
	if (s == 0)
		return 'R';
	if ((s & 0x402) == 0x402)
		return 'I'; /* TASK_IDLE: uninterruptible, not counted in the load */
	if (s & 0x2)
		return 'D';
	if (s & 0x1)
		return 'S';
	if (s & 0x4)
		return 'T';
	if (s & 0x8)
		return 't';
	return 'X';
}

/* Where a thread the walk found waiting waits: its stack named (the first
 * frame outside the scheduler is its function), its call's descriptors. */
static enum wait_class classify(struct wb_state *b, const struct waits_bpf_thread *t, const uint64_t *frames,
				char fn[48], int *mount)
{
	struct wait_obs o = {.state = state_letter(t->state), .flags = t->flags};
	*mount = -1;
	fn[0] = '\0';
	uint32_t n = t->nframes < WAIT_FRAMES ? t->nframes : WAIT_FRAMES;
	for (uint32_t i = (uint32_t)ksyms_past_scheduler(&b->ksyms, frames, n); i < n; i++) {
		const char *name = ksyms_name(&b->ksyms, frames[i]);
		if (!name)
			continue;
		if (!o.fn) {
			snprintf(fn, 48, "%s", name);
			o.fn = fn;
		} else if (o.nstack < WAIT_STACK_MAX) {
			o.stack[o.nstack++] = name;
		}
	}
	long call = t->call.call;
	o.call = call == WAIT_LAYOUT_NO_CALL ? WAIT_NO_CALL : call < 0 ? WAIT_CALL_UNKNOWN : call;
	int fd_arg, m = -1;
	enum wait_set set;
	if (o.call >= 0 && wait_call_fd(o.call, &fd_arg, &set)) {
		if (set == WAIT_SET_NONE && fd_arg == 0) {
			o.fds_known = t->call.fd_kind != WAIT_LAYOUT_FD_NONE;
			if (o.fds_known) {
				int kind = (int)t->call.fd_kind - 1;
				o.kinds = WFD_BIT(kind);
				o.nfds = 1;
				if (kind == WFD_FUSE || kind == WFD_REMOTE)
					m = wait_fds_mount_of_dev(&b->tk->fds, t->tgid, t->call.fd_dev);
			}
		} else {
			o.fds_known = wait_fds_of_call(&b->tk->fds, t->tgid, o.call, (const unsigned long *)t->call.args,
						       &o.kinds, &o.nfds, &m);
		}
		*mount = m;
		if (m >= 0 && b->tk->fds.mount[m].kind == WFD_FUSE) {
			pid_t d = wait_fds_daemon(&b->tk->fds, m);
			o.daemon_in_tree = d && pidmap_get(&b->tgids, d);
		}
	}
	return wait_classify(&o);
}

/* One run of the iterator over every task, its records into b->buf. */
static ssize_t walk(struct wb_state *b)
{
	return ebpf_iter_read(b->walk_fd, &b->buf, &b->cap, 1 << 20);
}

static int measure(struct wb_state *b)
{
	struct wait_account *a = &b->tk->acct;
	uint64_t now = monotonic_ns(); /* the tick's, as close to the row's as can be */
	int r;
	/* no walk only where every thread waited at the last: a runnable
	 * one may get a CPU by a switch no program sees (a kernel that skips
	 * programs while its agent's task is current: docs/data-model.md),
	 * and would be replayed runnable while it runs */
	if (!b->runnable && ebpf_tree_still(&b->ran)) {
		wait_account_begin(a, now);
		b->still++;
		r = wait_account_replay(a);
		wait_account_end(a);
		return r;
	}
	ebpf_tree_ran_mark(&b->ran);
	ssize_t len = walk(b);
	if (len < 0)
		return (int)len;
	wait_account_begin(a, now);
	b->runnable = false;
	/* the tree's processes first: a FUSE daemon of the tree is its own */
	pidmap_clear(&b->tgids);
	for (size_t at = 0; at + sizeof(struct waits_bpf_thread) <= (size_t)len;) {
		const struct waits_bpf_thread *t = (const void *)(b->buf + at);
		if ((r = pidmap_add(&b->tgids, (pid_t)t->tgid, 0)) < 0)
			return r;
		at += sizeof(*t) + (t->nframes < WAIT_FRAMES ? t->nframes : WAIT_FRAMES) * sizeof(uint64_t);
	}
	r = 0;
	for (size_t at = 0; r == 0 && at + sizeof(struct waits_bpf_thread) <= (size_t)len;) {
		struct waits_bpf_thread t;
		memcpy(&t, b->buf + at, sizeof(t));
		uint32_t n = t.nframes < WAIT_FRAMES ? t.nframes : WAIT_FRAMES;
		uint64_t frames[WAIT_FRAMES];
		memcpy(frames, b->buf + at + sizeof(t), n * sizeof(uint64_t));
		at += sizeof(t) + n * sizeof(uint64_t);
		struct wait_thread *th = wait_account_thread(a, (pid_t)t.tid, (pid_t)t.tgid, t.start_ns);
		if (!th)
			return -ENOMEM;
		char state = state_letter(t.state);
		b->runnable |= state == 'R';
		enum wait_class wait = WC_OTHER;
		int mount = -1;
		char fn[48] = "";
		if (state != 'R') {
			if (t.same && !th->fresh && th->waiting) {
				wait = th->wait;
				mount = th->mount;
				snprintf(fn, sizeof(fn), "%s", th->fn);
			} else {
				wait = classify(b, &t, frames, fn, &mount);
			}
		}
		th->on_cpu = (int)t.on_cpu;
		r = wait_account_add(a, th, true, t.run_ns, t.runq_ns, t.switches, state, wait, mount, fn);
	}
	wait_account_end(a);
	return r;
}

static void bpf_close(void *state)
{
	struct wb_state *b = state;
	if (!b)
		return;
	if (b->manifest)
		json_object_set_new(b->manifest, "readings_still", json_integer(b->still));
	waits_bpf__destroy(b->skel);
	ksyms_free(&b->ksyms);
	pidmap_free(&b->tgids);
	free(b->buf);
	free(b);
}

static int bpf_open(const struct waits_config *cfg, const struct target_info *t, struct waits_tick *tk,
		    json_t *manifest, void **state, struct errbuf *why)
{
	pid_t root = t->keeper ? t->keeper : t->pid;
	struct wb_state *b = calloc(1, sizeof(*b));
	if (!b)
		return errbuf_set(why, ENOMEM, "out of memory");
	b->tk = tk;
	int r = ksyms_load(&b->ksyms);
	if (r < 0) {
		free(b);
		return errbuf_set(why, -r, "/proc/kallsyms: %s", strerror(-r));
	}
	b->skel = cfg->preload.skel;
	if (!b->skel && (r = load(&b->skel, why)) < 0) {
		ksyms_free(&b->ksyms);
		free(b);
		return r;
	}
	b->skel->bss->keeper = (__u32)t->keeper;
	ebpf_tree_ran_init(&b->ran, &b->skel->bss->tree_ran);
	if ((r = ebpf_tree_init(&b->tree, b->skel->obj, &b->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(b->skel->skeleton, why)) < 0 ||
	    (r = ebpf_tree_seed(&b->tree, root, true, t->observer, why)) < 0) {
		bpf_close(b);
		return r;
	}
	b->walk_fd = bpf_link__fd(b->skel->links.waits_walk);
	json_object_set_new(manifest, "tree", json_string("fork"));
	json_object_set_new(manifest, "schedstat", json_true());
	json_object_set_new(manifest, "kernel_stacks", json_true());
	json_object_set_new(manifest, "readings_still", json_integer(0));
	if ((r = ebpf_tree_check(&b->tree, why)) < 0 || (r = measure(b)) < 0) { /* the baseline */
		if (r != -ENOSPC)
			errbuf_set(why, -r, "walking the tasks: %s", strerror(-r));
		bpf_close(b);
		return r;
	}
	b->manifest = manifest;
	*state = b;
	return 0;
}

static int bpf_measure(void *state, struct errbuf *why)
{
	struct wb_state *b = state;
	int r = ebpf_tree_check(&b->tree, why);
	if (r < 0)
		return r;
	r = measure(b);
	return r < 0 ? errbuf_set(why, -r, "walking the tasks: %s", strerror(-r)) : 0;
}

const struct waits_backend waits_bpf = {
	.name = "bpf",
	.probe = bpf_probe,
	.open = bpf_open,
	.measure = bpf_measure,
	.close = bpf_close,
};
