// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* block_io, the kernel side: which bios the target's tree put on the
 * selected devices, how large and how slow, and every request the devices
 * completed. Counts go to the running CPU's slot; the sampler reads the
 * slots at each tick (block_io.c). Nothing goes through a buffer.
 *
 *   block_bio_queue    fires in the submitting task (submit_bio), once per
 *                      bio: where "who sent it" is true. A bio of the tree
 *                      is remembered in tree_bios. One the throttle held
 *                      comes here from a kworker: taken where the tree
 *                      submitted it (__blk_throtl_bio) where the kernel
 *                      lets a program run there, else known by its cgroup;
 *   block_rq_issue     the driver takes a request: its bios of the tree get
 *                      their issue time (the first issue, if requeued);
 *   block_rq_complete  the device completed bytes of a request: the bios
 *                      of the tree that this part ends count now, ops,
 *                      bytes, size and latency together, so each row's
 *                      histograms sum to its ops; and everyone's bytes,
 *                      with an op when nothing of the request is left, as
 *                      /proc/diskstats counts them;
 *   block_bio_complete a bio ended on a device without requests (dm, md,
 *                      zram): blk-mq clears a request's bios' trace flag,
 *                      so only those come here.
 *
 *   block_split        a bio split in two: the part split off counts with
 *                      the bio's owner and cause.
 *
 * Stacked devices (dm, md). A bio the tree submits to dm-0 is queued
 * there, and dm queues a clone of it to the device below (dm-linear's one,
 * raid1's mirrors), from the tree's task or from its own thread. The
 * clone shares the bio's page vector (bi_io_vec): a bio queued to a
 * selected stacked device is remembered by it too (upper_vecs), and a bio
 * cloned (BIO_CLONED) on a device below it with a vector found there is a
 * clone, the stacked bio's owner and cause, counted on its own device's
 * entry only (lower: in no cause, no histogram, not in the totals, nor
 * are the bytes of a request it holds). So a stack on a partition of a
 * selected disk (LVM on sda2) counts once too. A bio-based device
 * completes no request: its everyone's counts (all_*) are its bios', as
 * its /proc/diskstats line counts them, at block_bio_complete; a part md
 * split off (bio_split, bio_chain: traced nowhere) is its bio's there.
 *
 * Issue and completion run in whatever context the driver uses (a kworker,
 * an interrupt), so no pid is ever taken there (bcc#4810, bcc#826).
 *
 * Whose bio, and why (docs/data-model.md, "Causes"). Every bio queued to a
 * selected device is remembered, the tree's and others'; at a completion
 * the bytes it covers go to the tree (by cause), to others, or, covered by
 * no bio seen queued, to unattributed: the three add up to the request's
 * bytes, as all_* counts them. A bio is the tree's when a task of the tree
 * submits it, and when it writes back pages of an inode whose pages the
 * tree dirtied (writeback_dirty_folio, in the dirtying task), whoever
 * submits it: the flusher's kworker, jbd2, another process's sync. Its
 * cause comes from its flags (REQ_SWAP, REQ_META, REQ_RAHEAD), from its
 * first page (a page cache's page under writeback, or locked and not yet
 * read: else the caller's own memory, direct I/O), and from whether the
 * submitting task is in a page fault (filemap_fault). Pages the tree
 * dirtied and not yet written, less those truncated before they were
 * (folio_account_cleaned), are dirty_bytes.
 *
 * Ends no program sees. A completion can reach no program: the kernel
 * skips one already running on that CPU (recursion_misses counts those),
 * and some hosts' kernels run no BPF program at all while the current task
 * is one of their own agent's, which a completion in a softirq on top of
 * such a task is. The tree's bio then stays in tree_bios after its end. It
 * is counted when its end is certain: when its address comes back as a
 * new bio (its memory was freed, so it had ended), or, for the final row,
 * when the devices have nothing in flight and have completed requests no
 * program saw (block_io.c). It counts in ops,
 * bytes and size, in no latency bucket, and in ends_inferred (a discard or
 * a flush too). */
#include "common/ebpf/kernel.bpf.h"
#include "common/ebpf/tree.bpf.h"
#include "block_io/block_io_slot.h"

#include <stdbool.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load: the bit of bi_flags the throttle sets on a bio it has
 * charged (BIO_BPS_THROTTLED, BIO_THROTTLED before 5.19; BIO_NO_FLAG when
 * the kernel's BTF names neither). */
#define BIO_NO_FLAG 0xff
const volatile __u8 bio_throttled_bit = BIO_NO_FLAG;
/* Set at open, after the load (ebpf_preload.h): the inode numbers of the
 * episode's own cgroups (v2, v1 blkio; 0 when none). */
__u64 episode_cgroups[2];
/* the kernel's page size, set by the sampler */
const volatile __u32 page_size = 4096;
/* Set before load: the bit of bi_flags a clone has (BIO_CLONED; BIO_NO_FLAG
 * when the kernel's BTF does not name it: no clone is looked for). */
const volatile __u8 bio_cloned_bit = BIO_NO_FLAG;
/* Set at open: bit i, selected device i is stacked on others (dm, md,
 * with slaves); is bio-based (no requests: dm, md, zram); counts in the
 * totals (not a partition whose disk is selected too). below_devs[i]: the
 * selected devices below stacked device i (a member, a member partition's
 * disk). */
__u64 stacked_devs;
__u64 bio_based_devs;
__u64 totals_devs;
__u64 below_devs[BIO_DEVICES];
__u64 lower_devs; /* below any of them */

/* The kernel's dev_t of each selected device to its index, set by the
 * sampler before it attaches. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIO_DEVICES);
	__type(key, __u32);
	__type(value, __u8);
} bio_devices SEC(".maps");

EBPF_SLOTS_MAP(bio_slots, struct bio_slot);

/* Bios in flight on the selected devices, the tree's and others', by
 * address. Allocated as used: its size is a bound, not a cost. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, BIOS_MAX);
	__type(key, __u64);
	__type(value, struct bio_entry);
} bios SEC(".maps");

/* The page vectors of bios in flight on selected stacked devices (struct
 * bio_vec *), what their clones below are (see "Stacked devices") */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, BIOS_MAX);
	__type(key, __u64);
	__type(value, struct upper_bio);
} upper_vecs SEC(".maps");
__s64 upper_inflight;
/* stacked bios that found upper_vecs full: their clones would count as
 * the tree's own again, so the sampler fails */
__u64 upper_lost;

/* Inodes whose pages the tree dirtied (struct inode *), with the bytes of
 * them still dirty: a write of their pages is the tree's, whoever submits
 * it, while any are. No entry is evicted while it has some: the sampler
 * sizes the map from the host's dirty limit (block_io.c, a dirty inode
 * has a dirty page at least) and takes out those written (tree_inodes_n
 * past half of it); one that finds it full anyway is counted in
 * dirty_refused, its bytes in dirty_refused_bytes, in no dirty_bytes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TREE_INODES_MIN);
	__type(key, __u64);
	__type(value, struct tree_inode);
} tree_inodes SEC(".maps");

/* Where filemap_fault's code is, [fault_lo, fault_hi), set by the sampler
 * from /proc/kallsyms (0: unknown): a read submitted with it on the kernel
 * stack is a page fault's, mmap. A stack, not a pair of programs at its
 * entry and exit: some kernels refuse fentry and have no kprobes (this
 * VM's), and the stack is walked only for the tree's page cache reads. */
const volatile __u64 fault_lo, fault_hi;
#define STACK_DEPTH 48
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[STACK_DEPTH]);
} stack_buf SEC(".maps");

