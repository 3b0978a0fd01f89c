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
 * submitted, and every write of pages it dirtied whoever submits it,
 * counted when the bio completes. Everyone's (ALL_*): every request the
 * device completed, as /proc/diskstats counts them (write-zeroes among the
 * writes, and in their own counters too; discards apart). Of ALL_*'s read
 * and write bytes, what is not the tree's is OTHER (bios submitted outside
 * the tree) or UNATTRIBUTED (no bio block_io saw queued: write-zeroes,
 * bios queued before it attached), so that tree + other + unattributed =
 * all, at every completion. */
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
	BIO_OTHER_READ_BYTES,
	BIO_OTHER_WRITE_BYTES,
	BIO_UNATTRIBUTED_READ_BYTES,
	BIO_UNATTRIBUTED_WRITE_BYTES,
	BIO_ALL_DISCARD_OPS,
	BIO_ALL_DISCARD_BYTES,
	BIO_ALL_WRITE_ZEROES_OPS,
	BIO_ALL_WRITE_ZEROES_BYTES,
	BIO_COUNTERS
};

/* Why the tree's bio moved its bytes (docs/data-model.md, "Causes"). */
enum bio_cause {
	CAUSE_DIRECT,
	CAUSE_DEMAND,
	CAUSE_READAHEAD,
	CAUSE_MMAP,
	CAUSE_WRITEBACK,
	CAUSE_SYNC,
	CAUSE_SWAP,
	CAUSE_METADATA,
	BIO_CAUSES
};

/* A cause's counters: as the tree's read and write ones */
enum cause_counter { CC_READ_OPS, CC_READ_BYTES, CC_WRITE_OPS, CC_WRITE_BYTES, CAUSE_COUNTERS };

enum bio_dir {
	BIO_DIR_READ,
	BIO_DIR_WRITE,
	BIO_DIR_OTHER, /* a discard, or a flush alone: in ends_inferred only */
	BIO_DIRS
};

/* Bios in flight at most (the bios map's size), the tree's and others'. */
#define BIOS_MAX 65536
/* Inodes whose pages the tree dirtied (tree_inodes) at most: at least
 * MIN, else the host's dirty limit in pages, up to MAX (block_io.c) */
#define TREE_INODES_MIN 16384
#define TREE_INODES_MAX (1u << 20)

/* The bios map's value: what a bio will count when it ends. */
enum bio_kind { TB_READ, TB_WRITE, TB_DISCARD, TB_NONE };
enum bio_owner { OWNER_TREE, OWNER_OTHER };
struct bio_entry {
	__u64 queue_ns;
	__u64 issue_ns; /* 0 until a request holding it is issued */
	__u32 bytes;    /* as queued */
	__u8 kind;      /* enum bio_kind */
	__u8 flush;     /* asked for a cache flush first (REQ_PREFLUSH) */
	__u8 dev[2];    /* its device's index and its disk's, or BIO_NO_DEVICE */
	/* taken at the throttle (blk-throttle), where the tree submitted it:
	 * not queued yet, only its device known; block_bio_queue fills the
	 * rest when the throttle lets it go, from a kworker */
	__u8 held;
	__u8 owner;     /* enum bio_owner */
	__u8 cause;     /* enum bio_cause, the tree's */
	/* a part split from a bio (block_split): its bytes count with the
	 * bio's owner and cause, its end in no op (the bio's own end is the
	 * op, its size the size) */
	__u8 split;
	__u32 done;      /* bytes its completions counted so far */
	__u32 split_off; /* bytes split off it into parts of their own */
	/* of the tree's write of dirty pages, the bytes of pages another
	 * dirtied (by the inode's count: settle_dirty) still to count, as
	 * other's, before its own */
	__u32 other_left;
	/* a clone of a stacked device's bio (dm, md) on a device below it:
	 * its bytes and ops count on that device's entry alone, in no cause
	 * or histogram (the stacked device's bio counts there) */
	__u8 lower;
	/* a bio of a stacked device whose page vector its clones are known
	 * by (upper_vecs[vec]): taken out with it */
	__u8 upper;
	__u8 pad[2];
	__u64 vec; /* struct bio_vec *, with upper */
};

/* upper_vecs' value: what a stacked device's bio tells its clones */
struct upper_bio {
	__u64 key;   /* the stacked bio's (struct bio *): its entry takes this out */
	__u8 owner;
	__u8 cause;
	__u8 dev;    /* the stacked device's index: a clone is on one below it */
	__u8 pad;
	__u32 other_left;
};

/* tree_inodes' value: the bytes of the inode's pages the tree dirtied and
 * nobody wrote yet, and what names the inode to open_by_handle_at(2)
 * (block_io.flush_dirty) */
struct tree_inode {
	__s64 dirty;
	__u64 ino;
	__u32 dev; /* the kernel's dev_t of its file system, or the device's own */
	__u32 generation;
	__u8 bdev; /* a block device's own cache: dev is the device */
	__u8 pad[7];
	__u64 settled_ns; /* when its dirt last changed (bpf_ktime_get_ns) */
};

/* other_comms' key and value: bytes of bios queued outside the tree by
 * the submitter's comm, [0] read, [1] written */
struct comm_key {
	char comm[16];
};
struct comm_bytes {
	__u64 bytes[2];
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
	/* the tree's bios by cause, each once (not per device) */
	__u64 cause[BIO_CAUSES][CAUSE_COUNTERS];
	/* the totals: each bio once, on the devices counted in them, a clone
	 * below a stacked bio not again (nor the bytes of a request it holds) */
	__u64 total[BIO_COUNTERS];
} __attribute__((aligned(EBPF_SLOT_ALIGN)));

#endif
