// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io, the kernel side of its bpf backend (pio_bpf.c): the tree's
 * /proc/PID/io sums from one walk of the kernel's task list, with no text
 * formatted and no file opened per process.
 *
 * What /proc/PID/io gives for a process is its signal_struct's ioac (its
 * released threads' and the children it reaped) plus each of its threads'
 * own, read under the signal's stats_lock. The walk adds the same for every
 * process of the tree: each task's ioac, and each leader's signal's. Its
 * tasks come in pid order, not parents first, and no lock is held, so
 * what moves counts from one place to another while it runs could count
 * twice or not at all:
 *
 *   - a thread's release (its ioac into the signal's, and it leaves the
 *     task list) and a reap (the child's totals into the parent's signal,
 *     then the child's release) are written under stats_lock's seqcount.
 *     Each task adds a hash of its pid and its process's sequence to the
 *     walk's signature, and the number of tasks: two walks with the same
 *     signature saw no such move between their visits of any task;
 *   - a reap begins by setting the child's exit_state to EXIT_DEAD, before
 *     the parent's counts move: a walk that meets a task in that state is
 *     not settled;
 *   - every move is of a task that exited (sched_process_exit fires before
 *     a release or a reap can happen) and was not freed yet
 *     (sched_process_free, a grace period after its release): exited_live
 *     counts those of the tree. A walk that starts with none and during
 *     which none exits is settled alone, the steady state of an idle tree.
 *
 * The tree is tree.bpf.h's map, kept until a process is freed, not until it
 * exits: a zombie's counts are the tree's until its reaper takes them. */
#define TREE_UNTIL_REAPED
#define TREE_RAN
#include "common/ebpf/tree.bpf.h"
#include "proc_io/pio_bpf_layout.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EXIT_DEAD 16

/* iopsample's keeper: its counts are the tree's (its reaped children's go
 * to it), but it is not one of the tree's processes (nprocs). Set at open,
 * after the load (ebpf_preload.h). */
__u32 keeper;

/* Exits of the tree's tasks, and those exited and not yet freed */
__u64 exits;
__s64 exited_live;
__u64 exited_lost; /* an exit the map could not hold: no walk is settled alone */

/* The walk's, zeroed by the sampler before each */
__u64 sum[PIO_FIELDS];
__u64 signature, ntasks;
__u32 nprocs, dead;

/* The tree's tasks exited and not yet freed: task_struct address -> 1 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EBPF_TREE_MAX);
	__type(key, __u64);
	__type(value, __u8);
} exited SEC(".maps");

static __always_inline void add_io(struct task_io_accounting *io)
{
	sum[PIO_RCHAR] += io->rchar;
	sum[PIO_WCHAR] += io->wchar;
	sum[PIO_SYSCR] += io->syscr;
	sum[PIO_SYSCW] += io->syscw;
	sum[PIO_READ_BYTES] += io->read_bytes;
	sum[PIO_WRITE_BYTES] += io->write_bytes;
	sum[PIO_CANCELLED_WRITE_BYTES] += io->cancelled_write_bytes;
}

SEC("iter/task")
int pio_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	if (!t || !tree_has_task(t, true))
		return 0;
	struct signal_struct *sig = t->signal;
	tree_walk_saw(t);
	add_io(&t->ioac);
	if (t == t->group_leader) {
		add_io(&sig->ioac);
		/* a process whose leader is a zombie is one /proc shows as Z */
		if (!t->exit_state && (__u32)t->tgid != keeper)
			nprocs++;
	}
	if (t->exit_state & EXIT_DEAD)
		dead++;
	__u64 seq = sig->stats_lock.seqcount.seqcount.sequence;
	signature += ((__u64)(__u32)t->pid * 0x9E3779B97F4A7C15ull) ^ (seq * 0xC2B2AE3D27D4EB4Full);
	ntasks++;
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pio_exit, struct task_struct *t)
{
	__u64 key = (__u64)t;
	__u8 one = 1;
	if (!tree_has_task(t, false))
		return 0;
	__sync_fetch_and_add(&exits, 1);
	if (bpf_map_update_elem(&exited, &key, &one, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&exited_live, 1);
	else
		__sync_fetch_and_add(&exited_lost, 1);
	return 0;
}

/* A grace period after its release (tree.bpf.h's iops_tree_free takes
 * its process out of the tree). */
SEC("tp_btf/sched_process_free")
int BPF_PROG(pio_free, struct task_struct *t)
{
	__u64 key = (__u64)t;
	if (bpf_map_delete_elem(&exited, &key) == 0)
		__sync_fetch_and_sub(&exited_live, 1);
	return 0;
}