/* Bytes of others' bios queued, by the submitter's comm (the manifest's
 * top five) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct comm_key);
	__type(value, struct comm_bytes);
} other_comms SEC(".maps");

/* the tree's bios that found the bios map full: the sampler fails rather
 * than undercount; others' count on, their bytes unattributed */
__u64 bios_lost;
__u64 other_bios_lost;
/* bios of the tree that ended with BLK_STS_AGAIN before reaching the
 * device (iops_bio_complete): in no count, said in the manifest */
__u64 bios_would_block;
/* The tree's entries in bios, exactly: each insert adds one, each delete
 * that found its key takes one. 0 spares the issue program a lookup per
 * bio while the tree does no block I/O, and tells the sampler that the
 * tree's I/O has drained: its final row waits for 0. */
__s64 tree_bios_inflight;
/* All entries in bios, the same way: 0 spares the completion program its
 * walk (every byte is then unattributed). */
__s64 bios_inflight;
/* The bytes of the tree's pages dirty and not yet written (dirty_bytes),
 * and of them those of a block device's own cache (its buffers, which a
 * file system may write by the buffer, leaving the page dirty: flush_dirty
 * waits for the others only) */
__s64 tree_dirty_bytes;
__s64 tree_dirty_bdev_bytes;
/* tree_inodes' entries (each insert adds one, the sampler's deletes take
 * one), and the folios of the tree's, and their bytes, that found it
 * full */
__s64 tree_inodes_n;
__u64 dirty_refused;
__u64 dirty_refused_bytes;

/* A request's bios are walked (at its issue, at each part of its
 * completion) with bpf_loop(): a request holds at most max_segments bios,
 * a few hundred, far under this bound. A walk that meets it anyway
 * counts in walks_cut, and the sampler fails rather than undercount. */
#define WALK_MAX 65536
__u64 walks_cut;

struct walk {
	__u64 bio; /* struct bio *, the next to look at; 0 at the end */
	__u64 now;
};

/* The selected devices an I/O to the device own (the kernel's dev_t) of
 * the disk whole counts in: its own entry and, for a partition, its disk's.
 * False when neither is selected. */
static __always_inline bool selected_dev(__u32 own, __u32 whole, __u8 dev[2])
{
	__u8 *i = bpf_map_lookup_elem(&bio_devices, &own);
	dev[0] = i ? *i : BIO_NO_DEVICE;
	dev[1] = BIO_NO_DEVICE;
	if (whole != own && (i = bpf_map_lookup_elem(&bio_devices, &whole)))
		dev[1] = *i;
	return dev[0] < BIO_DEVICES || dev[1] < BIO_DEVICES;
}

/* ... of an I/O to bdev, read with typed loads */
static __always_inline bool selected(struct block_device *bdev, __u8 dev[2])
{
	if (!bdev)
		return false;
	struct gendisk *disk = bdev->bd_disk;
	return selected_dev(bdev->bd_dev, KERNEL_MKDEV(disk->major, disk->first_minor), dev);
}

/* ... of a device reached through memory the verifier cannot type (read
 * with probe reads): the page cache's inode's file system's */
static __always_inline bool selected_read(struct block_device *bdev, __u8 dev[2])
{
	if (!bdev)
		return false;
	struct gendisk *disk = BPF_CORE_READ(bdev, bd_disk);
	return selected_dev(BPF_CORE_READ(bdev, bd_dev),
			    KERNEL_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor)), dev);
}

static int bio_end(struct bio_entry *tb, __u64 now, bool seen, bool rest);
static __always_inline void count_entry_bio_based(const struct bio_entry *tb);

/* Whether a device of dev (an I/O's, its disk's) is in mask. */
static __always_inline bool dev_in(__u64 mask, const __u8 dev[2])
{
	return (dev[0] < BIO_DEVICES && mask >> dev[0] & 1) || (dev[1] < BIO_DEVICES && mask >> dev[1] & 1);
}

static __always_inline bool stacked(const __u8 dev[2])
{
	return dev_in(stacked_devs, dev);
}

/* Whether a bio on dev is below stacked device upper. */
static __always_inline bool below(__u8 upper, const __u8 dev[2])
{
	__u32 i = upper;
	barrier_var(i);
	return i < BIO_DEVICES && dev_in(below_devs[i], dev);
}

/* Whether bio is a clone (dm's, md's: bio_alloc_clone). */
static __always_inline bool cloned(struct bio *bio)
{
	__u32 bit = bio_cloned_bit;
	return bit < 16 && bio->bi_flags & 1u << bit;
}

