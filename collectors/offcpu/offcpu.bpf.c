// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* offcpu, the kernel side: every thread of the tree timed from the
 * scheduler, on a CPU, on the run queue, and off both, each wait keyed by
 * where it is (its kernel stack, its call and the descriptors the call
 * waits on, its state), from the switch that took the thread off its CPU.
 *
 *   sched_switch  the thread going off: its time running ends; it stays
 *                 runnable (preempted, or woken before it slept: on_rq)
 *                 or waits, keyed now, while it is current (its stack,
 *                 its pt_regs, its memory for a poll's set). The thread
 *                 coming on: its time runnable ends;
 *   sched_wakeup  a waiting thread made runnable: its wait ends, charged
 *                 whole to its key in `done` (sched_wakeup_new: a thread
 *                 born runnable);
 *   the walk      (iter/task) at each tick: every thread of the tree with
 *                 what it is doing since when, for the time of waits in
 *                 progress: the sampler charges each to the rows it was
 *                 spent in, not when it ends. A thread it finds with no
 *                 state yet (the tree as it was at the start) is given one.
 *
 * Each tick's reading is of one instant for each thread. The sampler
 * starts a tick by moving `epoch` on; what ends after that is charged to
 * the other half of `done` and of the counters (the epoch's parity), and
 * to the thread's `late`. The sampler waits for the programs that read
 * the epoch before (`busy`), reads the half no longer written, then walks: a wait that ended between the two is in the thread's `late`,
 * not lost to the next tick (it is in the other half too, which the
 * sampler reads at the next tick, in place of what `late` said).
 *
 * The tree is tree.bpf.h's map. Linux 5.17 (bpf_task_pt_regs, 5.15;
 * bpf_loop, for a poll's set). */
#include "common/ebpf/tree.bpf.h"
#include "common/ebpf/wait.bpf.h"
#include "common/ebpf/ebpf_slot.h"
#include "offcpu/offcpu_layout.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set at open: iopsample's keeper, not of the tree's threads; the calls
 * whose descriptors are a set (this architecture's numbers, -1 where it
 * has none). */
__u32 keeper;
const volatile __s32 nr_poll = -1, nr_ppoll = -1, nr_select = -1, nr_pselect6 = -1;
const volatile __s32 nr_epoll_wait = -1, nr_epoll_pwait = -1, nr_epoll_pwait2 = -1;

/* The sampler's tick, set by it. Completed, by the tick's parity: the
 * time of every thread of the tree on a CPU and on the run queue. And
 * switches that went off a CPU; states that could not be kept. */
__u64 epoch;
__u64 running_ns[2], runnable_ns[2];
__u64 switches, lost, stacks_lost, unseen_ins;

struct thread {
	__u64 since;
	__u32 what;
	__u32 pad;
	struct offcpu_key key;
	struct offcpu_late late;
	__u64 exec; /* its sum_exec_runtime when it last went off a CPU */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct thread);
} threads SEC(".maps");

/* each wait's time, whole, once it ended */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768); /* each key in two halves */
	__type(key, struct offcpu_key);
	__type(value, __u64);
} done SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_FRAMES * sizeof(__u64));
} stacks SEC(".maps");

/* ---- the kernel's structures a set is read from ---- */

struct rb_node___o {
	unsigned long __rb_parent_color;
	struct rb_node___o *rb_right;
	struct rb_node___o *rb_left;
} __attribute__((preserve_access_index));

struct rb_root_cached___o {
	struct rb_node___o *rb_leftmost;
} __attribute__((preserve_access_index));

struct eventpoll {
	struct rb_root_cached___o rbr;
} __attribute__((preserve_access_index));

struct epoll_filefd {
	struct file *file;
	int fd;
} __attribute__((preserve_access_index));

struct epitem {
	struct rb_node___o rbn;
	struct epoll_filefd ffd;
} __attribute__((preserve_access_index));

struct sched_entity___o {
	unsigned char sched_delayed; /* 6.12+: dequeued later, still runnable */
} __attribute__((preserve_access_index));

