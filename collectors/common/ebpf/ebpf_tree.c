// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Seeding the tree map from /proc. */
#include "ebpf_tree.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "ebpf_tree_map.h"
#include "pidmap.h"
#include "procfs.h"

int ebpf_tree_size(struct bpf_map *map, struct errbuf *why)
{
	/* 0 without /proc/sys (a container may hide it): EBPF_TREE_MAX */
	long pid_max = procfs_sysctl_long("/proc/sys/kernel/pid_max", 0);
	if (pid_max <= 0 || (unsigned long)pid_max >= bpf_map__max_entries(map))
		return 0;
	int r = bpf_map__set_max_entries(map, (__u32)pid_max);
	return r < 0 ? errbuf_set(why, -r, "sizing %s: %s", bpf_map__name(map), strerror(-r)) : 0;
}

int ebpf_tree_init(struct ebpf_tree *t, struct bpf_object *obj, const __u64 *overflow,
		   struct errbuf *why)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "tree");
	if (!map)
		return errbuf_set(why, ENOENT, "the eBPF object has no tree map");
	t->map_fd = bpf_map__fd(map);
	t->max = bpf_map__max_entries(map);
	t->starts = bpf_map__value_size(map) == sizeof(__u64);
	t->overflow = overflow;
	return 0;
}

static bool alive(const struct proc_stat *st)
{
	return st->state != 'Z' && st->state != 'X';
}

/* Adds pid, a child of parent (0: any); 1 when it joined, 0 when it was not
 * (no longer) that process, -errno on a map error. The second look decides:
 * alive and the same start time after the insert means its exit, whenever
 * it comes, finds it in the map; otherwise the entry may be stale and goes. */
static int join(struct ebpf_tree *t, pid_t pid, pid_t parent)
{
	struct proc_stat before, after;
	if (procfs_read_stat(pid, &before) < 0 || !alive(&before) ||
	    (parent && before.ppid != parent))
		return 0;
	__u32 key = (__u32)pid;
	__u8 member = 1;
	__u64 start = TREE_SEEDED;
	if (bpf_map_update_elem(t->map_fd, &key, t->starts ? (void *)&start : &member, BPF_ANY) < 0)
		return -errno;
	if (procfs_read_stat(pid, &after) == 0 && alive(&after) &&
	    after.starttime == before.starttime)
		return 1;
	bpf_map_delete_elem(t->map_fd, &key);
	return 0;
}

int ebpf_tree_seed(struct ebpf_tree *t, pid_t root, bool descendants, pid_t skip,
		   struct errbuf *why)
{
	int r = join(t, root, 0);
	if (r <= 0)
		return r < 0 ? errbuf_set(why, -r, "adding %d to the tree map: %s", (int)root,
					   strerror(-r))
			     : errbuf_set(why, ESRCH, "pid %d: no such process", (int)root);
	if (!descendants)
		return 0;

	struct pid_list members = {0}, kids = {0};
	struct pidmap joined = {0}; /* members, to look up; skip, as if it were one */
	r = pid_list_add(&members, root);
	if (r == 0 && (r = pidmap_add(&joined, root, 0)) > 0)
		r = 0;
	if (r == 0 && skip > 0 && (r = pidmap_add(&joined, skip, 0)) > 0)
		r = 0;
	for (bool grew = true; grew && r == 0;) {
		grew = false;
		for (size_t i = 0; r == 0 && i < members.n; i++) {
			struct proc_stat st;
			kids.n = 0;
			if (procfs_read_stat(members.v[i], &st) < 0 ||
			    procfs_children(members.v[i], st.num_threads, &kids) < 0)
				continue; /* gone: its exit took it out */
			for (size_t k = 0; r == 0 && k < kids.n; k++) {
				if (pidmap_get(&joined, kids.v[k]))
					continue;
				int j = join(t, kids.v[k], members.v[i]);
				if (j > 0 && (r = pid_list_add(&members, kids.v[k])) == 0 &&
				    (r = pidmap_add(&joined, kids.v[k], 0)) >= 0) {
					r = 0;
					grew = true;
				}
				else if (j < 0)
					r = j;
			}
		}
	}
	pid_list_free(&members);
	pid_list_free(&kids);
	pidmap_free(&joined);
	if (r == 0 && (r = ebpf_tree_check(t, why)) < 0)
		return r;
	return r < 0 ? errbuf_set(why, -r, "adding the tree of %d to the tree map: %s", (int)root,
				  strerror(-r))
		     : 0;
}

int ebpf_tree_check(const struct ebpf_tree *t, struct errbuf *why)
{
	if (__atomic_load_n(t->overflow, __ATOMIC_RELAXED) == 0)
		return 0;
	return errbuf_set(why, ENOSPC,
			  "the target's tree had more than %u processes at once: the eBPF tree map is full",
			  t->max);
}

void ebpf_tree_ran_init(struct ebpf_tree_ran *r, struct tree_ran *counts)
{
	int n = libbpf_num_possible_cpus();
	*r = (struct ebpf_tree_ran){.counts = counts, .ncpus = n > 0 && n <= TREE_CPUS ? (unsigned)n : 0};
}

/* The counts now; false when they cannot tell (a CPU past TREE_CPUS) or a
 * task of the tree is on a CPU. */
static bool ran_counts(const struct ebpf_tree_ran *r, uint64_t *sum)
{
	const struct tree_ran *k = r->counts;
	bool off = r->ncpus && !__atomic_load_n(&k->beyond, __ATOMIC_ACQUIRE);
	*sum = __atomic_load_n(&k->changes, __ATOMIC_ACQUIRE);
	for (unsigned c = 0; c < r->ncpus; c++) {
		*sum += __atomic_load_n(&k->cpus[c].switches, __ATOMIC_ACQUIRE);
		off = off && !__atomic_load_n(&k->cpus[c].running, __ATOMIC_ACQUIRE);
	}
	return off;
}

void ebpf_tree_ran_mark(struct ebpf_tree_ran *r)
{
	ran_counts(r, &r->mark);
	r->marked = true;
	__atomic_store_n(&r->counts->walk_saw_running, 0, __ATOMIC_RELEASE);
}

bool ebpf_tree_still(const struct ebpf_tree_ran *r)
{
	uint64_t now;
	return r->marked && ran_counts(r, &now) && now == r->mark &&
	       !__atomic_load_n(&r->counts->walk_saw_running, __ATOMIC_ACQUIRE);
}