/* A stacked bio's vector, out of upper_vecs, when its entry is still the
 * bio's (a newer bio may have taken the vector's memory, and the entry). */
static __always_inline void let_vec_go(__u64 vec, __u64 key)
{
	struct upper_bio *u = bpf_map_lookup_elem(&upper_vecs, &vec);
	if (u && u->key == key && bpf_map_delete_elem(&upper_vecs, &vec) == 0)
		__sync_fetch_and_add(&upper_inflight, -1);
}

/* The entry at key, taken out: the caller counts it, as no one else will. */
static __always_inline bool take(__u64 key, struct bio_entry *out)
{
	struct bio_entry *found = bpf_map_lookup_elem(&bios, &key);
	if (!found)
		return false;
	*out = *found;
	if (bpf_map_delete_elem(&bios, &key) < 0)
		return false; /* another CPU took it */
	__sync_fetch_and_add(&bios_inflight, -1);
	if (out->owner == OWNER_TREE)
		__sync_fetch_and_add(&tree_bios_inflight, -1);
	if (out->upper)
		let_vec_go(out->vec, key);
	return true;
}

static __always_inline void remember(__u64 key, const struct bio_entry *tb)
{
	if (bpf_map_update_elem(&bios, &key, tb, BPF_NOEXIST) < 0) {
		__sync_fetch_and_add(tb->owner == OWNER_TREE ? &bios_lost : &other_bios_lost, 1);
		return;
	}
	__sync_fetch_and_add(&bios_inflight, 1);
	if (tb->owner == OWNER_TREE)
		__sync_fetch_and_add(&tree_bios_inflight, 1);
}

/* The throttle (blk-throttle, a cgroup's read_bps_device or io.max) sits
 * before block_bio_queue: a bio over its cgroup's limit waits there, and
 * the throttle's kworker queues it later, where no task of the tree is
 * current. So the tree's bio is taken here, where the tree submits it,
 * held until block_bio_queue sees it. Loaded where the kernel has the
 * throttle (block_io.c). */
SEC("fentry/__blk_throtl_bio")
int BPF_PROG(iops_bio_throttle, struct bio *bio)
{
	__u64 key = (__u64)bio;
	struct bio_entry tb = {.held = 1};
	/* An entry here already: this bio again (what a split leaves of it
	 * comes back through the throttle, already queued), or a bio whose
	 * memory this one reuses, which iops_bio_queue settles. */
	if (bios_inflight > 0 && bpf_map_lookup_elem(&bios, &key))
		return 0;
	if (!selected(bio->bi_bdev, tb.dev) || !tree_has_current())
		return 0;
	tb.queue_ns = bpf_ktime_get_ns();
	remember(key, &tb);
	return 0;
}

/* Whether bio, queued where no task of the tree runs, is one the throttle
 * held for the episode's own cgroup, which holds the tree alone: the
 * throttle's kworker queues what the tree submitted (found so where no
 * program may run at the throttle's entry). */
static __always_inline bool throttled_for_episode(struct bio *bio, __u64 cgroup)
{
	__u32 bit = bio_throttled_bit;
	return bit < 16 && bio->bi_flags & 1u << bit && cgroup &&
	       (cgroup == episode_cgroups[0] || cgroup == episode_cgroups[1]);
}

/* The inode number of bio's cgroup's directory; 0 without one. */
static __always_inline __u64 bio_cgroup(struct bio *bio)
{
	if (!bpf_core_field_exists(bio->bi_blkg))
		return 0;
	struct blkcg_gq *blkg = bio->bi_blkg;
	return blkg ? blkg->blkcg->css.cgroup->kn->id : 0;
}

/* What the episode's own v1 blkio cgroup queued to a selected device, for
 * the sampler's count of what the throttle still holds (block_io.c). */
static __always_inline void count_cgroup_queued(struct bio *bio, __u64 cgroup, __u8 dev)
{
	__u32 i = dev;
	if (!cgroup || cgroup != episode_cgroups[1] || i >= BIO_DEVICES)
		return;
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return;
	barrier_var(i);
	if (i >= BIO_DEVICES)
		return;
	EBPF_SLOT_ENTER(&s->seq);
	EBPF_SLOT_ADD(&s->cg_queued_bytes[i], bio->bi_iter.bi_size);
	EBPF_SLOT_LEAVE(&s->seq);
}

/* What a bio's first page says: whether it is a page of a page cache (not
 * the caller's own memory, as direct I/O's), the inode it caches, whether
 * that is a block device's own cache (a file system's buffers), and the
 * page's flags. */
struct bio_page {
	struct inode *inode; /* 0: not a page cache's */
	unsigned long flags;
	bool bdev;
	bool swapcache; /* a page of the swap cache (a swap-in's: no REQ_SWAP) */
};

static __always_inline void first_page(struct bio *bio, struct bio_page *p)
{
	p->inode = 0;
	p->flags = 0;
	p->bdev = false;
	p->swapcache = false;
	/* the entry the bio's iterator is at: a clone's vector is its
	 * original's (bi_vcnt 0), and a split's may start further in */
	struct bio_vec *vec = bio->bi_io_vec;
	if (!vec || !bio->bi_iter.bi_size)
		return;
	__u32 idx = bio->bi_iter.bi_idx, done = bio->bi_iter.bi_bvec_done;
	struct page *page;
	if (!idx && !done) {
		page = vec->bv_page; /* typed loads: no helper call */
	} else {
		/* the vector's address as a number (the verifier allows no
		 * variable offset on a typed pointer); an entry may span pages,
		 * and the iterator stop inside one */
		__u64 at = (__u64)BPF_CORE_READ(bio, bi_io_vec) + (__u64)idx * bpf_core_type_size(struct bio_vec);
		__u64 first = (__u64)BPF_CORE_READ((struct bio_vec *)at, bv_page);
		__u32 in = BPF_CORE_READ((struct bio_vec *)at, bv_offset) + done;
		page = first ? (struct page *)(first + (__u64)(in / page_size) * bpf_core_type_size(struct page)) : 0;
	}
	if (!page)
		return;
	/* compound_head shares its word with a list's pointer, and mapping's low
	 * bits are flags: read as numbers */
	page = kernel_page_head(page);
	unsigned long mapping = (unsigned long)BPF_CORE_READ(page, mapping);
	if (!mapping || mapping & KERNEL_PAGE_MAPPING_FLAGS) {
		/* anonymous memory, or none yet: a swap-in's new page is the
		 * swap cache's only */
		p->swapcache = kernel_page_swapcache(kernel_page_flags(page));
		return;
	}
	struct inode *inode = BPF_CORE_READ((struct address_space *)mapping, host);
	if (!inode)
		return;
	p->inode = inode;
	p->flags = kernel_page_flags(page);
	p->bdev = (BPF_CORE_READ(inode, i_mode) & KERNEL_S_IFMT) == KERNEL_S_IFBLK;
}

