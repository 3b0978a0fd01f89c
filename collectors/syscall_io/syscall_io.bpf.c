// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_io's eBPF backend, the kernel side: at every syscall exit of a
 * process in the target's tree, the counted read/write syscalls add their
 * result to the running CPU's slot, on the sides its bytes count on, with
 * the kind of the descriptor each side went through. Nothing goes through
 * a buffer: the sampler reads the slots at each tick (sio_ebpf.c), so no
 * event can be lost however fast they come.
 *
 * The same rules as the ptrace tracer (sio_rules.h, io_syscalls.c): a
 * restart code is no result, -4095..-1 is an error, sizes are bucketed by
 * log2, recvmmsg and sendmmsg move the lengths of the messages they return,
 * and a syscall of another ABI is not counted. */
#include "common/ebpf/kernel.bpf.h"
#include "common/ebpf/tree.bpf.h"
#include "syscall_io/sio_slot.h"

#include <stdbool.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the sampler before load (read-only after it), from io_syscalls[]. */
const volatile __u8 sio_index[SIO_MAX_NR];          /* counted index of a syscall number */
const volatile __u8 sio_sides[SIO_MAX_SYSCALLS];    /* enum sio_sides of a counted index */
const volatile __s8 sio_fd_arg[SIO_MAX_SYSCALLS][2]; /* [enum io_dir]: the fd's argument, or -1 */
const volatile __u8 sio_msgvec[SIO_MAX_SYSCALLS];   /* bytes from the mmsghdrs at arg 1 */
const volatile __u8 sio_pos[SIO_MAX_SYSCALLS][2];     /* [enum io_dir]: enum sio_pos */
const volatile __s8 sio_pos_arg[SIO_MAX_SYSCALLS][2]; /* [enum io_dir]: its argument */
/* [syscall nr]: what Darshan's record follows of a call (enum sio_track),
 * counted or not */
const volatile __u8 sio_track[SIO_MAX_NR];
const volatile __u8 sio_aio_index = SIO_NOT_COUNTED;   /* the counted index of "aio" */
const volatile __u8 sio_uring_index = SIO_NOT_COUNTED; /* ... of "io_uring" */

EBPF_SLOTS_MAP(sio_slots, struct sio_slot);

/* The access pattern's record of each file each process of the tree
 * opened (sio_rules.h, Darshan's), made and reset by its opens; the least
 * recently used goes when full (the file's accesses count nothing until
 * the process opens it again). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SIO_FILES_MAX);
	__type(key, struct sio_file_key);
	__type(value, struct sio_fstate);
} sio_files SEC(".maps");

/* The descriptors each process of the tree opened or duplicated from one
 * it opened, until it closes them (sio_rules.h): Darshan's, the only ones
 * whose accesses it counts. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SIO_FILES_MAX);
	__type(key, struct sio_fd_key);
	__type(value, __u8);
} sio_fds SEC(".maps");

/* When each thread of the tree entered the counted call it is in (its
 * exit takes the entry out). In the task's own storage where the kernel
 * has it (5.11: a few nanoseconds, gone with the task); before, in an LRU
 * map by thread id (two hash updates a call; a thread killed inside a call
 * leaves nothing that lasts). The sampler chooses before load
 * (sio_use_task_storage) and creates only that map. */
const volatile bool sio_use_task_storage = false;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64); /* ns; 0: not in a counted call */
} sio_task_entered SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);   /* tid */
	__type(value, __u64); /* ns */
} sio_entered SEC(".maps");

/* A call's time as sio_count() takes it: ns, or one of these. */
#define SIO_NS_UNTIMED ((__u64)-1) /* its entry was not seen (before attach) */
#define SIO_NS_REQUEST ((__u64)-2) /* an aio or io_uring request: no call */

