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
 * Issue and completion run in whatever context the driver uses (a kworker,
 * an interrupt), so no pid is ever taken there (bcc#4810, bcc#826).
 *
 * Ends no program sees. A completion can reach no program: the kernel
 * skips one already running on that CPU (recursion_misses counts those),
 * and some hosts' kernels run no BPF program at all while the current task
 * is one of their own agent's, which a completion in a softirq on top of
 * such a task is. The tree's bio then stays in tree_bios after its end. It
 * is counted when its end is certain: when its address comes back as a
 * new bio (its memory was freed, so it had ended), or, for the final row,
 * when the devices have nothing in flight (block_io.c). It counts in ops,
 * bytes and size, in no latency bucket, and in ends_inferred (a discard or
 * a flush too). */
#include "common/ebpf/kernel.bpf.h"
#include "common/ebpf/tree.bpf.h"
#include "block_io/block_io_slot.h"

#include <stdbool.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the sampler before load: the bit of bi_flags the throttle sets
 * on a bio it has charged (BIO_BPS_THROTTLED, BIO_THROTTLED before 5.19;
 * BIO_NO_FLAG when the kernel's BTF names neither), and the inode numbers
 * of the episode's own cgroups (v2, v1 blkio; 0 when none). */
#define BIO_NO_FLAG 0xff
const volatile __u8 bio_throttled_bit = BIO_NO_FLAG;
const volatile __u64 episode_cgroups[2];

/* The kernel's dev_t of each selected device to its index, set by the
 * sampler before it attaches. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIO_DEVICES);
	__type(key, __u32);
	__type(value, __u8);
} bio_devices SEC(".maps");

EBPF_SLOTS_MAP(bio_slots, struct bio_slot);

/* The tree's bios in flight, by address. Allocated as used: its size is a
 * bound, not a cost. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TREE_BIOS_MAX);
	__type(key, __u64);
	__type(value, struct tree_bio);
} tree_bios SEC(".maps");

/* bios of the tree that found tree_bios full: the sampler fails rather
 * than undercount */
__u64 tree_bios_lost;
/* bios of the tree that ended with BLK_STS_AGAIN before reaching the
 * device (iops_bio_complete): in no count, said in the manifest */
__u64 bios_would_block;
/* tree_bios' entries, exactly: each insert adds one, each delete that
 * found its key takes one. 0 spares the issue and completion programs a
 * lookup per bio while the tree does no block I/O, and tells the sampler
 * that the tree's I/O has drained: its final row waits for 0. */
__s64 tree_bios_inflight;

/* A request's bios are walked (at its issue, at each part of its
 * completion) with bpf_loop(): a request holds at most max_segments bios,
 * a few hundred, far under this bound. A walk that meets it anyway
 * counts in walks_cut, and the sampler fails rather than undercount. */
#define WALK_MAX 65536
__u64 walks_cut;

struct walk {
	__u64 bio; /* struct bio *, the next to look at; 0 at the end */
	__u64 now;
	__u32 left; /* bytes the completion covers still */
};

/* The selected devices an I/O to bdev counts in: bdev's own entry and, for
 * a partition, its disk's. False when neither is selected. */
static __always_inline bool selected(struct block_device *bdev, __u8 dev[2])
{
	if (!bdev)
		return false;
	struct gendisk *disk = bdev->bd_disk;
	__u32 own = bdev->bd_dev, whole = KERNEL_MKDEV(disk->major, disk->first_minor);
	__u8 *i = bpf_map_lookup_elem(&bio_devices, &own);
	dev[0] = i ? *i : BIO_NO_DEVICE;
	dev[1] = BIO_NO_DEVICE;
	if (whole != own && (i = bpf_map_lookup_elem(&bio_devices, &whole)))
		dev[1] = *i;
	return dev[0] < BIO_DEVICES || dev[1] < BIO_DEVICES;
}

static int tree_bio_end(const struct tree_bio *tb, __u64 now, bool seen);

/* The entry at key, taken out: the caller counts it, as no one else will. */
static __always_inline bool take(__u64 key, struct tree_bio *out)
{
	struct tree_bio *found = bpf_map_lookup_elem(&tree_bios, &key);
	if (!found)
		return false;
	*out = *found;
	if (bpf_map_delete_elem(&tree_bios, &key) < 0)
		return false; /* another CPU took it */
	__sync_fetch_and_add(&tree_bios_inflight, -1);
	return true;
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
	struct tree_bio tb = {.held = 1};
	/* An entry here already: this bio again (what a split leaves of it
	 * comes back through the throttle, already queued), or a bio whose
	 * memory this one reuses, which iops_bio_queue settles. */
	if (tree_bios_inflight > 0 && bpf_map_lookup_elem(&tree_bios, &key))
		return 0;
	if (!selected(bio->bi_bdev, tb.dev) || !tree_has_current())
		return 0;
	tb.queue_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&tree_bios, &key, &tb, BPF_NOEXIST) < 0)
		__sync_fetch_and_add(&tree_bios_lost, 1);
	else
		__sync_fetch_and_add(&tree_bios_inflight, 1);
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

SEC("tp_btf/block_bio_queue")
int BPF_PROG(iops_bio_queue, struct bio *bio)
{
	__u64 key = (__u64)bio;
	/* A bio of the tree at this address ended before its memory came
	 * back as this one, but no program saw the end (see "Ends no program
	 * sees" above): it counts now. Checked on every device: the memory
	 * may come back for any. Unless it is this very bio, held at the
	 * throttle: the tree's, whoever queues it. */
	struct tree_bio old, tb = {};
	bool held = false;
	if (tree_bios_inflight > 0 && take(key, &old)) {
		held = old.held;
		if (!held)
			tree_bio_end(&old, 0, false);
	}
	if (!selected(bio->bi_bdev, tb.dev))
		return 0;
	__u64 cgroup = bio_cgroup(bio);
	count_cgroup_queued(bio, cgroup, tb.dev[0]);
	if (!(held || tree_has_current() || throttled_for_episode(bio, cgroup)))
		return 0;
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
		return 0; /* write-zeroes, secure erase, zone commands */
	tb.queue_ns = bpf_ktime_get_ns(); /* a held bio's latency starts here too */
	if (bpf_map_update_elem(&tree_bios, &key, &tb, BPF_NOEXIST) < 0)
		__sync_fetch_and_add(&tree_bios_lost, 1);
	else
		__sync_fetch_and_add(&tree_bios_inflight, 1);
	return 0;
}

static long issue_step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	struct bio *bio = (struct bio *)w->bio;
	struct tree_bio *tb = bpf_map_lookup_elem(&tree_bios, &w->bio);
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

/* A bio of the tree ended: it counts now, ops, bytes and size in one
 * update of the slot, and its latency when its end was seen (at now). */
static int tree_bio_end(const struct tree_bio *tb, __u64 now, bool seen)
{
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return 0;
	__u64 us = seen ? (now - (tb->issue_ns ? tb->issue_ns : tb->queue_ns)) / 1000 : 0;
	EBPF_SLOT_ENTER(&s->seq);
	for (int k = 0; k < 2; k++) {
		__u8 d = tb->dev[k];
		if (tb->kind == TB_READ) {
			add_dev(s, d, BIO_READ_OPS, 1);
			add_dev(s, d, BIO_READ_BYTES, tb->bytes);
		} else if (tb->kind == TB_WRITE) {
			add_dev(s, d, BIO_WRITE_OPS, 1);
			add_dev(s, d, BIO_WRITE_BYTES, tb->bytes);
		} else if (tb->kind == TB_DISCARD) {
			add_dev(s, d, BIO_DISCARD_OPS, 1);
			add_dev(s, d, BIO_DISCARD_BYTES, tb->bytes);
		}
		if (tb->flush)
			add_dev(s, d, BIO_FLUSH_OPS, 1);
	}
	if (tb->kind == TB_READ || tb->kind == TB_WRITE) {
		__u32 dir = tb->kind == TB_WRITE ? BIO_DIR_WRITE : BIO_DIR_READ;
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

/* A bio of the tree ended (if key is one), its end seen at now. */
static __always_inline int tree_bio_done(__u64 key, __u64 now)
{
	struct tree_bio tb;
	if (take(key, &tb))
		tree_bio_end(&tb, now, true);
	return 0;
}

/* A bio-based device's bio ended (dm, md, zram). blk_update_request()
 * clears the bio's trace flag, so a request's bios never come here: they
 * end in the walk of block_rq_complete.
 *
 * So does a bio that never got a request: one with REQ_NOWAIT (io_uring's,
 * an RWF_NOWAIT write) on a queue with no request free ends at once with
 * BLK_STS_AGAIN, and its submitter submits its bytes again in another bio.
 * It moved nothing: it is dropped, not counted, so each byte counts once. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(iops_bio_complete, struct request_queue *q, struct bio *bio)
{
	if (tree_bios_inflight <= 0)
		return 0;
	struct tree_bio tb;
	if (bio->bi_status == KERNEL_BLK_STS_AGAIN) {
		if (take((__u64)bio, &tb))
			__sync_fetch_and_add(&bios_would_block, 1);
		return 0;
	}
	tree_bio_done((__u64)bio, bpf_ktime_get_ns());
	return 0;
}

static long complete_step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	struct bio *bio = (struct bio *)w->bio;
	__u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);
	if (size > w->left)
		return 1; /* ends in a later part */
	w->left -= size;
	tree_bio_done(w->bio, w->now);
	w->bio = (__u64)BPF_CORE_READ(bio, bi_next);
	return w->bio == 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iops_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	/* the bios this part completes: those wholly within nr_bytes, in
	 * order (blk_update_request() ends them just after this) */
	if (tree_bios_inflight > 0) {
		struct walk w = {.bio = (__u64)rq->bio, .now = bpf_ktime_get_ns(), .left = nr_bytes};
		if (w.bio)
			bpf_loop(WALK_MAX, complete_step, &w, 0);
		struct bio *stopped = (struct bio *)w.bio;
		if (stopped && BPF_CORE_READ(stopped, bi_iter.bi_size) <= w.left)
			__sync_fetch_and_add(&walks_cut, 1);
	}

	__u32 op = rq->cmd_flags & KERNEL_REQ_OP_MASK;
	if (op != KERNEL_REQ_OP_READ && op != KERNEL_REQ_OP_WRITE)
		return 0;
	/* the partition, as the kernel's accounting has it (not set when the
	 * device keeps no statistics) */
	struct block_device *part = rq->part;
	if (!part)
		part = rq->bio ? rq->bio->bi_bdev : rq->q->disk->part0;
	__u8 dev[2];
	if (!selected(part, dev))
		return 0;
	struct bio_slot *s = EBPF_THIS_CPU_SLOT(&bio_slots);
	if (!s)
		return 0;
	/* An op when nothing is left, as blk_account_io_done() counts it:
	 * a request in a flush sequence completes its data first, flag set,
	 * then ends again with no data when the sequence is done; an empty
	 * flush (fsync's) is a write of 0 bytes. */
	__u32 left = rq->__data_len;
	__u32 done = nr_bytes < left ? nr_bytes : left;
	bool op_done = nr_bytes >= left && !(rq->rq_flags & kernel_rqf_flush_seq());
	enum bio_counter ops = op == KERNEL_REQ_OP_READ ? BIO_ALL_READ_OPS : BIO_ALL_WRITE_OPS;
	enum bio_counter bytes = op == KERNEL_REQ_OP_READ ? BIO_ALL_READ_BYTES : BIO_ALL_WRITE_BYTES;
	EBPF_SLOT_ENTER(&s->seq);
	for (int k = 0; k < 2; k++) {
		add_dev(s, dev[k], bytes, done);
		if (op_done)
			add_dev(s, dev[k], ops, 1);
	}
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}