/* A write of page cache pages under writeback: what writeback and sync
 * submit (a buffer the file system writes itself is not under it) */
static __always_inline bool writes_back(const struct bio_page *p)
{
	return p->inode && kernel_page_flag(p->flags, PG_writeback);
}

/* Writing back bytes of inode's dirty pages: how many of them are the
 * tree's (those it dirtied and nobody wrote yet, so many no longer
 * dirty), 0 when none. A page's bytes are whoever dirtied it, by the
 * count of an inode's: which of its pages are whose is not kept, so a
 * write of pages the tree and another both dirtied is the tree's up to
 * its count, first come. */
static __always_inline __u32 settle_dirty(struct inode *inode, __u32 bytes)
{
	__u64 key = (__u64)inode;
	struct tree_inode *ti = bpf_map_lookup_elem(&tree_inodes, &key);
	if (!ti)
		return 0;
	/* taken whole, what was not there given back: two writers of one
	 * inode at once (an fsync and the flusher) settle each its share */
	__s64 dirty = __sync_fetch_and_add(&ti->dirty, -(__s64)bytes);
	__s64 settled = dirty <= 0 ? 0 : dirty < bytes ? dirty : bytes;
	if (settled < bytes)
		__sync_fetch_and_add(&ti->dirty, (__s64)bytes - settled);
	if (!settled)
		return 0;
	ti->settled_ns = bpf_ktime_get_ns();
	__sync_fetch_and_add(&tree_dirty_bytes, -settled);
	if (ti->bdev)
		__sync_fetch_and_add(&tree_dirty_bdev_bytes, -settled);
	return (__u32)settled;
}

/* The cause of a bio a task of the tree submitted (in_tree) or that writes
 * back the tree's pages. */
/* Whether the current task's kernel stack holds filemap_fault. */
static __always_inline bool in_fault(void *ctx)
{
	__u32 zero = 0;
	__u64 *pc = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!pc || !fault_lo)
		return false;
	long n = bpf_get_stack(ctx, pc, STACK_DEPTH * sizeof(__u64), 0);
	for (int i = 0; i < STACK_DEPTH; i++) {
		if (i * (long)sizeof(__u64) >= n)
			break;
		if (pc[i] >= fault_lo && pc[i] < fault_hi)
			return true;
	}
	return false;
}

static __always_inline __u8 cause_of(void *ctx, unsigned int opf, bool write, const struct bio_page *p,
				     bool in_tree)
{
	/* swap-outs carry REQ_SWAP; swap-ins read into a page of the swap
	 * cache, and carry it only on some kernels */
	if (opf & kernel_req_flag(__REQ_SWAP) || p->swapcache)
		return CAUSE_SWAP;
	if (opf & kernel_req_flag(__REQ_META))
		return CAUSE_METADATA;
	if (write) {
		if (writes_back(p))
			return in_tree ? CAUSE_SYNC : CAUSE_WRITEBACK;
		/* a buffer of the device's own cache that the file system
		 * writes itself (submit_bh): its blocks */
		return p->bdev ? CAUSE_METADATA : CAUSE_DIRECT;
	}
	if (p->inode && kernel_page_flag(p->flags, PG_locked) && !kernel_page_flag(p->flags, PG_uptodate)) {
		if (in_fault(ctx))
			return CAUSE_MMAP;
		return opf & kernel_req_flag(__REQ_RAHEAD) ? CAUSE_READAHEAD : CAUSE_DEMAND;
	}
	return CAUSE_DIRECT;
}