/* The calling thread entered a counted call at now. */
static __always_inline void entry_put(__u64 now)
{
	if (sio_use_task_storage) {
		__u64 *at = bpf_task_storage_get(&sio_task_entered, bpf_get_current_task_btf(), 0,
						 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (at)
			*at = now;
		return;
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&sio_entered, &tid, &now, BPF_ANY);
}

/* At the call's exit: the time since its entry, which is taken out, or
 * SIO_NS_UNTIMED. */
static __always_inline __u64 entry_take(void)
{
	__u64 ns = SIO_NS_UNTIMED;
	if (sio_use_task_storage) {
		__u64 *at = bpf_task_storage_get(&sio_task_entered, bpf_get_current_task_btf(), 0, 0);
		if (at && *at) {
			ns = bpf_ktime_get_ns() - *at;
			*at = 0;
		}
		return ns;
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *at = bpf_map_lookup_elem(&sio_entered, &tid);
	if (at) {
		ns = bpf_ktime_get_ns() - *at;
		bpf_map_delete_elem(&sio_entered, &tid);
	}
	return ns;
}

/* The kind of an open file, or unknown without one. */
static __always_inline __u8 file_kind(struct file *f)
{
	return f ? sio_kind_of_mode(BPF_CORE_READ(f, f_inode, i_mode)) : SIO_KIND_UNKNOWN;
}

/* The kind of the calling task's descriptor fd, with SIO_FD_WRITABLE when
 * it is open for writing if want_mode. Read at the call's exit: a
 * descriptor another thread closed in between is unknown.
 *
 * This runs for every counted call. Where the kernel has bpf_rdonly_cast
 * (Linux 6.2; CO-RE finds it, and the verifier never walks the other
 * branch), the task, its descriptor table, the file and its inode are read
 * as typed loads, which cost next to nothing: the table's slot is cast to
 * the one struct of the kernel's BTF that begins with a struct file *
 * (kiocb), and the task is taken untrusted, which spares the verifier a
 * search of the kernel's BTF at every load. Before it, seven reads of
 * kernel memory, each a helper call.
 *
 * Global, as the other functions below that a loop calls: the verifier
 * walks each once, on its own, rather than once for every path that
 * reaches it. */
#define SIO_FD_WRITABLE 0x100
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

__attribute__((noinline)) __u32 sio_fd_kind(long fd, int want_mode)
{
	void *task = (void *)bpf_get_current_task();
	struct file *f = NULL;
	unsigned short mode = 0;
	unsigned int fmode = 0;
	if (fd < 0)
		return SIO_KIND_UNKNOWN;
	if (bpf_rdonly_cast) {
		struct task_struct *t = bpf_rdonly_cast(task, bpf_core_type_id_kernel(struct task_struct));
		struct fdtable *fdt = t->files ? t->files->fdt : NULL;
		if (!fdt || fd >= fdt->max_fds)
			return SIO_KIND_UNKNOWN;
		struct kiocb *slot = bpf_rdonly_cast(fdt->fd + fd, bpf_core_type_id_kernel(struct kiocb));
		f = slot->ki_filp;
		if (!f || !f->f_inode)
			return SIO_KIND_UNKNOWN;
		mode = f->f_inode->i_mode;
		fmode = f->f_mode;
	} else {
		struct fdtable *fdt = BPF_CORE_READ((struct task_struct *)task, files, fdt);
		struct file **fds = BPF_CORE_READ(fdt, fd);
		if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds) ||
		    bpf_probe_read_kernel(&f, sizeof(f), fds + fd) < 0 || !f)
			return SIO_KIND_UNKNOWN;
		mode = BPF_CORE_READ(f, f_inode, i_mode);
		fmode = want_mode ? BPF_CORE_READ(f, f_mode) : 0;
	}
	if (!(mode & 0170000)) /* no inode read: the file was going */
		return SIO_KIND_UNKNOWN;
	__u32 kind = sio_kind_of_mode(mode);
	return want_mode && fmode & KERNEL_FMODE_WRITE ? kind | SIO_FD_WRITABLE : kind;
}