struct task_struct___o {
	struct sched_entity___o se;
} __attribute__((preserve_access_index));

/* The descriptors of a set, at most SET_MAX, walked */
#define SET_MAX 8

static __always_inline bool of_tree(struct task_struct *t)
{
	__u32 tgid = t->tgid;
	return t->pid && tgid != keeper && bpf_map_lookup_elem(&tree, &tgid);
}

/* /proc's letter for a state (include/linux/sched.h's bits) */
static __always_inline __u8 letter(__u32 s)
{
	if ((s & 0x402) == 0x402)
		return 'I';
	if (s & 0x2)
		return 'D';
	if (s & 0x1)
		return 'S';
	if (s & 0x4)
		return 'T';
	if (s & 0x8)
		return 't';
	return s ? 'X' : 'R';
}

/* A call's set, read as the task goes to sleep (it is current): its
 * descriptors gathered first, then each one's file looked at, one
 * bpf_loop turn each (Linux 5.17), so the verifier walks one turn. */
struct set {
	struct offcpu_key *k;
	int fds[SET_MAX];
	__u32 n;
	__u64 bits[2];
	__u64 nbits;
	struct rb_node___o *node;
	__u32 steps;
};

static __always_inline void add_kind(struct offcpu_key *k, __u32 kind, __u32 dev)
{
	if (kind == WAIT_LAYOUT_FD_NONE)
		return;
	k->kinds |= 1u << ((kind - 1) & 31);
	k->nfds++;
	if ((kind == WAIT_K_FUSE || kind == WAIT_K_REMOTE) && !k->dev)
		k->dev = dev;
}

static long look_at_fd(__u32 i, void *arg)
{
	struct set *s = arg;
	if (i >= SET_MAX || i >= s->n)
		return 1;
	int fd = s->fds[i & (SET_MAX - 1)];
	if (fd < 0)
		return 0;
	__u32 kind, dev;
	wait_fd_kind(bpf_get_current_task_btf(), (unsigned long)fd, &kind, &dev);
	add_kind(s->k, kind, dev);
	return 0;
}

/* select's bit i, as a descriptor to look at */
static long select_bit(__u32 i, void *arg)
{
	struct set *s = arg;
	if (i >= 128 || i >= s->nbits || s->n >= SET_MAX)
		return 1;
	if (s->bits[(i / 64) & 1] & (1ull << (i % 64)))
		s->fds[s->n++ & (SET_MAX - 1)] = (int)i;
	return 0;
}

/* One step of an in-order walk of an epoll's red-black tree: the node's
 * file looked at, then the next node (the right subtree's leftmost, else
 * up while a right child). Read without the epoll's mutex: bounded, and an
 * item freed meanwhile only ends the walk early. */
static long epoll_step(__u32 i, void *arg)
{
	struct set *s = arg;
	struct rb_node___o *node = s->node;
	if (!node || s->n >= SET_MAX)
		return 1;
	struct epitem *item = (void *)node;
	struct file___w *file = (void *)BPF_CORE_READ(item, ffd.file);
	if (file) {
		__u32 kind, dev;
		wait_file_kind(file, &kind, &dev);
		add_kind(s->k, kind, dev);
		s->n++;
	}
	struct rb_node___o *next = BPF_CORE_READ(node, rb_right);
	if (next) {
		for (int d = 0; d < 24; d++) {
			struct rb_node___o *left = BPF_CORE_READ(next, rb_left);
			if (!left)
				break;
			next = left;
		}
	} else {
		next = 0;
		for (int d = 0; d < 24; d++) {
			struct rb_node___o *parent = (void *)(BPF_CORE_READ(node, __rb_parent_color) & ~3ul);
			if (!parent || BPF_CORE_READ(parent, rb_right) != node) {
				next = parent;
				break;
			}
			node = parent;
		}
	}
	s->node = next;
	return 0;
}

