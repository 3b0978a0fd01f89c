/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The user side of the tree map (tree.bpf.h): seeding it with the target,
 * and with the tree that already runs when iopsample attaches. */
#ifndef IOPSAMPLE_EBPF_TREE_H
#define IOPSAMPLE_EBPF_TREE_H

#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/ebpf/ebpf_tree_map.h"
#include "log.h"

struct ebpf_tree {
	int map_fd;
	unsigned max; /* processes the map holds */
	bool starts; /* the map keeps start times (TREE_UNTIL_REAPED) */
	const __u64 *overflow; /* the program's tree_overflow, in its mapped .bss */
};

/* Between the skeleton's open and its load: sizes map, one that holds the
 * tree's processes or tasks, to the host's pid_max where that is under
 * EBPF_TREE_MAX. */
int ebpf_tree_size(struct bpf_map *map, struct errbuf *why);
/* obj's map "tree"; overflow points at the skeleton's bss->tree_overflow. */
int ebpf_tree_init(struct ebpf_tree *t, struct bpf_object *obj, const __u64 *overflow,
		   struct errbuf *why);
/* Puts root into the tree and, with descendants, every process below it
 * that runs now but skip and its own (attach mode: each found under its
 * parent, again until a pass finds nothing new; the fork program follows
 * from there). Call it after the programs are attached. A process is kept
 * only if it is still the same one after it went in, so a pid that died and
 * was reused meanwhile never counts a stranger. -ESRCH when root is gone. */
int ebpf_tree_seed(struct ebpf_tree *t, pid_t root, bool descendants, pid_t skip,
		   struct errbuf *why);
/* 0, or -ENOSPC when a fork found the map full (the tree lost a process). */
int ebpf_tree_check(const struct ebpf_tree *t, struct errbuf *why);

/* Whether the tree ran since the last walk (TREE_RAN in tree.bpf.h): the
 * program's counts, in its mapped .bss. */
struct ebpf_tree_ran {
	struct tree_ran *counts;
	unsigned ncpus; /* the host's possible CPUs; 0: never still */
	bool marked;
	uint64_t mark; /* the counts at the last walk */
};

void ebpf_tree_ran_init(struct ebpf_tree_ran *r, struct tree_ran *counts);
/* Right before a walk: the counts it starts from. */
void ebpf_tree_ran_mark(struct ebpf_tree_ran *r);
/* True when, since the last mark, no task of the tree was switched on or
 * off a CPU, none is on one now nor was during that walk, and no process
 * joined the tree or was freed: a walk would sum what the last one did. */
bool ebpf_tree_still(const struct ebpf_tree_ran *r);

#endif