/* The bytes of message k of those recvmmsg or sendmmsg returned at vec. */
__attribute__((noinline)) __u64 sio_mmsg_len(unsigned long vec, int k)
{
	__u32 len = 0;
	bpf_probe_read_user(&len, sizeof(len),
			    (const void *)(vec + (unsigned long)k * SIO_MMSGHDR_SIZE +
					   SIO_MMSGHDR_LEN_OFFSET));
	return len;
}

/* The loops over a call's aio events and recvmmsg's messages: bpf_loop()
 * (Linux 5.17) where the kernel has it, whose body the verifier walks once;
 * else a bounded loop of up to 1024 iterations, which it walks for every
 * iteration (7 ms a load, though each body is one call). Two programs on
 * the syscall exit, one each way, which the sampler chooses between before
 * load (sio_ebpf.c): the other is never loaded, so a kernel before 5.13,
 * which takes no function as a helper's argument, never sees bpf_loop's
 * callbacks. */
struct sio_mmsg_walk {
	unsigned long vec;
	__u64 sum;
};

static long sio_mmsg_step(__u64 k, void *ctx)
{
	struct sio_mmsg_walk *w = ctx;
	w->sum += sio_mmsg_len(w->vec, (int)k);
	return 0;
}

/* The bytes of the n messages (looped: with bpf_loop). */
static __always_inline __u64 sio_mmsg_bytes(unsigned long vec, long n, bool looped)
{
	struct sio_mmsg_walk w = {vec, 0};
	if (n <= 0)
		return 0;
	if (looped) {
		bpf_loop(n < SIO_MMSG_MAX ? n : SIO_MMSG_MAX, sio_mmsg_step, &w, 0);
		return w.sum;
	}
	for (int k = 0; k < SIO_MMSG_MAX && k < n; k++)
		w.sum += sio_mmsg_len(vec, k);
	return w.sum;
}

/* The calling task's open file at fd, or NULL (read from kernel memory). */
static __always_inline struct file *fd_file(long fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct file *f = NULL;
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	if (fd < 0 || !fdt || fd >= BPF_CORE_READ(fdt, max_fds) ||
	    bpf_probe_read_kernel(&f, sizeof(f), fds + fd) < 0)
		return NULL;
	return f;
}

/* What the access pattern reads of an open file, and whose access it is. */
struct sio_file_facts {
	struct sio_file_key key;
	__s64 pos;     /* the description's position */
	__u64 blksize; /* its file system's */
	__u32 mode;
};

/* The process of task (its thread group's leader) in the history's key. */
static __always_inline void facts_process(struct task_struct *task, struct sio_file_facts *out)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	out->key.tgid = BPF_CORE_READ(task, tgid);
	out->key.start_ns = BPF_CORE_READ(leader, start_time);
	out->key.exec_id = BPF_CORE_READ(leader, self_exec_id);
}

/* The facts of file f, read from kernel memory (f untrusted), for an
 * access by task. */
static __always_inline bool file_facts_of(struct file *f, struct task_struct *task,
					  struct sio_file_facts *out)
{
	if (!f)
		return false;
	struct inode *inode = BPF_CORE_READ(f, f_inode);
	if (!inode)
		return false;
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);
	out->pos = BPF_CORE_READ(f, f_pos);
	out->mode = BPF_CORE_READ(inode, i_mode);
	out->key.ino = BPF_CORE_READ(inode, i_ino);
	out->key.dev = BPF_CORE_READ(sb, s_dev);
	out->blksize = BPF_CORE_READ(sb, s_blocksize);
	facts_process(task, out);
	return true;
}

/* The facts of the calling task's descriptor fd: typed loads where the
 * kernel has bpf_rdonly_cast, as sio_fd_kind reads it. */