static __always_inline void read_set(__s32 nr, const __u64 *args, struct offcpu_key *k)
{
	struct set s = {.k = k};
	if (nr == nr_poll || nr == nr_ppoll) {
		struct {
			int fd;
			short events, revents;
		} p[SET_MAX];
		__u64 n = args[1] < SET_MAX ? args[1] : SET_MAX;
		if (n && bpf_probe_read_user(p, (n * sizeof(p[0])) & 0x7f, (void *)args[0]) < 0)
			return;
		/* each in its own slot (one of no descriptor is -1) */
		for (int i = 0; i < SET_MAX; i++)
			s.fds[i] = i < (int)n ? p[i].fd : -1;
		s.n = SET_MAX;
		bpf_loop(SET_MAX, look_at_fd, &s, 0);
	} else if (nr == nr_select || nr == nr_pselect6) {
		__u64 one[2];
		for (int i = 1; i <= 3; i++)
			if (args[i] && bpf_probe_read_user(one, sizeof(one), (void *)args[i]) == 0) {
				s.bits[0] |= one[0];
				s.bits[1] |= one[1];
			}
		s.nbits = args[0];
		bpf_loop(128, select_bit, &s, 0);
		bpf_loop(SET_MAX, look_at_fd, &s, 0);
	} else {
		struct file___w *f = wait_fd_file(bpf_get_current_task_btf(), args[0]);
		struct eventpoll *ep = f ? BPF_CORE_READ(f, private_data) : 0;
		s.node = ep ? BPF_CORE_READ(ep, rbr.rb_leftmost) : 0;
		bpf_loop(SET_MAX, epoll_step, &s, 0);
	}
	k->fds_known = 1;
}

/* Where t waits, as it goes off its CPU (t is current): ctx for its stack. */
static __always_inline void key_of(void *ctx, struct task_struct *t, __u32 state, struct offcpu_key *k)
{
	struct wait_layout_call c;
	__builtin_memset(k, 0, sizeof(*k));
	k->state = letter(state);
	k->memalloc = (BPF_CORE_READ((struct task_struct___w *)t, flags) & 0x800) != 0;
	long id = ctx ? bpf_get_stackid(ctx, &stacks, 0) : -1;
	if (ctx && id < 0)
		__sync_fetch_and_add(&stacks_lost, 1);
	k->stack = (__s32)id;
	wait_call_of(t, &c);
	k->call = (__s32)c.call;
	if (c.call < 0)
		return;
	__s32 nr = (__s32)c.call;
	if (nr == nr_poll || nr == nr_ppoll || nr == nr_select || nr == nr_pselect6 || nr == nr_epoll_wait ||
	    nr == nr_epoll_pwait || nr == nr_epoll_pwait2) {
		if (ctx) /* t is current: its memory, its files */
			read_set(nr, c.args, k);
	} else if (c.fd_kind != WAIT_LAYOUT_FD_NONE) {
		k->kinds = 1u << ((c.fd_kind - 1) & 31);
		k->nfds = 1;
		k->fds_known = 1;
		if (c.fd_kind == WAIT_K_FUSE || c.fd_kind == WAIT_K_REMOTE)
			k->dev = c.fd_dev;
	}
}

/* Programs under way on each CPU: the sampler, having moved `epoch` on,
 * waits for each CPU's to be none once before it reads the half left, so
 * none that read the epoch before is still charging it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} busy SEC(".maps");

/* Under way, then the epoch read: the add must be a full barrier, as
 * EBPF_SLOT_BUMP's (x86's lock add; elsewhere the fetching form, which
 * arm64 JITs with acquire and release) */
static __always_inline __u64 *enter(__u64 *e)
{
	__u32 zero = 0;
	__u64 *b = bpf_map_lookup_elem(&busy, &zero);
	if (b)
		EBPF_SLOT_BUMP(b);
	*e = epoch;
	return b;
}

static __always_inline void leave(__u64 *b)
{
	if (b)
		EBPF_SLOT_ADD(b, -1);
}

