// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waits, the kernel side of its bpf backend (waits_bpf.c): one walk of the
 * kernel's task list writes, for each thread of the tree, what its procfs
 * backend reads from /proc/TID/task/TID/{stat,schedstat,syscall,stack}:
 * its state and flags, its time on a CPU and on the run queue and how
 * often it got one, and, for a thread that waits and has been on a CPU or
 * changed state since the last walk, its call with its arguments, what
 * the descriptor of the first is, and its kernel stack. The tree is
 * tree.bpf.h's map; TREE_RAN lets the sampler skip a walk when no thread
 * of the tree has run since the last. */
#define TREE_RAN
#include "common/ebpf/tree.bpf.h"
#include "common/ebpf/wait.bpf.h"
#include "waits/waits_bpf_layout.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* iopsample's keeper, not one of the tree's threads. Set at open. */
__u32 keeper;

/* Where the last walk found each waiting thread: its state and how often
 * it had had a CPU. LRU: a thread gone leaves its entry to be pushed out. */
struct last {
	__u64 switches;
	__u32 state;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct last);
} seen SEC(".maps");

struct record {
	struct waits_bpf_thread t;
	__u64 frames[WAIT_FRAMES];
};

/* The record being written: too large for the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct record);
} scratch SEC(".maps");

SEC("iter/task")
int waits_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	__u32 zero = 0;
	if (!t || !tree_has_tgid(t) || (__u32)t->tgid == keeper || t->exit_state)
		return 0;
	tree_walk_saw(t);
	struct record *r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	struct task_struct___w *w = (void *)t;
	r->t.tid = t->pid;
	r->t.tgid = t->tgid;
	r->t.start_ns = t->start_time;
	r->t.now_ns = bpf_ktime_get_ns();
	r->t.run_ns = BPF_CORE_READ(w, se.sum_exec_runtime);
	r->t.runq_ns = BPF_CORE_READ(w, sched_info.run_delay);
	r->t.switches = BPF_CORE_READ(w, sched_info.pcount);
	r->t.state = wait_task_state(t);
	r->t.flags = BPF_CORE_READ(w, flags);
	r->t.same = 0;
	r->t.on_cpu = t->on_cpu != 0;
	r->t.nframes = 0;
	r->t.call.call = WAIT_LAYOUT_CALL_UNKNOWN;
	__u32 tid = t->pid;
	if (r->t.state == 0 || t->on_cpu) {
		bpf_map_delete_elem(&seen, &tid);
	} else {
		struct last *l = bpf_map_lookup_elem(&seen, &tid);
		if (l && l->switches == r->t.switches && l->state == r->t.state) {
			r->t.same = 1;
		} else {
			struct last now = {.switches = r->t.switches, .state = r->t.state};
			bpf_map_update_elem(&seen, &tid, &now, BPF_ANY);
			wait_call_of(t, &r->t.call);
			long got = bpf_get_task_stack(t, r->frames, sizeof(r->frames), 0);
			r->t.nframes = got > 0 ? (__u32)got / sizeof(__u64) : 0;
		}
	}
	__u32 n = r->t.nframes;
	if (n > WAIT_FRAMES)
		n = WAIT_FRAMES;
	bpf_seq_write(ctx->meta->seq, r, sizeof(r->t) + n * sizeof(__u64));
	return 0;
}