static __always_inline bool fd_file_facts(long fd, struct sio_file_facts *out)
{
	void *task = (void *)bpf_get_current_task();
	if (fd < 0)
		return false;
	if (bpf_rdonly_cast) {
		struct task_struct *t = bpf_rdonly_cast(task, bpf_core_type_id_kernel(struct task_struct));
		struct fdtable *fdt = t->files ? t->files->fdt : NULL;
		if (!fdt || fd >= fdt->max_fds)
			return false;
		struct kiocb *slot = bpf_rdonly_cast(fdt->fd + fd, bpf_core_type_id_kernel(struct kiocb));
		struct file *f = slot->ki_filp;
		if (!f || !f->f_inode)
			return false;
		struct inode *inode = f->f_inode;
		out->pos = f->f_pos;
		out->mode = inode->i_mode;
		out->key.ino = inode->i_ino;
		out->key.dev = inode->i_sb->s_dev;
		out->blksize = inode->i_sb->s_blocksize;
		out->key.tgid = t->tgid;
		out->key.start_ns = t->group_leader->start_time;
		out->key.exec_id = t->group_leader->self_exec_id;
		return true;
	}
	return file_facts_of(fd_file(fd), task, out);
}

/* The key of the process's descriptor fd, whose file's facts are fi. */
static __always_inline struct sio_fd_key fd_key(const struct sio_file_facts *fi, long fd)
{
	struct sio_fd_key k = {.start_ns = fi->key.start_ns, .exec_id = fi->key.exec_id,
			       .tgid = fi->key.tgid, .fd = (__s32)fd};
	return k;
}

/* What an access to a file (fi) adds to the pattern (enum sio_pattern
 * bits), the process's record of the file updated: side d, start (or
 * SIO_AT_RECORD_OFFSET) and len in bytes. Only regular files and block devices
 * count, and only those the process opened: Darshan has no record of the
 * others. */
static __always_inline __u32 file_access(const struct sio_file_facts *fi, __u32 d, __s64 start,
					 __s64 len)
{
	__u32 kind = sio_kind_of_mode(fi->mode);
	if (kind != SIO_KIND_FILE && kind != SIO_KIND_BLOCKDEV)
		return 0;
	struct sio_fstate *fs = bpf_map_lookup_elem(&sio_files, &fi->key);
	if (!fs)
		return 0;
	if (start == SIO_AT_RECORD_OFFSET)
		start = fs->offset;
	return sio_pattern_step(fs, d & 1, start, len, fi->blksize);
}

/* A call's access on side d through fd, which returned len bytes: the
 * kind of the descriptor (sio_fd_kind's, bits 8 to 15), and what the
 * access adds to the pattern (bits 0 to 7), where it started given by how
 * and arg (enum sio_pos and its argument's value). One look at the
 * descriptor for both. */
__attribute__((noinline)) __u32 sio_access(long fd, unsigned long arg, __u32 how, __u32 d, long len)
{
	struct sio_file_facts fi;
	if (!fd_file_facts(fd, &fi) || !(fi.mode & 0170000)) /* no inode read: the file was going */
		return SIO_KIND_UNKNOWN << 8;
	__u32 kind = sio_kind_of_mode(fi.mode) << 8;
	struct sio_fd_key fk = fd_key(&fi, fd);
	if (!bpf_map_lookup_elem(&sio_fds, &fk)) /* not a descriptor Darshan knows */
		return kind;
	__s64 start = SIO_AT_RECORD_OFFSET;
	if (how == SIO_POS_ARG) {
		start = arg;
	} else if (how == SIO_POS_PTR && arg) {
		long long after;
		if (bpf_probe_read_user(&after, sizeof(after), (const void *)arg) < 0)
			return kind;
		start = after - len;
	}
	return kind | file_access(&fi, d, start, len);
}

/* A call Darshan's record follows (enum sio_track), whose result is ret
 * and first argument fd: an open makes the process's record of the file
 * at descriptor ret, or resets it (its last kind kept); a dup of a
 * descriptor it knows makes ret known; lseek sets the offset to ret; a
 * close, at its entry, resets where the last read and write ended. */
