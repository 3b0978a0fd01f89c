/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A per-CPU slot of counters, shared by an eBPF program that adds to it and
 * the sampler that reads it (ebpf_slots.h). Compiles for both sides.
 *
 * A source's counters are a struct that begins with struct ebpf_slot_seq and
 * holds nothing but 64-bit counters after it, EBPF_SLOT_ALIGN-aligned. The
 * program takes the slot of the CPU it runs on, and brackets every update
 * with EBPF_SLOT_ENTER / EBPF_SLOT_LEAVE: the reader takes a copy of a slot
 * only when no update was under way while it read, so one event's counters
 * (a call, its bytes, its histogram bucket) land in the same row. */
#ifndef IOPSAMPLE_EBPF_SLOT_H
#define IOPSAMPLE_EBPF_SLOT_H

#include <linux/types.h>

#define EBPF_SLOT_ALIGN 64

struct ebpf_slot_seq {
	__u64 ended; /* updates finished */
	__u64 begun; /* updates started */
};

#ifdef __bpf__
/* The sequence words' adds are full barriers. A fetching atomic add is one
 * on every JIT (x86 lock xadd, arm64 ldaddal); a plain one need not be
 * (arm64 stadd), but is on x86 (lock add), where it is used: the fetching
 * forms came in Linux 5.12, and a kernel before it refuses them. Elsewhere
 * the empty asm uses the result so that the compiler emits the fetching
 * form. BPF programs are preemptible: two updates of one CPU's slot may
 * interleave, which the two counts (not a parity bit) tolerate, and every
 * counter is added atomically (falcosecurity/libs#2719: a plain += loses
 * updates). */
#if defined(__TARGET_ARCH_x86)
#define EBPF_SLOT_BUMP(p) __sync_fetch_and_add((p), 1)
#else
#define EBPF_SLOT_BUMP(p)                                                                          \
	({                                                                                         \
		__u64 old_ = __sync_fetch_and_add((p), 1);                                         \
		asm volatile("" ::"r"(old_));                                                      \
	})
#endif
#define EBPF_SLOT_ENTER(seq) EBPF_SLOT_BUMP(&(seq)->begun)
#define EBPF_SLOT_LEAVE(seq) EBPF_SLOT_BUMP(&(seq)->ended)
#define EBPF_SLOT_ADD(p, v) __sync_fetch_and_add((p), (v))

/* The array map of a source's slots, type slot_t: one for each possible CPU
 * id up to the highest (ebpf_slots_size() sets the number before load),
 * mapped read-only by the sampler (BPF_F_MMAPABLE). */
#define EBPF_SLOTS_MAP(name, slot_t)                                                               \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__uint(map_flags, BPF_F_MMAPABLE);                                                 \
		__uint(max_entries, 1);                                                            \
		__type(key, __u32);                                                                \
		__type(value, slot_t);                                                             \
	} name SEC(".maps")

/* The running CPU's slot of an array map with one slot per possible CPU
 * (BPF_F_MMAPABLE, so the sampler reads it without a syscall). The program
 * cannot migrate while it runs. */
#define EBPF_THIS_CPU_SLOT(map)                                                                    \
	({                                                                                         \
		__u32 cpu_ = bpf_get_smp_processor_id();                                           \
		bpf_map_lookup_elem((map), &cpu_);                                                 \
	})
#endif

#endif
