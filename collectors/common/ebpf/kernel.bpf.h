/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel side's view of the kernel: libbpf's helper headers and the few
 * kernel types iopsample's programs read, declared with
 * preserve_access_index so that libbpf relocates every field access against
 * the running kernel's BTF when it loads the program (CO-RE).
 *
 * Why not a vmlinux.h: a header dumped from the build host's BTF ties the
 * build to that kernel, and a vendored one is some 100 000 lines per
 * architecture to declare the few fields read here. Field offsets come
 * from the running kernel either way; a field that moved is relocated, one
 * that is gone fails the load with libbpf's reason (ebpf_open_error). */
#ifndef IOPSAMPLE_KERNEL_BPF_H
#define IOPSAMPLE_KERNEL_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <stdbool.h>

typedef struct {
	int counter;
} atomic_t;

struct thread_info {
	unsigned long flags;
	__u32 status;
} __attribute__((preserve_access_index));


/* A descriptor's open file (syscall_io's by_kind), its inode and its file
 * system (the access pattern's file and block size) */
struct block_device;

struct super_block {
	__u32 s_dev;                /* dev_t: st_dev */
	unsigned long s_blocksize; /* what statfs(2) gives as f_bsize */
	struct block_device *s_bdev; /* its device; none for a pseudo file system */
} __attribute__((preserve_access_index));

struct inode {
	unsigned short i_mode; /* umode_t: S_IFMT and the permissions */
	unsigned long i_ino;
	__u32 i_generation;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

/* A file's page cache (block_io's causes): its inode */
struct address_space {
	struct inode *host;
} __attribute__((preserve_access_index));

/* A page, and a folio (a page and those after it, as one): the flags are
 * the first word of both in every release (memdesc_flags_t from Linux
 * 6.18 is that word in a struct, which CO-RE would not relocate to), so
 * they are read at offset 0. mapping's low bits mark anonymous and movable
 * pages; compound_head's lowest marks a tail page, the rest its head. */
struct page {
	struct address_space *mapping;
	unsigned long compound_head;
} __attribute__((preserve_access_index));

/* A large folio's pages: _nr_pages from Linux 6.15, _folio_nr_pages before
 * (6.1 to 6.14; a folio of a page cache that has only order-0 folios, as
 * ext4's before 6.16, never gets here) */
struct folio {
	struct address_space *mapping;
	unsigned int _nr_pages;
} __attribute__((preserve_access_index));

struct folio___before_6_15 {
	unsigned int _folio_nr_pages;
} __attribute__((preserve_access_index));

enum pageflags {
	PG_locked = 0,
	PG_writeback = 1,
	PG_uptodate = 3,
	PG_head = 6,
	PG_owner_priv_1 = 7,
	PG_swapbacked = 19,
};

/* A page of the swap cache: swap-backed, with PG_swapcache, which is
 * PG_owner_priv_1's bit (a file system's PG_checked on its own pages) */
#define kernel_page_swapcache(flags)                                                               \
	(kernel_page_flag(flags, PG_swapbacked) && kernel_page_flag(flags, PG_owner_priv_1))

#define KERNEL_S_IFMT 0170000
#define KERNEL_S_IFBLK 0060000
#define KERNEL_PAGE_MAPPING_FLAGS 3ul /* PAGE_MAPPING_ANON | PAGE_MAPPING_MOVABLE */

static __always_inline unsigned long kernel_page_flags(const void *page)
{
	unsigned long flags = 0;
	bpf_probe_read_kernel(&flags, sizeof(flags), page);
	return flags;
}

#define kernel_page_flag(flags, f) (((flags) >> bpf_core_enum_value(enum pageflags, f)) & 1)

/* The head of the folio page belongs to. */
static __always_inline struct page *kernel_page_head(struct page *page)
{
	unsigned long head = BPF_CORE_READ(page, compound_head);
	return head & 1 ? (struct page *)(head - 1) : page;
}

/* Pages in folio. */
static __always_inline __u64 kernel_folio_pages(struct folio *folio)
{
	if (!kernel_page_flag(kernel_page_flags(folio), PG_head))
		return 1;
	if (bpf_core_field_exists(folio->_nr_pages))
		return BPF_CORE_READ(folio, _nr_pages);
	struct folio___before_6_15 *old = (void *)folio;
	if (bpf_core_field_exists(old->_folio_nr_pages))
		return BPF_CORE_READ(old, _folio_nr_pages);
	return 1;
}

struct file {
	struct inode *f_inode;
	unsigned int f_mode; /* fmode_t */
	long long f_pos;
} __attribute__((preserve_access_index));

#define KERNEL_FMODE_WRITE 0x2

/* io_uring's request (io_uring/io_uring_types.h). Its submitter is
 * tctx->task from Linux 6.13, the request's own task before: the
 * ___before_6_13 flavour, which CO-RE matches to the same kernel type. */
struct io_uring_task {
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct io_cqe {
	__u64 user_data;
	__s32 res;
} __attribute__((preserve_access_index));

struct io_kiocb {
	struct file *file;
	__u8 opcode;
	struct io_cqe cqe; /* the result its completion posts */
	struct io_uring_task *tctx;
} __attribute__((preserve_access_index));

struct io_kiocb___before_6_13 {
	struct task_struct *task;
} __attribute__((preserve_access_index));

static __always_inline struct task_struct *kernel_io_kiocb_task(struct io_kiocb *req)
{
	if (bpf_core_field_exists(req->tctx))
		return BPF_CORE_READ(req, tctx, task);
	return BPF_CORE_READ((struct io_kiocb___before_6_13 *)req, task);
}

/* include/linux/fs.h: begins with its file; syscall_io reads a descriptor
 * table's slot as one */
struct kiocb {
	struct file *ki_filp;
	long long ki_pos; /* io_uring's read or write: where it is, after its bytes once done */
} __attribute__((preserve_access_index));

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} __attribute__((preserve_access_index));

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

/* A task's I/O counters, what /proc/PID/io sums (proc_io) */
struct task_io_accounting {
	__u64 rchar, wchar, syscr, syscw;
	__u64 read_bytes, write_bytes, cancelled_write_bytes;
} __attribute__((preserve_access_index));

/* The seqlock that a thread's release and a child's reap write under
 * (seqlock_t: seqcount_spinlock_t from Linux 5.10) */
struct seqcount {
	unsigned sequence;
} __attribute__((preserve_access_index));

struct seqcount_spinlock {
	struct seqcount seqcount;
} __attribute__((preserve_access_index));

typedef struct {
	struct seqcount_spinlock seqcount;
} __attribute__((preserve_access_index)) seqlock_t;

struct signal_struct {
	atomic_t live; /* threads of the group not yet in do_exit() */
	seqlock_t stats_lock;
	struct task_io_accounting ioac; /* its released threads' and reaped children's */
} __attribute__((preserve_access_index));

struct pid;

struct task_struct {
	struct thread_info thread_info;
	int pid;
	int tgid;
	int exit_state; /* EXIT_ZOMBIE, EXIT_DEAD, or 0 */
	int on_cpu;     /* on a CPU now (CONFIG_SMP) */
	struct task_struct *group_leader;
	struct pid *thread_pid; /* NULL once it is released */
	__u64 start_time;   /* CLOCK_MONOTONIC ns at its fork */
	__u64 self_exec_id; /* its execs (u64 since Linux 5.7) */
	struct signal_struct *signal;
	struct files_struct *files;
	struct task_io_accounting ioac;
} __attribute__((preserve_access_index));

/* The task iterator's context (iter/task, Linux 5.8) */
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 seq_num;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task; /* NULL at the end of the walk */
} __attribute__((preserve_access_index));