__attribute__((noinline)) int sio_follow(__u32 track, long ret, long fd)
{
	struct sio_file_facts fi;
	long named = track == SIO_TRACK_OPEN || track == SIO_TRACK_DUP ? ret : fd;
	if (!fd_file_facts(named, &fi))
		return 0;
	struct sio_fd_key fk = fd_key(&fi, named);
	__u8 known = 1;
	if (track == SIO_TRACK_DUP) {
		struct sio_fd_key old = fd_key(&fi, fd);
		if (bpf_map_lookup_elem(&sio_fds, &old))
			bpf_map_update_elem(&sio_fds, &fk, &known, BPF_ANY);
		return 0;
	}
	if (track != SIO_TRACK_OPEN && !bpf_map_lookup_elem(&sio_fds, &fk))
		return 0;
	struct sio_fstate *fs = bpf_map_lookup_elem(&sio_files, &fi.key);
	if (track == SIO_TRACK_SEEK) {
		if (fs)
			fs->offset = ret;
	} else if (track == SIO_TRACK_CLOSE) {
		if (fs)
			sio_pattern_close(fs);
		bpf_map_delete_elem(&sio_fds, &fk);
	} else {
		bpf_map_update_elem(&sio_fds, &fk, &known, BPF_ANY);
		if (fs) {
			sio_pattern_open(fs);
		} else {
			struct sio_fstate fresh = {};
			bpf_map_update_elem(&sio_files, &fi.key, &fresh, BPF_NOEXIST);
		}
	}
	return 0;
}

/* Two accesses' pattern bits in a call's how (bits 24 to 31): each side's
 * own, and a second switch (a zero-copy call's other description) at 31. */
#define SIO_PAT_SHIFT 24
#define SIO_PAT_SWITCH2 (1u << 31)
static __always_inline __u32 sio_pat_merge(__u32 r, __u32 w)
{
	__u32 both = r & w & 1u << SIO_RW_SWITCHES;
	return (r | w) << SIO_PAT_SHIFT | (both ? SIO_PAT_SWITCH2 : 0);
}

/* A call's bytes and time on side d (constant at each call site). */
static __always_inline void add_side(struct sio_slot *s, int d, __u64 bytes, __u32 bucket,
				     __u32 kind, __u64 ns, __u32 tbucket)
{
	/* a bound every verifier sees: the compiler is kept from knowing
	 * kind's range, which it would use to test kind == 7 instead, a test
	 * 6.1's verifier learns no bound from (6.12's does) */
	barrier_var(kind);
	if (kind >= SIO_KINDS)
		kind = SIO_KIND_UNKNOWN;
	EBPF_SLOT_ADD(&s->hist[d][bucket], 1);
	if (kind == SIO_KIND_FILE)
		EBPF_SLOT_ADD(&s->file_hist[d][bucket], 1);
	EBPF_SLOT_ADD(&s->kind_calls[d][kind], 1);
	EBPF_SLOT_ADD(&s->kind_bytes[d][kind], bytes);
	if (ns < SIO_NS_REQUEST) {
		EBPF_SLOT_ADD(&s->time_hist[d][tbucket], 1);
		EBPF_SLOT_ADD(&s->side_time_ns[d], ns);
	}
}

/* How a result counts: its sides (enum sio_sides) and each side's kind. */
#define SIO_HOW(sides, rkind, wkind) ((sides) | (__u32)(rkind) << 8 | (__u32)(wkind) << 16)

/* One result of counted index i, which took ns (or SIO_NS_*): an error,
 * a metadata call, or bytes counted as how says. */
