/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tree map's size, shared by tree.bpf.h and ebpf_tree.c. */
#ifndef IOPSAMPLE_EBPF_TREE_MAP_H
#define IOPSAMPLE_EBPF_TREE_MAP_H

#include <linux/types.h>

/* Processes of one tree alive at once (threads do not count), at most.
 * Preallocated, so that the fork path never allocates: 80 bytes an entry,
 * 5 MiB at this size. ebpf_tree_size() lowers it to the host's pid_max
 * where that is smaller (32768: 2.5 MiB), which no tree can outgrow, since
 * each of its processes holds a pid until it is reaped. */
#define EBPF_TREE_MAX 65536

/* A seeded process's value in a map of start times (TREE_UNTIL_REAPED):
 * not known yet (no process starts 1 ns after boot). */
#define TREE_SEEDED 1

/* What of the tree ran (TREE_RAN), in the program's .bss. */
#define TREE_CPUS 1024
struct tree_ran {
	/* a CPU's context switches that took a task of the tree off it or
	 * onto it, and whether one is on it now: written by that CPU alone,
	 * a cache line each */
	struct tree_cpu {
		__u64 switches;
		__u32 running;
		__u32 pad[13];
	} cpus[TREE_CPUS];
	__u64 changes; /* processes joined and freed */
	__u32 beyond;  /* a switch of the tree on a CPU past TREE_CPUS */
	/* a task of the tree on a CPU during the walk, zeroed by the sampler
	 * before each: one that joined the tree while on its CPU (seeded) is
	 * on no CPU's count until it is switched off */
	__u32 walk_saw_running;
};

#endif