/* th's charges since the tick e began */
static __always_inline struct offcpu_late *late_of(struct thread *th, __u64 e)
{
	if (th->late.epoch != e) {
		__builtin_memset(&th->late, 0, sizeof(th->late));
		th->late.epoch = e;
	}
	return &th->late;
}

/* Time from since to now: 0 where a walk on another CPU made the state
 * after this program read its clock */
static __always_inline __u64 since_to(const struct thread *th, __u64 now)
{
	return now > th->since ? now - th->since : 0;
}

static __always_inline void ran(struct thread *th, __u64 e, __u64 ns)
{
	__sync_fetch_and_add(&running_ns[e & 1], ns);
	late_of(th, e)->run_ns += ns;
}

static __always_inline void queued(struct thread *th, __u64 e, __u64 ns)
{
	__sync_fetch_and_add(&runnable_ns[e & 1], ns);
	late_of(th, e)->runq_ns += ns;
}

/* th's wait ended: its time to its key, in the tick's half of `done` */
static __always_inline void waited(struct thread *th, __u64 e, __u64 ns)
{
	struct offcpu_key k = th->key;
	k.parity = e & 1;
	__u64 *v = bpf_map_lookup_elem(&done, &k);
	if (v)
		__sync_fetch_and_add(v, ns);
	else if (bpf_map_update_elem(&done, &k, &ns, BPF_NOEXIST) < 0 && (v = bpf_map_lookup_elem(&done, &k)))
		__sync_fetch_and_add(v, ns);
	struct offcpu_late *l = late_of(th, e);
	if (!l->wait_ns) {
		l->wait_ns = ns;
		l->key = th->key;
	}
}

/* th, runnable or waiting since its since, found on a CPU at now with its
 * switch in never reported (a kernel that skips programs while its agent's
 * task is current, as docs/data-model.md's VM): of its time since, the
 * scheduler's count of its running (exec, against th's at its last switch
 * out) is running, the rest as it was. */
static __always_inline void unseen_in(struct thread *th, __u64 e, __u64 now, __u64 exec)
{
	__u64 spent = since_to(th, now), run = exec > th->exec ? exec - th->exec : 0;
	if (run > spent)
		run = spent;
	if (th->what == OFFCPU_RUNNABLE)
		queued(th, e, spent - run);
	else
		waited(th, e, spent - run);
	ran(th, e, run);
	__sync_fetch_and_add(&unseen_ins, 1);
}