__attribute__((noinline)) int sio_count(__u32 i, long ret, __u64 bytes, __u32 how, __u64 ns)
{
	if (i >= SIO_MAX_SYSCALLS)
		return 0;
	/* the verifier's bound, right where it is used (a spilled copy loses
	 * the test's); the empty asm keeps the compiler from dropping it as
	 * redundant */
	asm volatile("" : "+r"(i));
	i &= SIO_MAX_SYSCALLS - 1;
	struct sio_slot *s = EBPF_THIS_CPU_SLOT(&sio_slots);
	if (!s)
		return 0;
	bool error = sio_is_error(ret);
	__u32 bucket = ebpf_log2_bucket(bytes) & (SIO_HIST_BUCKETS - 1);
	__u32 tbucket = ebpf_log2_bucket(ns) & (SIO_HIST_BUCKETS - 1);
	EBPF_SLOT_ENTER(&s->seq);
	if (error)
		EBPF_SLOT_ADD(&s->errors[i], 1);
	else
		EBPF_SLOT_ADD(&s->calls[i], 1);
	if (ns < SIO_NS_REQUEST)
		EBPF_SLOT_ADD(&s->time_ns[i], ns);
	else if (ns == SIO_NS_UNTIMED)
		EBPF_SLOT_ADD(&s->untimed, 1);
	if (how & SIO_SIDE_META) {
		if (ns < SIO_NS_REQUEST)
			EBPF_SLOT_ADD(&s->time_hist[IO_META][tbucket], 1);
	} else if (!error) {
		EBPF_SLOT_ADD(&s->bytes[i], bytes);
		if (how & SIO_SIDE_READ)
			add_side(s, IO_READ, bytes, bucket, how >> 8 & 0xff, ns, tbucket);
		if (how & SIO_SIDE_WRITE)
			add_side(s, IO_WRITE, bytes, bucket, how >> 16 & 0xff, ns, tbucket);
		for (int p = 0; p < SIO_PATTERNS; p++)
			if (how & 1u << (SIO_PAT_SHIFT + p))
				EBPF_SLOT_ADD(&s->pattern[p], 1);
		if (how & SIO_PAT_SWITCH2)
			EBPF_SLOT_ADD(&s->pattern[SIO_RW_SWITCHES], 1);
	}
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}

int sio_aio_event(unsigned long events, int k, __u32 i);

struct sio_aio_walk {
	unsigned long events;
	__u32 i;
};

static long sio_aio_step(__u64 k, void *ctx)
{
	struct sio_aio_walk *w = ctx;
	sio_aio_event(w->events, (int)k, w->i);
	return 0;
}

