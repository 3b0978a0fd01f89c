// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* taskstats, the kernel side of its bpf backend (taskstats.c): one walk of
 * the kernel's task list writes, for each thread of the tree, what a
 * TASKSTATS_CMD_GET for it would answer, without a netlink message per
 * thread: its delays and CPU (the kernel's delayacct_add_tsk()), its
 * context switches and age (bacct_add_tsk()), its I/O (xacct_add_tsk(),
 * which rounds each counter down to a KiB, as here). The exit records still
 * come from the kernel's taskstats listener, as the netlink backend's do:
 * what a thread counted at its exit is known there and nowhere a walk can
 * see. The tree is tree.bpf.h's map, kept until a process is freed. */
#define TREE_UNTIL_REAPED
#define TREE_RAN
#include "common/ebpf/tree.bpf.h"
#include "taskstats/ts_bpf_layout.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define KB_MASK (~(__u64)1023)

/* iopsample's keeper: asked for like the rest in the episode cgroup's
 * list; left out here when the netlink backend would walk past it. Set at
 * open, after the load (ebpf_preload.h). */
__u32 skip_tgid;

struct task_delay_info {
	__u64 blkio_delay, swapin_delay, freepages_delay, thrashing_delay;
	__u64 compact_delay, wpcopy_delay, irq_delay;
	__u32 blkio_count, swapin_count, freepages_count, thrashing_count;
	__u32 compact_count, wpcopy_count, irq_count;
} __attribute__((preserve_access_index));

struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay;
} __attribute__((preserve_access_index));

struct sched_entity {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct___ts {
	int tgid;
	struct task_struct *real_parent;
	struct task_delay_info *delays;
	struct sched_info sched_info;
	struct sched_entity se;
	unsigned long nvcsw, nivcsw;
} __attribute__((preserve_access_index));

/* The record being written: too large for the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ts_bpf_thread);
} scratch SEC(".maps");

SEC("iter/task")
int ts_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	__u32 zero = 0;
	if (!t || !tree_has_task(t, true) || (__u32)t->tgid == skip_tgid)
		return 0;
	tree_walk_saw(t);
	struct ts_bpf_thread *r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	struct task_struct___ts *x = (void *)t;
	r->tid = t->pid;
	r->tgid = t->tgid;
	r->ppid = x->real_parent->tgid;
	r->live = !t->exit_state;
	r->now_ns = bpf_ktime_get_ns();
	r->age_ns = r->now_ns - t->start_time;

	__u64 *v = r->v;
	v[0] = x->sched_info.run_delay;
	v[1] = x->sched_info.pcount;
	struct task_delay_info *d = x->delays;
	if (d) {
		v[2] = d->blkio_delay;
		v[3] = d->blkio_count;
		v[4] = d->swapin_delay;
		v[5] = d->swapin_count;
		v[6] = d->freepages_delay;
		v[7] = d->freepages_count;
		v[8] = d->thrashing_delay;
		v[9] = d->thrashing_count;
		v[10] = bpf_core_field_exists(d->compact_delay) ? d->compact_delay : 0;
		v[11] = bpf_core_field_exists(d->compact_count) ? d->compact_count : 0;
		v[12] = bpf_core_field_exists(d->wpcopy_delay) ? d->wpcopy_delay : 0;
		v[13] = bpf_core_field_exists(d->wpcopy_count) ? d->wpcopy_count : 0;
		v[14] = bpf_core_field_exists(d->irq_delay) ? d->irq_delay : 0;
		v[15] = bpf_core_field_exists(d->irq_count) ? d->irq_count : 0;
	} else {
		for (int i = 2; i < 16; i++)
			v[i] = 0;
	}
	v[16] = t->ioac.read_bytes & KB_MASK;
	v[17] = t->ioac.write_bytes & KB_MASK;
	v[18] = t->ioac.cancelled_write_bytes & KB_MASK;
	v[19] = t->ioac.syscr & KB_MASK;
	v[20] = t->ioac.syscw & KB_MASK;
	v[21] = t->ioac.rchar & KB_MASK;
	v[22] = t->ioac.wchar & KB_MASK;
	v[23] = x->nvcsw;
	v[24] = x->nivcsw;
	v[25] = x->se.sum_exec_runtime;
	bpf_seq_write(ctx->meta->seq, r, sizeof(*r));
	return 0;
}