/* A thread's state, made when missing; NULL when the map is full. */
static __always_inline struct thread *state_of(struct task_struct *t)
{
	__u32 tid = t->pid;
	struct thread *th = bpf_map_lookup_elem(&threads, &tid);
	if (th)
		return th;
	struct thread none = {.exec = BPF_CORE_READ((struct task_struct___w *)t, se.sum_exec_runtime)};
	if (bpf_map_update_elem(&threads, &tid, &none, BPF_NOEXIST) < 0 &&
	    !(th = bpf_map_lookup_elem(&threads, &tid))) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	return th ? th : bpf_map_lookup_elem(&threads, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool out = of_tree(prev), in = of_tree(next);
	if (!out && !in)
		return 0;
	__u64 now = bpf_ktime_get_ns(), e;
	__u64 *b = enter(&e);
	if (out) {
		__u32 tid = prev->pid;
		struct thread *th = state_of(prev);
		if (th) {
			__u64 exec = BPF_CORE_READ((struct task_struct___w *)prev, se.sum_exec_runtime);
			if (th->what == OFFCPU_RUNNING) {
				ran(th, e, since_to(th, now));
			} else if (th->what == OFFCPU_RUNNABLE || th->what == OFFCPU_WAITING) {
				unseen_in(th, e, now, exec);
			}
			th->exec = exec;
			__u32 state = wait_task_state(prev);
			struct task_struct___w *w = (void *)prev;
			/* 6.12+: a task that sleeps may stay on its run queue,
			 * its dequeue delayed (EEVDF's lag): it sleeps */
			bool delayed = false;
			struct task_struct___o *o = (void *)prev;
			if (bpf_core_field_exists(o->se.sched_delayed))
				delayed = BPF_CORE_READ(o, se.sched_delayed);
			if (prev->exit_state || (state & 0x80)) { /* TASK_DEAD: its last switch */
				bpf_map_delete_elem(&threads, &tid);
			} else if (preempt || state == 0 || (BPF_CORE_READ(w, on_rq) == 1 && !delayed)) {
				th->what = OFFCPU_RUNNABLE;
				th->since = now;
			} else {
				th->what = OFFCPU_WAITING;
				th->since = now;
				key_of(ctx, prev, state, &th->key);
				__sync_fetch_and_add(&switches, 1);
			}
		}
	}
	if (in) {
		struct thread *th = state_of(next);
		if (th) {
			if (th->what == OFFCPU_RUNNABLE)
				queued(th, e, since_to(th, now));
			else if (th->what == OFFCPU_WAITING) /* its wake-up not seen */
				waited(th, e, since_to(th, now));
			th->what = OFFCPU_RUNNING;
			th->since = now;
		}
	}
	leave(b);
	return 0;
}

static __always_inline void woken(struct task_struct *p)
{
	if (!of_tree(p))
		return;
	__u64 now = bpf_ktime_get_ns(), e;
	__u64 *b = enter(&e);
	struct thread *th = state_of(p);
	if (th && th->what == OFFCPU_WAITING) {
		waited(th, e, since_to(th, now));
		th->what = OFFCPU_RUNNABLE;
		th->since = now;
	} else if (th && th->what == OFFCPU_NONE) {
		th->what = OFFCPU_RUNNABLE;
		th->since = now;
	}
	leave(b);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(offcpu_wakeup, struct task_struct *p)
{
	woken(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(offcpu_wakeup_new, struct task_struct *p)
{
	woken(p);
	return 0;
}

/* The walk: each thread of the tree, what it does since when. */
SEC("iter/task")
int offcpu_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	if (!t || !of_tree(t) || t->exit_state)
		return 0;
	struct offcpu_now r = {.tid = t->pid, .tgid = t->tgid, .now_ns = bpf_ktime_get_ns()};
	__u32 tid = t->pid;
	struct thread *th = bpf_map_lookup_elem(&threads, &tid);
	if (!th) {
		/* not switched since the start: from now, as it is */
		struct thread fresh = {.since = r.now_ns,
				       .exec = BPF_CORE_READ((struct task_struct___w *)t, se.sum_exec_runtime)};
		__u32 state = wait_task_state(t);
		if (t->on_cpu)
			fresh.what = OFFCPU_RUNNING;
		else if (state == 0)
			fresh.what = OFFCPU_RUNNABLE;
		else {
			fresh.what = OFFCPU_WAITING;
			key_of(0, t, state, &fresh.key);
		}
		bpf_map_update_elem(&threads, &tid, &fresh, BPF_NOEXIST);
		th = bpf_map_lookup_elem(&threads, &tid);
		if (!th)
			return 0;
	}
	/* on a CPU, its switch in not reported: switched in here, as the
	 * switch out does it (the scheduler's count of a thread running on
	 * another CPU lags by a tick at most: that much stays in the wait) */
	if (th->what != OFFCPU_RUNNING && th->what != OFFCPU_NONE && t->on_cpu) {
		__u64 exec = BPF_CORE_READ((struct task_struct___w *)t, se.sum_exec_runtime);
		unseen_in(th, epoch, r.now_ns, exec);
		th->what = OFFCPU_RUNNING;
		th->since = r.now_ns;
		th->exec = exec;
	}
	/* read while a program on another CPU may change them: between its
	 * charge and its move of since (a few instructions) a slice could be
	 * read twice, or in neither (then in the next row) */
	r.late = th->late;
	r.what = th->what;
	r.since_ns = th->since;
	r.key = th->key;
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