/* A syscall's exit, either way of looping (a constant at each program). */
static __always_inline int sio_exit(struct pt_regs *regs, long ret, bool looped)
{
	/* cheapest test first: this runs at every syscall exit of the host */
	unsigned long nr = kernel_syscall_nr(regs);
	if (nr >= SIO_MAX_NR) /* -1 (not a syscall), x32 */
		return 0;
	__u32 i = sio_index[nr], track = sio_track[nr];
	if (i >= SIO_MAX_SYSCALLS) {
		/* an open or lseek the rows do not count, followed all the same */
		if (track && track != SIO_TRACK_CLOSE && !sio_is_error(ret) && !kernel_compat_syscall() &&
		    tree_has_current())
			sio_follow(track, ret, kernel_syscall_arg(regs, 0));
		return 0;
	}
	if (kernel_compat_syscall() || sio_restarting(ret))
		return 0;
	if (i == sio_aio_index) { /* io_getevents, io_pgetevents: the events they reaped */
		if (!tree_has_current())
			return 0;
		struct sio_aio_walk w = {kernel_syscall_arg(regs, 3), i};
		if (ret <= 0)
			return 0;
		if (looped) {
			bpf_loop(ret < SIO_AIO_EVENTS_MAX ? ret : SIO_AIO_EVENTS_MAX, sio_aio_step, &w, 0);
			return 0;
		}
		for (int k = 0; k < SIO_AIO_EVENTS_UNROLLED && k < ret; k++)
			sio_aio_event(w.events, k, i);
		return 0;
	}
	/* its time, from its entry (a restarted call's: from its restart); an
	 * entry is only ever kept for the tree's threads, so one found spares
	 * the lookup of the tree */
	__u64 ns = entry_take();
	if (ns == SIO_NS_UNTIMED && !tree_has_current())
		return 0;
	if (sio_is_error(ret)) {
		sio_count(i, ret, 0, sio_sides[i], ns);
		return 0;
	}
	if (track && track != SIO_TRACK_CLOSE)
		sio_follow(track, ret, kernel_syscall_arg(regs, 0));

	__u32 sides = sio_sides[i], rkind = SIO_KIND_UNKNOWN, wkind = SIO_KIND_UNKNOWN;
	__u32 pat[2] = {0, 0};
	if (sides == SIO_SIDE_BY_MODE) {
		__u32 k = sio_fd_kind(kernel_syscall_arg(regs, sio_fd_arg[i][0]), 1);
		sides = k & SIO_FD_WRITABLE ? SIO_SIDE_WRITE : SIO_SIDE_READ;
		rkind = wkind = k & 0xff;
	} else {
		/* each side's kind and, for a call that addresses files, the
		 * access pattern, from one look at its descriptor */
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			if (!(sides & 1u << d))
				continue;
			long fd = kernel_syscall_arg(regs, sio_fd_arg[i][d]);
			__u32 how = sio_pos[i][d], k;
			if (how != SIO_POS_NONE) {
				int a = sio_pos_arg[i][d];
				k = sio_access(fd, a >= 0 ? kernel_syscall_arg(regs, a) : 0, how, d, ret);
				pat[d] = k & 0xff;
				k >>= 8;
			} else {
				k = sio_fd_kind(fd, 0);
			}
			if (d == IO_READ)
				rkind = k & 0xff;
			else
				wkind = k & 0xff;
		}
	}
	/* everything read before the slot's update begins: it stays short.
	 * The messages' loop last: without bpf_loop the verifier walks what
	 * follows it once for every way out of it */
	__u64 bytes = sio_msgvec[i] ? sio_mmsg_bytes(kernel_syscall_arg(regs, 1), ret, looped) : (__u64)ret;
	sio_count(i, ret, bytes, SIO_HOW(sides, rkind, wkind) | sio_pat_merge(pat[0], pat[1]), ns);
	return 0;
}

/* A counted call's entry: when, for its exit (not io_getevents', whose
 * events are requests); and a close, which Darshan's record follows while
 * the descriptor still names its file. */