static __always_inline void count_other_comm(__u32 bytes, bool write)
{
	struct comm_key k = {};
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	struct comm_bytes *v = bpf_map_lookup_elem(&other_comms, &k);
	if (!v) {
		struct comm_bytes zero = {};
		bpf_map_update_elem(&other_comms, &k, &zero, BPF_NOEXIST);
		if (!(v = bpf_map_lookup_elem(&other_comms, &k)))
			return;
	}
	__sync_fetch_and_add(&v->bytes[write], bytes);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(iops_bio_queue, struct bio *bio)
{
	__u64 key = (__u64)bio;
	/* A bio at this address ended before its memory came back as this
	 * one, but no program saw the end (see "Ends no program sees" above):
	 * it counts now. Checked on every device: the memory may come back
	 * for any. Unless it is this very bio, held at the throttle: the
	 * tree's, whoever queues it. */
	struct bio_entry old, tb = {};
	bool held = false;
	if (bios_inflight > 0 && take(key, &old)) {
		held = old.held;
		if (!held) {
			bio_end(&old, 0, false, true);
			count_entry_bio_based(&old);
		}
	}
	if (!selected(bio->bi_bdev, tb.dev))
		return 0;
	__u64 cgroup = bio_cgroup(bio);
	count_cgroup_queued(bio, cgroup, tb.dev[0]);
	__u32 opf = bio->bi_opf, op = opf & KERNEL_REQ_OP_MASK;
	tb.bytes = bio->bi_iter.bi_size;
	tb.flush = (opf & kernel_req_preflush()) != 0 || op == KERNEL_REQ_OP_FLUSH;
	if (op == KERNEL_REQ_OP_READ)
		tb.kind = TB_READ;
	else if (op == KERNEL_REQ_OP_WRITE && tb.bytes > 0)
		tb.kind = TB_WRITE; /* an empty one is a flush alone (fsync's) */
	else if (op == KERNEL_REQ_OP_DISCARD)
		tb.kind = TB_DISCARD;
	else
		tb.kind = TB_NONE;
	if (tb.kind == TB_NONE && !tb.flush)
		return 0; /* write-zeroes, secure erase, zone commands: unattributed */
	bool write = tb.kind == TB_WRITE;
	__u64 vec = (__u64)bio->bi_io_vec;
	struct upper_bio *up = upper_inflight > 0 && vec && cloned(bio) ? bpf_map_lookup_elem(&upper_vecs, &vec) : 0;
	if (up && (tb.kind == TB_READ || write) && below(up->dev, tb.dev)) {
		/* a clone of a stacked device's bio: its owner's and cause */
		tb.owner = up->owner;
		tb.cause = up->cause;
		tb.other_left = up->other_left < tb.bytes ? up->other_left : tb.bytes;
		tb.lower = 1;
		tb.queue_ns = bpf_ktime_get_ns();
		remember(key, &tb);
		return 0;
	}
	bool in_tree = held || tree_has_current() || throttled_for_episode(bio, cgroup);
	struct bio_page page = {};
	if (tb.kind == TB_READ || write)
		first_page(bio, &page);
	/* a write of dirty pages, the tree's to the bytes it dirtied, whoever
	 * writes them (its own sync or fsync, or writeback); the rest of it
	 * another's, counted first (count_bytes) */
	bool back = write && writes_back(&page);
	__u32 mine = back ? settle_dirty(page.inode, tb.bytes) : 0;
	if (in_tree && !(back && !mine)) {
		tb.owner = OWNER_TREE;
		tb.cause = cause_of(ctx, opf, write, &page, true);
		tb.other_left = back ? tb.bytes - mine : 0;
	} else if (mine) {
		tb.owner = OWNER_TREE;
		tb.cause = cause_of(ctx, opf, write, &page, false);
		tb.other_left = tb.bytes - mine;
	} else if (in_tree) {
		tb.owner = OWNER_OTHER; /* the tree writes back pages only another dirtied */
	} else if (tb.kind == TB_NONE) {
		return 0; /* another's flush alone: nothing of it counts */
	} else {
		tb.owner = OWNER_OTHER;
		if (tb.kind == TB_READ || write)
			count_other_comm(tb.bytes, write);
	}
	/* a flush alone below a stacked device is the stack passing on the
	 * flush above (dm's empty clones, md's own to each member): counted
	 * there once */
	if (tb.kind == TB_NONE && dev_in(lower_devs, tb.dev))
		tb.lower = 1;
	tb.queue_ns = bpf_ktime_get_ns(); /* a held bio's latency starts here too */
	if (vec && (tb.kind == TB_READ || write) && stacked(tb.dev)) {
		/* the vector's memory may be a stale entry's, whose bio ended
		 * unseen: this bio's now */
		struct upper_bio u = {.key = key, .owner = tb.owner, .cause = tb.cause,
				      .dev = dev_in(stacked_devs, (__u8[2]){tb.dev[0], BIO_NO_DEVICE}) ? tb.dev[0] : tb.dev[1],
				      .other_left = tb.other_left};
		bool fresh = !bpf_map_lookup_elem(&upper_vecs, &vec);
		if (bpf_map_update_elem(&upper_vecs, &vec, &u, BPF_ANY) == 0) {
			if (fresh)
				__sync_fetch_and_add(&upper_inflight, 1);
			tb.upper = 1;
			tb.vec = vec;
		} else {
			__sync_fetch_and_add(&upper_lost, 1);
		}
	}
	remember(key, &tb);
	if (tb.upper && !(bpf_map_lookup_elem(&bios, &key))) /* not remembered: nothing takes it out */
		let_vec_go(vec, key);
	return 0;
}

/* A part split off a bio (blk-mq's split to the device's limits) comes
 * back to no program at queue: it is the bio's, bytes and cause. */
SEC("tp_btf/block_split")
int BPF_PROG(iops_bio_split, struct bio *split, unsigned int new_sector)
{
	if (bios_inflight <= 0)
		return 0;
	__u64 key = (__u64)split, parent = (__u64)split->bi_private;
	struct bio_entry *p = bpf_map_lookup_elem(&bios, &parent);
	/* dm trims its bio and submits the rest again, the same bio
	 * (dm_split_and_process_bio, 5.19 on), traced as a split of itself:
	 * its entry stays, to count when it ends */
	if (!p && bpf_map_lookup_elem(&bios, &key))
		return 0;
	/* a bio that had this address ended unseen, as at queue */
	struct bio_entry old;
	if (take(key, &old) && !old.held) {
		bio_end(&old, 0, false, true);
		count_entry_bio_based(&old);
	}
	if (!p)
		return 0;
	struct bio_entry part = *p;
	part.split = 1;
	part.held = 0;
	part.done = 0;
	part.split_off = 0;
	part.upper = 0; /* the bio's vector is the bio's to let go */
	part.bytes = split->bi_iter.bi_size;
	/* another's share of the bio goes with its first bytes */
	part.other_left = p->other_left < part.bytes ? p->other_left : part.bytes;
	__sync_fetch_and_add(&p->other_left, -part.other_left);
	__sync_fetch_and_add(&p->split_off, part.bytes);
	remember((__u64)split, &part);
	return 0;
}

/* The tree's pages dirtied, in the task that dirties them: each folio once
 * as it turns dirty (folio_account_dirtied, where the task's write_bytes
 * in /proc/PID/io grows by the same bytes). Only a file system's on a
 * selected device: no other can be written to one. */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(iops_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	if (!mapping || !tree_has_current())
		return 0;
	struct inode *inode = BPF_CORE_READ(mapping, host);
	if (!inode)
		return 0;
	/* a file's pages count on its file system's device; a block device's
	 * own cache (a file system's buffers, writes through the device
	 * node) on that device */
	bool bdev_cache = (BPF_CORE_READ(inode, i_mode) & KERNEL_S_IFMT) == KERNEL_S_IFBLK;
	struct block_device *bdev = bdev_cache ? kernel_inode_bdev(inode) : BPF_CORE_READ(inode, i_sb, s_bdev);
	__u8 dev[2] = {BIO_NO_DEVICE, BIO_NO_DEVICE};
	if (!selected_read(bdev, dev))
		return 0;
	__s64 bytes = (__s64)kernel_folio_pages(folio) * page_size;
	__u64 key = (__u64)inode;
	struct tree_inode *ti = bpf_map_lookup_elem(&tree_inodes, &key);
	if (!ti) {
		struct tree_inode fresh = {
			.dev = bdev_cache ? BPF_CORE_READ(bdev, bd_dev) : BPF_CORE_READ(inode, i_sb, s_dev),
			.ino = BPF_CORE_READ(inode, i_ino),
			.generation = BPF_CORE_READ(inode, i_generation),
			.bdev = bdev_cache,
		};
		if (bpf_map_update_elem(&tree_inodes, &key, &fresh, BPF_NOEXIST) == 0)
			__sync_fetch_and_add(&tree_inodes_n, 1);
		if (!(ti = bpf_map_lookup_elem(&tree_inodes, &key))) {
			__sync_fetch_and_add(&dirty_refused, 1);
			__sync_fetch_and_add(&dirty_refused_bytes, bytes);
			return 0;
		}
	}
	__sync_fetch_and_add(&ti->dirty, bytes);
	ti->settled_ns = bpf_ktime_get_ns(); /* touched: not taken out for a while */
	__sync_fetch_and_add(&tree_dirty_bytes, bytes);
	if (bdev_cache)
		__sync_fetch_and_add(&tree_dirty_bdev_bytes, bytes);
	return 0;
}

/* A dirty folio dropped unwritten (truncated, or its dirt cancelled): no
 * longer the tree's to write, as cancelled_write_bytes has it. */
SEC("fentry/folio_account_cleaned")
int BPF_PROG(iops_folio_cleaned, struct folio *folio)
{
	struct address_space *mapping = BPF_CORE_READ(folio, mapping);
	if (mapping && tree_dirty_bytes > 0)
		settle_dirty(BPF_CORE_READ(mapping, host), (__u32)(kernel_folio_pages(folio) * page_size));
	return 0;
}

static long issue_step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	struct bio *bio = (struct bio *)w->bio;
	struct bio_entry *tb = bpf_map_lookup_elem(&bios, &w->bio);
	if (tb && !tb->issue_ns)
		tb->issue_ns = w->now;
	w->bio = (__u64)BPF_CORE_READ(bio, bi_next);
	return w->bio == 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(iops_rq_issue, struct request *rq)
{
	if (tree_bios_inflight <= 0)
		return 0;
	struct walk w = {.bio = (__u64)rq->bio, .now = bpf_ktime_get_ns()};
	if (w.bio)
		bpf_loop(WALK_MAX, issue_step, &w, 0);
	if (w.bio)
		__sync_fetch_and_add(&walks_cut, 1);
	return 0;
}

static __always_inline void add_dev(struct bio_slot *s, __u8 dev, enum bio_counter c, __u64 v)
{
	__u32 i = dev;
	barrier_var(i); /* the bound is checked on the register that indexes */
	if (i < BIO_DEVICES)
		EBPF_SLOT_ADD(&s->dev[i][c], v);
}

/* v into counter c of an I/O's devices (its own and its disk), and into
 * the totals once, where counted (a clone below a stacked bio: never) */
static __always_inline void add_io(struct bio_slot *s, const __u8 dev[2], __u64 total, enum bio_counter c,
				   __u64 v)
{
	add_dev(s, dev[0], c, v);
	add_dev(s, dev[1], c, v);
	if (total && dev_in(totals_devs, dev))
		EBPF_SLOT_ADD(&s->total[c], total);
}

/* Bytes of a bio moved: the tree's by cause, or others'. */
/* bytes of a bio (another's share of a tree's bio first, other_left) */
static __always_inline void count_bytes(struct bio_slot *s, struct bio_entry *tb, __u32 bytes)
{
	if (tb->kind != TB_READ && tb->kind != TB_WRITE)
		return;
	bool write = tb->kind == TB_WRITE;
	__u32 others = tb->owner == OWNER_TREE ? 0 : bytes;
	if (tb->owner == OWNER_TREE && tb->other_left) {
		others = tb->other_left < bytes ? tb->other_left : bytes;
		tb->other_left -= others;
	}
	bool lower = tb->lower;
	add_io(s, tb->dev, lower ? 0 : others, write ? BIO_OTHER_WRITE_BYTES : BIO_OTHER_READ_BYTES, others);
	add_io(s, tb->dev, lower ? 0 : bytes - others, write ? BIO_WRITE_BYTES : BIO_READ_BYTES, bytes - others);
	__u32 cause = tb->cause;
	if (tb->owner == OWNER_TREE && cause < BIO_CAUSES && !tb->lower)
		EBPF_SLOT_ADD(&s->cause[cause][write ? CC_WRITE_BYTES : CC_READ_BYTES], bytes - others);
}

/* A bio ended: the tree's counts its op, size and latency (when its end
 * was seen, at now) in one update of the slot; with rest, the bytes no
 * completion counted too (an end no program saw, a bio-based device's). */
static int bio_end(struct bio_entry *tb, __u64 now, bool seen, bool rest)
{
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return 0;
	bool tree = tb->owner == OWNER_TREE;
	EBPF_SLOT_ENTER(&s->seq);
	__u32 counted = tb->done + tb->split_off;
	if (rest && tb->bytes > counted)
		count_bytes(s, tb, tb->bytes - counted);
	if (!tree || tb->split) {
		EBPF_SLOT_LEAVE(&s->seq);
		return 0;
	}
	__u64 us = seen ? (now - (tb->issue_ns ? tb->issue_ns : tb->queue_ns)) / 1000 : 0;
	__u64 once = !tb->lower; /* the totals' one */
	if (tb->kind == TB_READ) {
		add_io(s, tb->dev, once, BIO_READ_OPS, 1);
	} else if (tb->kind == TB_WRITE) {
		add_io(s, tb->dev, once, BIO_WRITE_OPS, 1);
	} else if (tb->kind == TB_DISCARD) {
		add_io(s, tb->dev, once, BIO_DISCARD_OPS, 1);
		add_io(s, tb->dev, once * tb->bytes, BIO_DISCARD_BYTES, tb->bytes);
	}
	if (tb->flush)
		add_io(s, tb->dev, once, BIO_FLUSH_OPS, 1);
	if (tb->lower) {
		/* the stacked device's bio counts once, cause and size */
	} else if (tb->kind == TB_READ || tb->kind == TB_WRITE) {
		__u32 dir = tb->kind == TB_WRITE ? BIO_DIR_WRITE : BIO_DIR_READ;
		__u32 cause = tb->cause;
		if (cause < BIO_CAUSES)
			EBPF_SLOT_ADD(&s->cause[cause][dir == BIO_DIR_WRITE ? CC_WRITE_OPS : CC_READ_OPS], 1);
		EBPF_SLOT_ADD(&s->size_hist[dir][ebpf_log2_bucket(tb->bytes) & (LOG2_HIST_BUCKETS - 1)], 1);
		if (seen)
			EBPF_SLOT_ADD(&s->latency_hist[dir][ebpf_log2_bucket(us) & (LOG2_HIST_BUCKETS - 1)], 1);
		else
			EBPF_SLOT_ADD(&s->ends_inferred[dir], 1);
	} else if (!seen) {
		EBPF_SLOT_ADD(&s->ends_inferred[BIO_DIR_OTHER], 1);
	}
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}

/* A bio ended (if key is one), its end seen at now. */
static __always_inline int bio_done(__u64 key, __u64 now)
{
	struct bio_entry tb;
	if (take(key, &tb))
		bio_end(&tb, now, true, false);
	return 0;
}

/* A bio-based device's bio ended (dm, md, zram). blk_update_request()
 * clears the bio's trace flag, so a request's bios never come here: they
 * end in the walk of block_rq_complete. Its bytes count here, all at once
 * (a bio-based device has no requests: all_* has none of them).
 *
 * So does a bio that never got a request: one with REQ_NOWAIT (io_uring's,
 * an RWF_NOWAIT write) on a queue with no request free ends at once with
 * BLK_STS_AGAIN, and its submitter submits its bytes again in another bio.
 * It moved nothing: it is dropped, not counted, so each byte counts once. */
/* Everyone's counts (all_*) of a bio-based device's bio that ended, as
 * its /proc/diskstats line counts them: an op (a part md split off too:
 * its accounting starts each) and the bio's bytes. kind and bytes as
 * queued (tb), or, queued before the program, as it ends, unattributed. */
static __always_inline void count_bio_based(struct bio_slot *s, const __u8 dev[2], __u8 kind, __u32 bytes,
					    bool lower, bool known)
{
	if (!dev_in(bio_based_devs, dev))
		return;
	enum bio_counter ops, all, unplaced;
	if (kind == TB_READ) {
		ops = BIO_ALL_READ_OPS, all = BIO_ALL_READ_BYTES, unplaced = BIO_UNATTRIBUTED_READ_BYTES;
	} else if (kind == TB_WRITE) {
		ops = BIO_ALL_WRITE_OPS, all = BIO_ALL_WRITE_BYTES, unplaced = BIO_UNATTRIBUTED_WRITE_BYTES;
	} else if (kind == TB_DISCARD) {
		ops = BIO_ALL_DISCARD_OPS, all = BIO_ALL_DISCARD_BYTES, unplaced = BIO_COUNTERS;
	} else {
		return;
	}
	__u8 only[2];
	for (int k = 0; k < 2; k++) /* a partition of a request-based disk: its disk counts requests */
		only[k] = dev[k] < BIO_DEVICES && bio_based_devs >> dev[k] & 1 ? dev[k] : BIO_NO_DEVICE;
	add_io(s, only, !lower, ops, 1);
	add_io(s, only, lower ? 0 : bytes, all, bytes);
	if (!known && unplaced < BIO_COUNTERS)
		add_io(s, only, bytes, unplaced, bytes);
}

/* ... of an entry whose bio ended, seen or not (bytes: those no part
 * split off counts) */
static __always_inline void count_entry_bio_based(const struct bio_entry *tb)
{
	if (!bio_based_devs)
		return;
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return;
	EBPF_SLOT_ENTER(&s->seq);
	count_bio_based(s, tb->dev, tb->kind, tb->bytes - tb->split_off, tb->lower, true);
	EBPF_SLOT_LEAVE(&s->seq);
}

/* The kind of a bio as queued would be (iops_bio_queue) */
static __always_inline __u8 kind_of(struct bio *bio)
{
	__u32 op = bio->bi_opf & KERNEL_REQ_OP_MASK;
	if (op == KERNEL_REQ_OP_READ)
		return TB_READ;
	if (op == KERNEL_REQ_OP_WRITE && bio->bi_iter.bi_size)
		return TB_WRITE;
	return op == KERNEL_REQ_OP_DISCARD ? TB_DISCARD : TB_NONE;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(iops_bio_complete, struct request_queue *q, struct bio *bio)
{
	struct bio_entry tb;
	bool known = bios_inflight > 0 && take((__u64)bio, &tb);
	if (bio->bi_status == KERNEL_BLK_STS_AGAIN) {
		if (known && tb.owner == OWNER_TREE)
			__sync_fetch_and_add(&bios_would_block, 1);
		return 0;
	}
	if (known) {
		bio_end(&tb, bpf_ktime_get_ns(), true, true);
		count_entry_bio_based(&tb);
		return 0;
	}
	if (!bio_based_devs)
		return 0;
	__u8 dev[2] = {BIO_NO_DEVICE, BIO_NO_DEVICE};
	if (!selected(bio->bi_bdev, dev))
		return 0;
	/* A part md split off its bio (bio_split and bio_chain, in raid0's
	 * and raid1's own code: no tracepoint) carries the trace flag and
	 * ends here: its bio's, owner and cause, its bytes split off it. */
	__u64 parent = (__u64)bio->bi_private;
	struct bio_entry *p = bios_inflight > 0 && parent ? bpf_map_lookup_elem(&bios, &parent) : 0;
	__u32 bytes = bio->bi_iter.bi_size;
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return 0;
	EBPF_SLOT_ENTER(&s->seq);
	if (p && p->kind == kind_of(bio) && p->bytes - p->done - p->split_off >= bytes) {
		struct bio_entry part = *p;
		part.other_left = p->other_left < bytes ? p->other_left : bytes;
		__sync_fetch_and_add(&p->other_left, -part.other_left);
		__sync_fetch_and_add(&p->split_off, bytes);
		count_bytes(s, &part, bytes);
		count_bio_based(s, p->dev, p->kind, bytes, p->lower, true);
	} else {
		count_bio_based(s, dev, kind_of(bio), bytes, false, false);
	}
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}

/* A completion's walk: the bytes it covers (left), bio after bio, each
 * counted with its owner; placed, those of bios seen queued. */
struct done_walk {
	__u64 bio; /* struct bio *, the next to look at; 0 at the end */
	__u64 now;
	__u32 left;
	__u32 placed;
	__u32 lower; /* of placed, clones' below a stacked bio */
	struct bio_slot *s;
};

static long complete_step(__u32 i, void *ctx)
{
	struct done_walk *w = ctx;
	struct bio *bio = (struct bio *)w->bio;
	__u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);
	__u32 part = size < w->left ? size : w->left;
	struct bio_entry *tb = bpf_map_lookup_elem(&bios, &w->bio);
	if (tb) {
		count_bytes(w->s, tb, part);
		tb->done += part;
		w->placed += part;
		if (tb->lower)
			w->lower += part;
	}
	w->left -= part;
	if (part < size)
		return 1; /* the rest of it ends in a later part */
	bio_done(w->bio, w->now);
	w->bio = (__u64)BPF_CORE_READ(bio, bi_next);
	return w->bio == 0;
}

/* Everyone's bytes of a request, as /proc/diskstats counts them (in
 * blk_account_io_done(): an op when nothing is left; a request in a flush
 * sequence completes its data first, flag set, then ends again with no
 * data when the sequence is done; an empty flush, fsync's, is a write of 0
 * bytes), and what of them no bio seen queued placed. */
static __always_inline void count_request(struct bio_slot *s, struct request *rq, __u32 nr_bytes,
					  __u32 done, __u32 placed, __u32 lower, __u8 dev[2])
{
	__u32 op = rq->cmd_flags & KERNEL_REQ_OP_MASK;
	bool op_done = nr_bytes >= rq->__data_len && !(rq->rq_flags & kernel_rqf_flush_seq());
	/* in the totals, what clones below a stacked bio did not place: the
	 * stacked device counted those; a request of nothing else is no op
	 * of the totals */
	__u64 own = done - lower, op_once = op_done && (lower < done || !done);
	enum bio_counter ops, bytes, unplaced;
	if (op == KERNEL_REQ_OP_READ) {
		ops = BIO_ALL_READ_OPS, bytes = BIO_ALL_READ_BYTES, unplaced = BIO_UNATTRIBUTED_READ_BYTES;
	} else if (op == KERNEL_REQ_OP_WRITE || op == KERNEL_REQ_OP_WRITE_ZEROES) {
		ops = BIO_ALL_WRITE_OPS, bytes = BIO_ALL_WRITE_BYTES, unplaced = BIO_UNATTRIBUTED_WRITE_BYTES;
	} else if (op == KERNEL_REQ_OP_DISCARD) {
		add_io(s, dev, own, BIO_ALL_DISCARD_BYTES, done);
		if (op_done)
			add_io(s, dev, op_once, BIO_ALL_DISCARD_OPS, 1);
		return;
	} else {
		return;
	}
	add_io(s, dev, own, bytes, done);
	add_io(s, dev, done - placed, unplaced, done - placed);
	if (op_done)
		add_io(s, dev, op_once, ops, 1);
	if (op == KERNEL_REQ_OP_WRITE_ZEROES) {
		add_io(s, dev, own, BIO_ALL_WRITE_ZEROES_BYTES, done);
		if (op_done)
			add_io(s, dev, op_once, BIO_ALL_WRITE_ZEROES_OPS, 1);
	}
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iops_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	/* the partition, as the kernel's accounting has it (not set when the
	 * device keeps no statistics) */
	struct block_device *part = rq->part;
	if (!part)
		part = rq->bio ? rq->bio->bi_bdev : rq->q->disk->part0;
	__u8 dev[2] = {BIO_NO_DEVICE, BIO_NO_DEVICE};
	bool counted = selected(part, dev);
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return 0;
	__u32 left = rq->__data_len;
	__u32 done = nr_bytes < left ? nr_bytes : left;
	/* One update of the slot for the whole completion: its bios' bytes
	 * and the request's land in the same row. The bios this part
	 * completes: those wholly within its bytes, in order, and a part of
	 * the first one it does not (blk_update_request() ends and advances
	 * them just after this). */
	EBPF_SLOT_ENTER(&s->seq);
	struct done_walk w = {.bio = (__u64)rq->bio, .now = bpf_ktime_get_ns(), .left = done, .s = s};
	if (bios_inflight > 0 && w.bio) {
		bpf_loop(WALK_MAX, complete_step, &w, 0);
		struct bio *stopped = (struct bio *)w.bio;
		if (stopped && w.left && BPF_CORE_READ(stopped, bi_iter.bi_size) <= w.left)
			__sync_fetch_and_add(&walks_cut, 1);
	}
	if (counted)
		count_request(s, rq, nr_bytes, done, w.placed, w.lower, dev);
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}
