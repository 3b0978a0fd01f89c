/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What syscall_io's eBPF program and its user side (sio_ebpf.c) share: the
 * per-CPU counters and the tables the program is loaded with. */
#ifndef IOPSAMPLE_SIO_SLOT_H
#define IOPSAMPLE_SIO_SLOT_H

#include "common/ebpf/ebpf_slot.h"
#include "syscall_io/sio_rules.h"

/* Syscall numbers of the native ABI below this can be counted (the ptrace
 * tracer's TRACER_MAX_NR). */
#define SIO_MAX_NR 512
/* sio_index[nr] of a syscall that is not counted */
#define SIO_NOT_COUNTED 0xff

/* One CPU's counts since the program was loaded, by counted syscall (config
 * order: calls, bytes, errors and time), and by side (enum io_dir): the
 * size and time histograms, the time, and the calls and bytes by kind of
 * descriptor (a side's calls and bytes are sums). Laid out as struct
 * sio_totals after the sequence words. Only ever added to: the sampler
 * takes differences. */
struct sio_slot {
	struct ebpf_slot_seq seq;
	__u64 calls[SIO_MAX_SYSCALLS];
	__u64 bytes[SIO_MAX_SYSCALLS];
	__u64 errors[SIO_MAX_SYSCALLS];
	__u64 time_ns[SIO_MAX_SYSCALLS];
	__u64 hist[2][SIO_HIST_BUCKETS];
	__u64 time_hist[SIO_TIME_HISTS][SIO_HIST_BUCKETS];
	__u64 side_time_ns[2];
	__u64 untimed;
	__u64 kind_calls[2][SIO_KINDS];
	__u64 kind_bytes[2][SIO_KINDS];
	__u64 pattern[SIO_PATTERNS];
	__u64 file_hist[2][SIO_HIST_BUCKETS]; /* a side's calls on regular files alone, by size */
} __attribute__((aligned(EBPF_SLOT_ALIGN)));

/* Whose history of which file (sio_files): the process (its tgid, the
 * start time and exec count of its leader, so that a pid used again or an
 * exec starts afresh, as a new Darshan would) and the file (st_dev,
 * st_ino). */
struct sio_file_key {
	__u64 ino;
	__u64 start_ns;
	__u64 exec_id;
	__u32 dev;
	__u32 tgid;
};
/* Histories followed at once, at most (least recently used first out). */
#define SIO_FILES_MAX 16384

/* A descriptor Darshan knows (sio_fds): the process as in sio_file_key,
 * and the descriptor. */
struct sio_fd_key {
	__u64 start_ns;
	__u64 exec_id;
	__u32 tgid;
	__s32 fd;
};

#endif
