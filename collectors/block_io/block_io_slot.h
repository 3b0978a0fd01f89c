/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What block_io's eBPF program and its user side (block_io.c) share: the
 * per-CPU counters and the device table the program is loaded with. */
#ifndef IOPSAMPLE_BLOCK_IO_SLOT_H
#define IOPSAMPLE_BLOCK_IO_SLOT_H

#include "common/ebpf/ebpf_slot.h"
#include "common/log2_hist.h"

/* Selected devices at most (block_devices.h's BLK_MAX_DEVICES); a device's
 * index in the program's tables is its index in the selection. */
#define BIO_DEVICES 64
/* bio_devices' value for "not selected" */
#define BIO_NO_DEVICE 0xff

/* A device's counters. The tree's: every bio one of its processes
 * submitted, counted when the bio completes. Everyone's (ALL_*): every
 * read or write request the device completed, as /proc/diskstats counts
 * them. */
enum bio_counter {
	BIO_READ_OPS,
	BIO_READ_BYTES,
	BIO_WRITE_OPS,
	BIO_WRITE_BYTES,
	BIO_FLUSH_OPS,
	BIO_DISCARD_OPS,
	BIO_DISCARD_BYTES,
	BIO_ALL_READ_OPS,
	BIO_ALL_READ_BYTES,
	BIO_ALL_WRITE_OPS,
	BIO_ALL_WRITE_BYTES,
	BIO_COUNTERS
};

enum bio_dir {
	BIO_DIR_READ,
	BIO_DIR_WRITE,
	BIO_DIR_OTHER, /* a discard, or a flush alone: in ends_inferred only */
	BIO_DIRS
};

/* The tree's bios in flight at most (tree_bios' size). */
#define TREE_BIOS_MAX 65536

/* tree_bios' value: what a bio of the tree will count when it ends. */
enum tree_bio_kind { TB_READ, TB_WRITE, TB_DISCARD, TB_NONE };
struct tree_bio {
	__u64 queue_ns;
	__u64 issue_ns; /* 0 until a request holding it is issued */
	__u32 bytes;
	__u8 kind;   /* enum tree_bio_kind */
	__u8 flush;  /* asked for a cache flush first (REQ_PREFLUSH) */
	__u8 dev[2]; /* its device's index and its disk's, or BIO_NO_DEVICE */
	/* taken at the throttle (blk-throttle), where the tree submitted it:
	 * not queued yet, only its device known; block_bio_queue fills the
	 * rest when the throttle lets it go, from a kworker */
	__u8 held;
};

/* One CPU's counts since the program was loaded. A bio to a partition
 * counts in the partition's entry and in its disk's, when selected; the
 * histograms count each of the tree's reads and writes once, the latency
 * histogram only those whose end a program saw. ends_inferred: the tree's
 * bios (reads, writes, discards, flushes) whose end no program saw,
 * counted when their address came back as a new bio (see block_io.bpf.c).
 * Only ever added to: the sampler takes differences. */
struct bio_slot {
	struct ebpf_slot_seq seq;
	__u64 dev[BIO_DEVICES][BIO_COUNTERS];
	__u64 size_hist[2][LOG2_HIST_BUCKETS];    /* by enum bio_dir, bytes */
	__u64 latency_hist[2][LOG2_HIST_BUCKETS]; /* by enum bio_dir, microseconds */
	__u64 ends_inferred[BIO_DIRS];            /* by enum bio_dir */
	/* bytes of bios of the episode's own v1 blkio cgroup queued to each
	 * device, in any task: beside the throttle's own count of what entered
	 * it (blkio.throttle.io_service_bytes), what it still holds */
	__u64 cg_queued_bytes[BIO_DEVICES];
} __attribute__((aligned(EBPF_SLOT_ALIGN)));

#endif
