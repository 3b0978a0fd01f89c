/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The target's process tree, held in the kernel: a hash of tgids that the
 * sampler seeds (ebpf_tree.h) and these two programs keep, after Tracee's
 * sched_process_fork tree map. A source's .bpf.c includes this once and
 * asks tree_has_current() before it counts.
 *
 *   fork: a new process whose forking task is in the tree joins it, before
 *         the child runs its first instruction (the tracepoint fires in
 *         kernel_clone() ahead of wake_up_new_task());
 *   exit: the last thread of a process leaves it. do_exit() counts
 *         signal->live down before this tracepoint, and the tgid stays
 *         taken until the zombie is reaped, so no other process can get
 *         that pid while it is in the map: pid reuse never counts a
 *         stranger.
 *
 * Threads need nothing: they share their process's tgid, an exec from a
 * non-leader thread included.
 *
 * A source that reads zombies too (proc_io's task iterator: a zombie's
 * counts are the tree's until it is reaped) defines TREE_UNTIL_REAPED
 * before including this. Then no exit takes a process out: the source
 * does, once the process is freed, and since its pid may be another's by
 * then, the map keeps each process's start time (TREE_SEEDED for one
 * seeded from /proc, until the source has seen it), and an entry whose
 * start time is not the process's names a stranger.
 *
 * A source that reads the tree's counters by walking it (a task iterator)
 * defines TREE_RAN: then each CPU counts the switches that take a task of
 * the tree on or off it (tree_ran), and the fork and free programs count
 * the tree's changes. A task's counters (its I/O, CPU, delays, switches)
 * change only while it runs, its process's only while one of its tasks
 * runs (exits, reaps) or when it is freed: so when no count moved since a
 * walk and no task of the tree is on a CPU, nothing a walk would sum has
 * changed, and the sampler need not walk (ebpf_tree_still()). */
#ifndef IOPSAMPLE_TREE_BPF_H
#define IOPSAMPLE_TREE_BPF_H

#include "common/ebpf/ebpf_tree_map.h"
#include "common/ebpf/kernel.bpf.h"

#ifdef TREE_UNTIL_REAPED
typedef __u64 tree_value_t;
#define TREE_VALUE(child) ((child)->start_time)
#else
typedef __u8 tree_value_t;
#define TREE_VALUE(child) 1
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EBPF_TREE_MAX);
	__type(key, __u32);
	__type(value, tree_value_t);
} tree SEC(".maps");

/* Forks that could not join a full map: the sampler fails rather than miss
 * a process. */
__u64 tree_overflow;

#ifdef TREE_RAN
struct tree_ran tree_ran;
#define TREE_CHANGED() __sync_fetch_and_add(&tree_ran.changes, 1)
#else
#define TREE_CHANGED() ((void)0)
#endif

static __always_inline int tree_has_current(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tree, &tgid) != 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(iops_tree_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, tgid = child->tgid;
	tree_value_t member = TREE_VALUE(child);
	if (tgid == ptgid || !bpf_map_lookup_elem(&tree, &ptgid))
		return 0;
	if (bpf_map_update_elem(&tree, &tgid, &member, BPF_ANY) < 0)
		__sync_fetch_and_add(&tree_overflow, 1);
	else
		TREE_CHANGED();
	return 0;
}

#ifdef TREE_UNTIL_REAPED
/* Whether t's process is of the tree: its entry holds the process's start
 * time (or TREE_SEEDED, which it learns here with learn). A stale entry,
 * of a process freed since whose pid went to a stranger, goes. */
static __always_inline bool tree_has_task(struct task_struct *t, bool learn)
{
	__u32 tgid = t->tgid;
	__u64 *start = bpf_map_lookup_elem(&tree, &tgid);
	if (!start)
		return false;
	__u64 leader_start = t->group_leader->start_time;
	if (*start == leader_start)
		return true;
	if (*start == TREE_SEEDED) {
		if (learn)
			*start = leader_start;
		return true;
	}
	if (learn)
		bpf_map_delete_elem(&tree, &tgid);
	return false;
}

/* A grace period after its release, when its task is freed: the pid may
 * be another's by now, so the process leaves the tree only if its entry is
 * still its own. */
SEC("tp_btf/sched_process_free")
int BPF_PROG(iops_tree_free, struct task_struct *t)
{
	__u32 tgid = t->tgid;
	if (t != t->group_leader)
		return 0;
	__u64 *start = bpf_map_lookup_elem(&tree, &tgid);
	if (start && (*start == t->start_time || *start == TREE_SEEDED) &&
	    bpf_map_delete_elem(&tree, &tgid) == 0)
		TREE_CHANGED();
	return 0;
}
#else
SEC("tp_btf/sched_process_exit")
int BPF_PROG(iops_tree_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;
	if (task->signal->live.counter == 0)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}
#endif

#ifdef TREE_RAN
/* Whether t's process has an entry: a stale one (a stranger with a freed
 * process's pid) costs a walk, never a count. */
static __always_inline bool tree_has_tgid(struct task_struct *t)
{
	__u32 tgid = t->tgid;
	return t->pid && bpf_map_lookup_elem(&tree, &tgid);
}

/* The same three arguments from Linux 5.5 (5.18 added prev_state after
 * them). */
SEC("tp_btf/sched_switch")
int BPF_PROG(iops_tree_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool off = tree_has_tgid(prev), on = tree_has_tgid(next);
	if (!off && !on)
		return 0;
	__u32 cpu = bpf_get_smp_processor_id();
	if (cpu >= TREE_CPUS) {
		tree_ran.beyond = 1;
		return 0;
	}
	struct tree_cpu *c = &tree_ran.cpus[cpu];
	*(volatile __u64 *)&c->switches = c->switches + 1;
	*(volatile __u32 *)&c->running = on;
	return 0;
}

/* In the walk, for each task of the tree it reads. */
static __always_inline void tree_walk_saw(struct task_struct *t)
{
	if (t->on_cpu)
		tree_ran.walk_saw_running = 1;
}
#endif

#endif