SEC("tp_btf/sys_enter")
int BPF_PROG(iops_sio_enter, struct pt_regs *regs, long id)
{
	if ((unsigned long)id >= SIO_MAX_NR)
		return 0;
	__u32 i = sio_index[id];
	if (sio_track[id] == SIO_TRACK_CLOSE && !kernel_compat_syscall() && tree_has_current())
		sio_follow(SIO_TRACK_CLOSE, 0, kernel_syscall_arg(regs, 0));
	if (i >= SIO_MAX_SYSCALLS || i == sio_aio_index || kernel_compat_syscall() ||
	    !tree_has_current())
		return 0;
	entry_put(bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(iops_sio_exit, struct pt_regs *regs, long ret)
{
	return sio_exit(regs, ret, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(iops_sio_exit_bounded, struct pt_regs *regs, long ret)
{
	return sio_exit(regs, ret, false);
}

/* ---- Linux native AIO ----------------------------------------------------
 * An iocb completes wherever the device completes it (an interrupt, a
 * kworker): no tracepoint marks it, and this kernel may offer no fentry.
 * So each is counted where the tree reaps it, at the exit of io_getevents
 * or io_pgetevents, as the ptrace tracer does: the n struct io_event
 * (include/uapi/linux/aio_abi.h, 32 bytes) the call returned at arg 3,
 * each naming its iocb in the caller's memory, whose aio_lio_opcode (at 16)
 * gives the side and aio_fildes (at 20) the descriptor. This counts event
 * k of those at events. */
__attribute__((noinline)) int sio_aio_event(unsigned long events, int k, __u32 i)
{
	struct {
		__u64 data, obj;
		__s64 res, res2;
	} ev;
	struct {
		__u16 opcode;
		__u16 reqprio;
		__u32 fildes;
		__u64 buf, nbytes;
		__s64 offset;
	} cb;
	if (bpf_probe_read_user(&ev, sizeof(ev), (const void *)(events + (unsigned long)k * sizeof(ev))) < 0 ||
	    bpf_probe_read_user(&cb, sizeof(cb), (const void *)(ev.obj + 16)) < 0)
		return 0;
	__u32 sides = sio_aio_sides(cb.opcode);
	if (!sides)
		return 0;
	__u32 kind = sio_fd_kind(cb.fildes, 0) & 0xff, pat = 0;
	/* the access pattern: at the iocb's offset */
	struct sio_file_facts fi;
	struct sio_fd_key fk;
	if (!sio_is_error(ev.res) && (kind == SIO_KIND_FILE || kind == SIO_KIND_BLOCKDEV) &&
	    fd_file_facts(cb.fildes, &fi) && (fk = fd_key(&fi, cb.fildes), bpf_map_lookup_elem(&sio_fds, &fk)))
		pat = file_access(&fi, sides == SIO_SIDE_WRITE, cb.offset, ev.res);
	sio_count(i, ev.res, (__u64)ev.res, SIO_HOW(sides, kind, kind) | pat << SIO_PAT_SHIFT,
		  SIO_NS_REQUEST);
	return 0;
}

/* ---- io_uring ------------------------------------------------------------
 * Each request's completion, wherever it is posted (the submitter's task
 * work, an io-wq worker, the SQPOLL thread, an interrupt): the request
 * knows its submitter's task, whose process must be the tree's.
 *
 * The tracepoint's arguments after the request changed: (user_data, res,
 * cflags, extra1, extra2) in 6.1 and 6.12, the CQE by 6.18, and a
 * verifier refuses a program that reads an argument its kernel's
 * tracepoint does not have. The program reads only the two that every
 * version since 6.0 has, the ring and the request, whose cqe holds the
 * result it posts in both: one program that each version's verifier
 * accepts. A CQE posted for no request (an aux CQE, a message from another
 * ring) has none, and is no call of the tree's. */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(iops_sio_uring_done, void *ring, void *request)
{
	struct io_kiocb *req = request;
	if (!req)
		return 0;
	__u32 sides = sio_uring_sides(BPF_CORE_READ(req, opcode));
	__u32 tgid = BPF_CORE_READ(kernel_io_kiocb_task(req), tgid);
	if (!sides || !bpf_map_lookup_elem(&tree, &tgid))
		return 0;
	long res = BPF_CORE_READ(req, cqe.res);
	/* the file the request was issued on; splice's and tee's input is
	 * in the request's own data: unknown */
	struct file *f = BPF_CORE_READ(req, file);
	__u32 kind = file_kind(f), pat = 0;
	/* the access pattern: a read or write's kiocb (the request's first
	 * member, io_uring/rw.h) is past its bytes now */
	__u8 op = BPF_CORE_READ(req, opcode);
	struct sio_file_facts fi;
	if (res >= 0 && sio_uring_positional(op) && file_facts_of(f, kernel_io_kiocb_task(req), &fi))
		pat = file_access(&fi, sides == SIO_SIDE_WRITE,
				  BPF_CORE_READ((struct kiocb *)req, ki_pos) - res, res);
	sio_count(sio_uring_index, res, (__u64)res,
		  SIO_HOW(sides, sides == SIO_SIDE_BOTH ? SIO_KIND_UNKNOWN : kind, kind) |
			  pat << SIO_PAT_SHIFT,
		  SIO_NS_REQUEST);
	return 0;
}
