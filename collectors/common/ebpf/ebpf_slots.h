/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The sampler's side of per-CPU slots (ebpf_slot.h): the array map mapped
 * into the sampler's memory, each CPU's slot copied only while no update
 * is under way, and the copies summed.
 *
 * Why not BPF_MAP_TYPE_PERCPU_ARRAY: its only reader is a bpf() lookup
 * that memcpy()s each CPU's value with no order and no barrier, so a copy
 * taken while the program adds to it cannot be told from a whole one, and a
 * row could hold a call without its bytes. A plain array with one slot per
 * possible CPU, mapped read-only (BPF_F_MMAPABLE), is the same per-CPU
 * layout with the reads in our hands: no syscall per tick either.
 *
 * Counters only grow; the caller takes differences between reads. A slot
 * found mid-update after a few tries (its program preempted) keeps its
 * previous copy: that CPU's newest counts move to the next read, and no
 * read waits for a program, but once no next read may come to leave them
 * to (ebpf_slots_wait_whole). */
#ifndef IOPSAMPLE_EBPF_SLOTS_H
#define IOPSAMPLE_EBPF_SLOTS_H

#include <bpf/libbpf.h>
#include <jansson.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

struct ebpf_slots {
	const __u64 *map; /* nslots slots of words each */
	size_t map_len; /* mapped by ebpf_slots_open; 0 after ebpf_slots_init */
	size_t words;
	unsigned nslots;
	__u64 *copy;    /* each slot's last whole copy */
	__u64 *scratch; /* a copy in progress */
	__u64 *total;   /* the sum of the copies; its sequence words are 0 */
	uint64_t deferred; /* slots whose newest counts a read left for the next */
	uint64_t lost;     /* of those, left when no next read may come */
	int64_t wait_whole_ns; /* 0, or how long a read waits for a slot mid-update */
	uint64_t reported; /* deferred as the manifest last said it */
};

/* Before load: a slot for each possible CPU id (up to the highest). */
int ebpf_slots_size(struct bpf_map *map, struct errbuf *why);
/* After load: maps it read-only; slot_size is sizeof the source's slot
 * struct. */
int ebpf_slots_open(struct ebpf_slots *s, struct bpf_map *map, size_t slot_size,
		    struct errbuf *why);
/* The same over slots somewhere in memory (the unit tests' writer); -ENOMEM. */
int ebpf_slots_init(struct ebpf_slots *s, const void *slots, size_t slot_size, unsigned nslots);
/* The sum over CPUs, laid out as the source's slot struct (aligned for it). */
const void *ebpf_slots_read(struct ebpf_slots *s);
/* From here on a read may be the last, with no read after it (the tree is
 * gone: a source's finish): a slot found mid-update is read again, a
 * moment later each time, until it is whole, for at most wait_ns; only
 * then is it left (counted in deferred, and in lost: those counts may be
 * in no row). */
void ebpf_slots_wait_whole(struct ebpf_slots *s, int64_t wait_ns);
/* How long a source's last reads wait for a slot mid-update. */
#define EBPF_FINAL_WAIT_NS (1000LL * 1000 * 1000)
/* The manifest entry's "slots_deferred": how many slot reads so far left a
 * CPU's newest counts for the next row; set when it changed (and the first
 * time); and "slots_lost" when a final read had to leave some. */
void ebpf_slots_report(struct ebpf_slots *s, json_t *manifest);
void ebpf_slots_close(struct ebpf_slots *s);

#endif