/* The block layer (block_io) */
typedef __u32 dev_t_k; /* the kernel's dev_t: major << 20 | minor */
#define KERNEL_MINORBITS 20
#define KERNEL_MKDEV(ma, mi) (((__u32)(ma) << KERNEL_MINORBITS) | (__u32)(mi))

struct gendisk;

struct block_device {
	dev_t_k bd_dev;
	struct gendisk *bd_disk;
} __attribute__((preserve_access_index));

struct gendisk {
	int major;
	int first_minor;
	struct block_device *part0;
} __attribute__((preserve_access_index));

/* A block device's inode in the bdev pseudo file system (block/bdev.c):
 * its page cache is the device's own (a file system's buffers, buffered
 * I/O through the device node) */
struct bdev_inode {
	struct block_device bdev;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

static __always_inline struct block_device *kernel_inode_bdev(struct inode *inode)
{
	if (!bpf_core_type_exists(struct bdev_inode))
		return 0;
	return (struct block_device *)((char *)inode - bpf_core_field_offset(struct bdev_inode, vfs_inode) +
				       bpf_core_field_offset(struct bdev_inode, bdev));
}

struct request_queue {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct bvec_iter {
	unsigned int bi_size;      /* bytes left */
	unsigned int bi_idx;       /* the bio_vec it is at */
	unsigned int bi_bvec_done; /* bytes of that bio_vec done */
} __attribute__((preserve_access_index));

/* A bio's cgroup (CONFIG_BLK_CGROUP): blkg, its blkcg, whose css's cgroup
 * has the kernfs node whose id is the cgroup directory's inode number */
struct kernfs_node {
	__u64 id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct blkcg {
	struct cgroup_subsys_state css;
} __attribute__((preserve_access_index));

struct blkcg_gq {
	struct blkcg *blkcg;
} __attribute__((preserve_access_index));

/* an element of a bio's page vector: step through one by the kernel's
 * bpf_core_type_size(struct bio_vec), not this struct's */
struct bio_vec {
	struct page *bv_page;
	unsigned int bv_offset;
} __attribute__((preserve_access_index));

struct bio {
	struct bio *bi_next; /* the next bio of a request */
	struct block_device *bi_bdev;
	unsigned int bi_opf;
	unsigned short bi_flags; /* 1 << BIO_* (an enum BTF has no name for) */
	__u8 bi_status;          /* blk_status_t */
	struct bvec_iter bi_iter;
	struct blkcg_gq *bi_blkg;
	void *bi_private;        /* a split's: the bio it was split from (bio_chain) */
	unsigned short bi_vcnt;  /* pages in bi_io_vec */
	struct bio_vec *bi_io_vec;
} __attribute__((preserve_access_index));

/* include/linux/blk_types.h: the bio would have blocked (REQ_NOWAIT and no
 * request free); its submitter gets EAGAIN and submits it again. 12 since
 * Linux 4.13. */
#define KERNEL_BLK_STS_AGAIN 12

struct request {
	struct request_queue *q;
	unsigned int cmd_flags;
	unsigned int rq_flags;
	unsigned int __data_len; /* bytes not yet completed */
	struct bio *bio;
	struct block_device *part;
} __attribute__((preserve_access_index));

/* include/linux/blk_types.h: the operation is the low byte of bi_opf and
 * cmd_flags (these numbers are the kernel's ABI with user space's
 * blktrace); the flag bits above it have moved between releases, so their
 * positions come from BTF. */
#define KERNEL_REQ_OP_MASK 0xff
enum kernel_req_op {
	KERNEL_REQ_OP_READ = 0,
	KERNEL_REQ_OP_WRITE = 1,
	KERNEL_REQ_OP_FLUSH = 2,
	KERNEL_REQ_OP_DISCARD = 3,
	KERNEL_REQ_OP_WRITE_ZEROES = 9,
};

enum req_flag_bits {
	__REQ_META = 12,
	__REQ_PREFLUSH = 18,
	__REQ_RAHEAD = 19,
	__REQ_SWAP = 24,
};

/* a flag's bit, where the running kernel has it (a constant: CO-RE) */
#define kernel_req_flag(bit) (1u << bpf_core_enum_value(enum req_flag_bits, bit))

static __always_inline unsigned int kernel_req_preflush(void)
{
	return kernel_req_flag(__REQ_PREFLUSH);
}

/* include/linux/blk-mq.h: a request in the middle of its cache-flush
 * sequence. An enum from Linux 6.11; before it a #define, bit 4 since
 * Linux 4.x, which BTF does not carry. */
enum rqf_flags {
	__RQF_FLUSH_SEQ = 1,
};
#define KERNEL_RQF_FLUSH_SEQ_BEFORE_6_11 (1u << 4)

static __always_inline unsigned int kernel_rqf_flush_seq(void)
{
	if (bpf_core_enum_value_exists(enum rqf_flags, __RQF_FLUSH_SEQ))
		return 1u << bpf_core_enum_value(enum rqf_flags, __RQF_FLUSH_SEQ);
	return KERNEL_RQF_FLUSH_SEQ_BEFORE_6_11;
}

#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long orig_ax; /* the syscall number, -1 outside a syscall */
	unsigned long di, si, dx, r10, r8, r9; /* its arguments, still there at its exit */
} __attribute__((preserve_access_index));

/* Argument n (0-5) of the syscall, at its entry or its exit. */
static __always_inline unsigned long kernel_syscall_arg(const struct pt_regs *regs, int n)
{
	switch (n) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->r10;
	case 4: return regs->r8;
	default: return regs->r9;
	}
}

/* arch/x86/include/asm/thread_info.h: a 32-bit (int 0x80) syscall is active */
#define KERNEL_TS_COMPAT 0x0002

static __always_inline unsigned long kernel_syscall_nr(const struct pt_regs *regs)
{
	return regs->orig_ax;
}

/* A syscall of another ABI: its numbers are another table's. x32 calls
 * carry __X32_SYSCALL_BIT in the number and fail any table bound. A typed
 * load of the task where the kernel has bpf_get_current_task_btf (5.11),
 * a read before it. */
static __always_inline int kernel_compat_syscall(void)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf))
		return bpf_get_current_task_btf()->thread_info.status & KERNEL_TS_COMPAT;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(t, thread_info.status) & KERNEL_TS_COMPAT;
}
#elif defined(__TARGET_ARCH_arm64)
struct pt_regs {
	unsigned long regs[31];
	unsigned long orig_x0; /* x0 holds the result at the exit */
	int syscallno;
} __attribute__((preserve_access_index));

static __always_inline unsigned long kernel_syscall_arg(const struct pt_regs *regs, int n)
{
	return n == 0 ? regs->orig_x0 : regs->regs[n & 7];
}

/* arch/arm64/include/asm/thread_info.h: TIF_32BIT, an AArch32 task */
#define KERNEL_TIF_32BIT (1UL << 22)

static __always_inline unsigned long kernel_syscall_nr(const struct pt_regs *regs)
{
	return (unsigned long)(long)regs->syscallno;
}

static __always_inline int kernel_compat_syscall(void)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf))
		return (bpf_get_current_task_btf()->thread_info.flags & KERNEL_TIF_32BIT) != 0;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return (BPF_CORE_READ(t, thread_info.flags) & KERNEL_TIF_32BIT) != 0;
}
#else
#error "iopsample's eBPF programs: declare this architecture's pt_regs and compat test"
#endif

#endif
