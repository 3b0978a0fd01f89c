/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The user side of the tree map (tree.bpf.h): seeding it with the target,
 * and with the tree that already runs when iopsample attaches. */
#ifndef IOPSAMPLE_EBPF_TREE_H
#define IOPSAMPLE_EBPF_TREE_H

#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "log.h"

struct ebpf_tree {
	int map_fd;
	bool starts; /* the map keeps start times (TREE_UNTIL_REAPED) */
	const __u64 *overflow; /* the program's tree_overflow, in its mapped .bss */
};

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

#endif
