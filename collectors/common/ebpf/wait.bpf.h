/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the waits and offcpu programs read of a task that waits: its state,
 * its call and arguments (its pt_regs, bpf_task_pt_regs: Linux 5.15), and
 * what the descriptor its first argument names is (wait_class.h's kinds,
 * wait_layout.h). Included after kernel.bpf.h. */
#ifndef IOPSAMPLE_WAIT_BPF_H
#define IOPSAMPLE_WAIT_BPF_H

#include "common/ebpf/kernel.bpf.h"
#include "common/ebpf/wait_layout.h"

struct sched_entity___w {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct sched_info___w {
	unsigned long pcount;
	unsigned long long run_delay;
} __attribute__((preserve_access_index));

struct task_struct___w {
	unsigned int __state; /* state before Linux 5.14: the ___pre514 flavour */
	int on_rq;
	unsigned int flags;
	struct sched_entity___w se;
	struct sched_info___w sched_info;
} __attribute__((preserve_access_index));

struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#define WAIT_PF_KTHREAD 0x00200000u

static __always_inline __u32 wait_task_state(struct task_struct *t)
{
	struct task_struct___w *w = (void *)t;
	if (bpf_core_field_exists(w->__state))
		return BPF_CORE_READ(w, __state);
	return (__u32)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* A socket's family, a file's private data, a super block's magic */
struct sock_common___w {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct sock___w {
	struct sock_common___w __sk_common;
} __attribute__((preserve_access_index));

struct socket___w {
	struct sock___w *sk;
} __attribute__((preserve_access_index));

struct file___w {
	struct inode *f_inode;
	void *private_data;
} __attribute__((preserve_access_index));

struct super_block___w {
	unsigned long s_magic;
	__u32 s_dev;
} __attribute__((preserve_access_index));

/* include/uapi/linux/magic.h; CIFS and SMB3 mounts both carry CIFS's */
#define WAIT_FUSE_MAGIC 0x65735546ul
#define WAIT_NFS_MAGIC 0x6969ul
#define WAIT_CIFS_MAGIC 0xFF534D42ul
#define WAIT_SMB2_MAGIC 0xFE534D42ul
#define WAIT_V9FS_MAGIC 0x01021997ul
#define WAIT_CEPH_MAGIC 0x00c36400ul
#define WAIT_AFS_MAGIC 0x5346414Ful

/* wait_class.h's enum wait_fd_kind, + 1 */
enum {
	WAIT_K_INET = 1,
	WAIT_K_LOCAL_SOCKET,
	WAIT_K_PIPE,
	WAIT_K_FUSE,
	WAIT_K_REMOTE,
	WAIT_K_FILE,
	WAIT_K_OTHER,
};

#define WAIT_S_IFSOCK 0140000
#define WAIT_S_IFIFO 0010000
#define WAIT_S_IFCHR 0020000
#define WAIT_AF_INET 2
#define WAIT_AF_INET6 10

/* What an open file is: a kind, and its file system's device. */
static __always_inline void wait_file_kind(struct file___w *f, __u32 *kind, __u32 *dev)
{
	struct inode *inode = BPF_CORE_READ(f, f_inode);
	unsigned int mode = BPF_CORE_READ(inode, i_mode) & KERNEL_S_IFMT;
	struct super_block___w *sb = (void *)BPF_CORE_READ(inode, i_sb);
	unsigned long magic = BPF_CORE_READ(sb, s_magic);
	*dev = BPF_CORE_READ(sb, s_dev);
	if (mode == WAIT_S_IFSOCK) {
		struct socket___w *sock = BPF_CORE_READ(f, private_data);
		unsigned short family = BPF_CORE_READ(sock, sk, __sk_common.skc_family);
		*kind = family == WAIT_AF_INET || family == WAIT_AF_INET6 ? WAIT_K_INET : WAIT_K_LOCAL_SOCKET;
	} else if (mode == WAIT_S_IFIFO) {
		*kind = WAIT_K_PIPE;
	} else if (magic == WAIT_FUSE_MAGIC) {
		*kind = WAIT_K_FUSE;
	} else if (magic == WAIT_NFS_MAGIC || magic == WAIT_CIFS_MAGIC || magic == WAIT_SMB2_MAGIC ||
		   magic == WAIT_V9FS_MAGIC || magic == WAIT_CEPH_MAGIC || magic == WAIT_AFS_MAGIC) {
		*kind = WAIT_K_REMOTE;
	} else if (mode == WAIT_S_IFCHR || !*dev) {
		*kind = WAIT_K_OTHER;
	} else {
		*kind = WAIT_K_FILE;
	}
}

/* The open file behind descriptor fd of t, or NULL. */
static __always_inline struct file___w *wait_fd_file(struct task_struct *t, unsigned long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **slots = BPF_CORE_READ(fdt, fd);
	struct file___w *f = 0;
	bpf_probe_read_kernel(&f, sizeof(f), &slots[fd]);
	return f;
}

/* What descriptor fd of t is: a kind, and its file system's device. */
static __always_inline void wait_fd_kind(struct task_struct *t, unsigned long fd, __u32 *kind, __u32 *dev)
{
	*kind = WAIT_LAYOUT_FD_NONE;
	*dev = 0;
	struct file___w *f = wait_fd_file(t, fd);
	if (f)
		wait_file_kind(f, kind, dev);
}

/* t's call as its pt_regs hold it while it is in the kernel (not for a
 * task running in user space), and its first argument's descriptor. */
static __always_inline void wait_call_of(struct task_struct *t, struct wait_layout_call *c)
{
	struct task_struct___w *w = (void *)t;
	c->fd_kind = WAIT_LAYOUT_FD_NONE;
	c->fd_dev = 0;
	if (BPF_CORE_READ(w, flags) & WAIT_PF_KTHREAD) {
		c->call = WAIT_LAYOUT_CALL_UNKNOWN;
		return;
	}
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs) {
		c->call = WAIT_LAYOUT_CALL_UNKNOWN;
		return;
	}
	long nr = (long)kernel_syscall_nr(regs);
	c->call = nr < 0 ? WAIT_LAYOUT_NO_CALL : nr;
#pragma unroll
	for (int i = 0; i < 6; i++)
		c->args[i] = kernel_syscall_arg(regs, i);
	if (nr >= 0)
		wait_fd_kind(t, c->args[0], &c->fd_kind, &c->fd_dev);
}

#endif
