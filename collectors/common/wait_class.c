// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* wait_class.h: the rules. Every kernel function a rule names is here,
 * with the kernels it is in and why it is where it is; the functions are
 * what /proc/TID/wchan prints, the first frame outside the scheduler's
 * text (get_wchan() skips __sched functions: schedule(), io_schedule(),
 * schedule_timeout(), the mutex, rwsem and bit-wait slow paths), and the
 * frames below it where a stack was read. */
#define _GNU_SOURCE
#include "common/wait_class.h"

#include <string.h>
#include <sys/syscall.h>

const char *const wait_class_field[WC_NCLASSES] = {
	[WC_RUNNING] = "running_ns",     [WC_RUNNABLE] = "runnable_ns", [WC_DISK] = "disk_ns",
	[WC_PAGING] = "paging_ns",       [WC_NETWORK] = "network_ns",   [WC_REMOTE_FS] = "remote_fs_ns",
	[WC_FUSE] = "fuse_ns",           [WC_LOCK] = "lock_ns",         [WC_IPC] = "ipc_ns",
	[WC_CHILD] = "child_ns",         [WC_SLEEP] = "sleep_ns",       [WC_OTHER] = "other_ns",
};

const char *const wait_class_words[WC_NCLASSES] = {
	[WC_RUNNING] = "running",           [WC_RUNNABLE] = "waiting for a CPU",
	[WC_DISK] = "on the disk",          [WC_PAGING] = "paging",
	[WC_NETWORK] = "on the network",    [WC_REMOTE_FS] = "on a network file system",
	[WC_FUSE] = "on a FUSE daemon",     [WC_LOCK] = "on a lock",
	[WC_IPC] = "on another process",    [WC_CHILD] = "on a child",
	[WC_SLEEP] = "asleep",              [WC_OTHER] = "elsewhere",
};

/* include/linux/sched.h: the task is reclaiming or compacting memory for
 * an allocation of its own (memalloc_noreclaim_save() in
 * __perform_reclaim() and __alloc_pages_direct_compact()). */
#define PF_MEMALLOC 0x00000800u

/* What a function says of the wait, on its own or with the call's
 * descriptors. */
enum fn_says {
	FN_NONE,
	FN_PAGING,  /* paging whatever the call */
	FN_FUSE,    /* a FUSE request */
	FN_REMOTE,  /* a network file system's RPC */
	FN_PAGE,    /* a page, buffer or bio of a file: the file's system decides, a fault is paging */
	FN_FILE_FAULT, /* a fault on a mapped file (below a page wait): disk */
	FN_SOCKET,  /* a socket's wait: the socket's family decides */
	FN_POLL,    /* a poll, select or epoll: its descriptors decide */
	FN_LOCK,
	FN_IPC,
	FN_CHILD,
	FN_SLEEP,
};

struct fn_rule {
	const char *name;
	enum fn_says says;
};

/* Kernel versions: 5.10, 6.1, 6.12 and 6.18, Debian's and the matrix's. */
static const struct fn_rule fn_rules[] = {
	/* paging: the memory cgroup's penalty over memory.high (5.10-6.18:
	 * mem_cgroup_handle_over_high sleeps in schedule_timeout_killable),
	 * reclaim's throttles, a swap-in */
	{"mem_cgroup_handle_over_high", FN_PAGING},
	{"__mem_cgroup_handle_over_high", FN_PAGING}, /* 6.18 */
	{"throttle_direct_reclaim", FN_PAGING},
	{"reclaim_throttle", FN_PAGING},     /* 5.16+ */
	{"congestion_wait", FN_PAGING},      /* 5.10: reclaim waiting on writeback */
	{"do_swap_page", FN_PAGING},
	{"swap_readpage", FN_PAGING},        /* 5.10-6.5 */
	{"swap_read_folio", FN_PAGING},      /* 6.6+ */
	{"swapin_readahead", FN_PAGING},
	{"swap_cluster_readahead", FN_PAGING},
	{"__read_swap_cache_async", FN_PAGING},
	{"__lock_page_or_retry", FN_PAGE},   /* 5.10: a fault's page lock */
	{"__folio_lock_or_retry", FN_PAGE},  /* 6.1+ */
	{"filemap_fault", FN_FILE_FAULT},
	/* FUSE: fs/fuse/dev.c's request_wait_answer (5.10-6.18), and the
	 * waits for a request slot or the daemon's writeback */
	{"request_wait_answer", FN_FUSE},
	{"fuse_get_req", FN_FUSE},
	{"fuse_wait_on_page_writeback", FN_FUSE},
	{"fuse_wait_on_folio_writeback", FN_FUSE},
	{"fuse_simple_request", FN_FUSE},
	/* ... and its daemon, waiting for the next request: a server waits
	 * on its clients */
	{"fuse_dev_do_read", FN_IPC},
	/* network file systems: SUNRPC (NFS), 9p, SMB, Ceph */
	{"rpc_wait_bit_killable", FN_REMOTE},
	{"__rpc_execute", FN_REMOTE},
	{"rpc_wait_for_completion_task", FN_REMOTE},
	{"nfs_wait_bit_killable", FN_REMOTE},
	{"nfs_direct_wait", FN_REMOTE},
	{"nfs_wait_on_request", FN_REMOTE},
	{"nfs4_wait_clnt_recover", FN_REMOTE},
	{"nfs_wait_client_init_complete", FN_REMOTE},
	{"p9_client_rpc", FN_REMOTE},
	{"p9_client_zc_rpc", FN_REMOTE},
	{"wait_for_response", FN_REMOTE},   /* cifs/smb */
	{"cifs_call_async", FN_REMOTE},
	{"compound_send_recv", FN_REMOTE},
	{"ceph_mdsc_do_request", FN_REMOTE},
	{"ceph_osdc_wait_request", FN_REMOTE},
	{"wait_request_timeout", FN_REMOTE},
	{"ceph_mdsc_wait_request", FN_REMOTE},
	{"wait_for_free_credits", FN_REMOTE}, /* smb's credits */
	{"p9_virtio_request", FN_REMOTE},
	/* netfs (6.x: cifs, 9p, ceph, afs read through it) */
	{"netfs_wait_for_read", FN_REMOTE},
	{"netfs_wait_for_write", FN_REMOTE},
	{"netfs_wait_for_in_progress", FN_REMOTE},
	/* a page, buffer or bio: block I/O of a local file system, or a page
	 * of a FUSE or network file, or under a fault a swap-in or a mapped
	 * file's page */
	{"folio_wait_bit_common", FN_PAGE},  /* 5.16+ */
	{"wait_on_page_bit_common", FN_PAGE}, /* 5.10-5.15 */
	{"__folio_lock", FN_PAGE},
	{"__lock_page", FN_PAGE},
	{"__lock_page_killable", FN_PAGE},
	{"__folio_lock_killable", FN_PAGE},
	{"folio_wait_writeback", FN_PAGE},
	{"wait_on_page_writeback", FN_PAGE},
	{"folio_wait_stable", FN_PAGE},
	{"__wait_on_buffer", FN_PAGE},
	{"__lock_buffer", FN_PAGE},
	{"out_of_line_wait_on_bit", FN_PAGE},
	{"__wait_on_bit", FN_PAGE},
	{"submit_bio_wait", FN_PAGE},
	{"blk_io_schedule", FN_PAGE},        /* an O_DIRECT read's bio: iomap, blkdev */
	{"__blkdev_direct_IO_simple", FN_PAGE},
	{"__blkdev_direct_IO", FN_PAGE},
	{"blkdev_direct_IO", FN_PAGE},
	{"__iomap_dio_rw", FN_PAGE},
	{"iomap_dio_rw", FN_PAGE},
	{"blk_mq_get_tag", FN_PAGE},         /* the device's queue full */
	{"balance_dirty_pages", FN_PAGE},    /* writeback's throttle */
	{"wb_wait_for_completion", FN_PAGE},
	{"jbd2_log_wait_commit", FN_PAGE},   /* ext4's journal */
	{"wait_transaction_locked", FN_PAGE},
	{"wait_transaction_switching", FN_PAGE},
	{"jbd2_journal_wait_updates", FN_PAGE},
	{"start_this_handle", FN_PAGE},
	{"rq_qos_wait", FN_PAGE},            /* writeback throttling (wbt) */
	{"jbd2_journal_commit_transaction", FN_PAGE},
	{"add_transaction_credits", FN_PAGE},
	{"__jbd2_log_wait_for_space", FN_PAGE},
	{"io_schedule", FN_PAGE},
	/* sockets: the socket decides (tcp's sk_wait_data and n_tty's read
	 * both end in wait_woken) */
	{"wait_woken", FN_SOCKET},
	{"sk_wait_data", FN_SOCKET},
	{"sk_stream_wait_memory", FN_SOCKET},
	{"sk_stream_wait_connect", FN_SOCKET},
	{"inet_csk_accept", FN_SOCKET},       /* inet_csk_wait_for_connect inlined (6.18) */
	{"inet_csk_wait_for_connect", FN_SOCKET},
	{"__lock_sock", FN_SOCKET},
	{"sock_alloc_send_pskb", FN_SOCKET},  /* a full send buffer (sock_wait_for_wmem inlined) */
	{"inet_wait_for_connect", FN_SOCKET},
	{"__skb_wait_for_more_packets", FN_SOCKET},
	{"__skb_recv_udp", FN_SOCKET},
	/* poll, select, epoll */
	{"poll_schedule_timeout", FN_POLL},
	{"poll_schedule_timeout.constprop.0", FN_POLL},
	{"do_select", FN_POLL},
	{"core_sys_select", FN_POLL},
	{"do_sys_poll", FN_POLL},
	{"ep_poll", FN_POLL},
	{"do_epoll_wait", FN_POLL},
	/* locks: futexes (futex_wait_queue_me 5.10-5.15, futex_wait_queue
	 * 5.16-6.x, futex_do_wait 6.17+), file locks */
	{"futex_wait_queue_me", FN_LOCK},
	{"futex_wait_queue", FN_LOCK},
	{"futex_do_wait", FN_LOCK},
	{"futex_wait", FN_LOCK},
	{"__futex_wait", FN_LOCK},
	{"futex_lock_pi", FN_LOCK},
	{"futex_wait_multiple", FN_LOCK},
	{"futex_sleep_multiple", FN_LOCK},
	{"rt_mutex_wait_proxy_lock", FN_LOCK}, /* 5.10's PI futex */
	{"rt_mutex_schedule", FN_LOCK},       /* 6.12+ */
	{"rt_mutex_slowlock", FN_LOCK},
	{"locks_lock_inode_wait", FN_LOCK},
	{"flock_lock_inode_wait", FN_LOCK},
	{"posix_lock_inode_wait", FN_LOCK},
	{"fcntl_setlk", FN_LOCK},
	{"do_lock_file_wait", FN_LOCK},
	{"locks_lock_file_wait", FN_LOCK},
	/* another process: pipes, local sockets, message queues, semaphores */
	{"pipe_read", FN_IPC},
	{"anon_pipe_read", FN_IPC},           /* 6.16+ */
	{"anon_pipe_write", FN_IPC},
	{"fifo_pipe_read", FN_IPC},
	{"pipe_write", FN_IPC},
	{"pipe_wait", FN_IPC},            /* 5.10 */
	{"pipe_wait_readable", FN_IPC},
	{"pipe_wait_writable", FN_IPC},
	{"wait_for_partner", FN_IPC},     /* a FIFO's open */
	{"unix_stream_read_generic", FN_IPC},
	{"unix_stream_data_wait", FN_IPC},
	{"unix_wait_for_peer", FN_IPC},
	{"unix_dgram_recvmsg", FN_IPC},
	{"do_msgrcv", FN_IPC},
	{"do_msgsnd", FN_IPC},
	{"wq_sleep", FN_IPC},             /* POSIX message queues */
	{"do_semtimedop", FN_IPC},
	/* a child */
	{"do_wait", FN_CHILD},
	{"kernel_wait4", FN_CHILD},
	{"kernel_waitid", FN_CHILD},
	{"wait_for_vfork_done", FN_CHILD},
	{"kernel_clone", FN_CHILD},           /* a vfork's parent (wait_for_vfork_done inlined, 6.18) */
	/* a sleep, a timer */
	{"do_nanosleep", FN_SLEEP},
	{"hrtimer_nanosleep", FN_SLEEP},
	{"common_nsleep", FN_SLEEP},
	{"do_cpu_nanosleep", FN_SLEEP},
	{"sigsuspend", FN_SLEEP},
	{"__x64_sys_pause", FN_SLEEP},
	{"__do_sys_pause", FN_SLEEP},
	{"do_sigtimedwait", FN_SLEEP},
	{"timerfd_read", FN_SLEEP},
	{"timerfd_read_iter", FN_SLEEP},
};

/* What get_wchan() skips, named (the scheduler's and the sleeping locks'
 * __sched functions): a stack read as text (/proc/TID/stack, where wchan
 * says 0: 5.10's frame-pointer walk fails under the ORC unwinder) is read
 * from the first frame that is none of these. */
static const char *const scheduler_fns[] = {
	"__schedule", "schedule", "schedule_timeout", "schedule_timeout_interruptible",
	"schedule_timeout_killable", "schedule_timeout_uninterruptible", "schedule_timeout_idle",
	"schedule_hrtimeout", "schedule_hrtimeout_range", "schedule_hrtimeout_range_clock",
	"schedule_preempt_disabled", "preempt_schedule", "preempt_schedule_common", "io_schedule",
	"io_schedule_timeout", "__wait_on_bit", "__wait_on_bit_lock", "out_of_line_wait_on_bit",
	"out_of_line_wait_on_bit_lock", "out_of_line_wait_on_bit_timeout", "bit_wait", "bit_wait_io",
	"bit_wait_timeout", "wait_for_completion", "wait_for_completion_io",
	"wait_for_completion_killable", "wait_for_completion_interruptible",
	"wait_for_completion_timeout", "wait_for_completion_state", "__wait_for_common",
	"wait_for_common", "wait_for_common_io", "do_nanosleep", "__mutex_lock", "mutex_lock",
	"__mutex_lock_slowpath", "mutex_lock_interruptible", "mutex_lock_killable", "__down",
	"__down_common", "__down_interruptible", "__down_killable", "__down_timeout", "down",
	"rwsem_down_read_slowpath", "rwsem_down_write_slowpath", "__rt_mutex_slowlock",
	"rt_mutex_slowlock", "rt_mutex_slowlock_block", NULL,
};

bool wait_fn_is_scheduler(const char *fn)
{
	size_t len = strcspn(fn, ".");
	for (const char *const *s = scheduler_fns; *s; s++)
		if (strlen(*s) == len && !strncmp(fn, *s, len))
			return true;
	return false;
}

static enum fn_says fn_says(const char *fn)
{
	if (!fn || !*fn)
		return FN_NONE;
	for (size_t i = 0; i < sizeof(fn_rules) / sizeof(fn_rules[0]); i++)
		if (!strcmp(fn, fn_rules[i].name))
			return fn_rules[i].says;
	/* a compiler's clone of one: "poll_schedule_timeout.constprop.0" */
	size_t len = strcspn(fn, ".");
	if (fn[len])
		for (size_t i = 0; i < sizeof(fn_rules) / sizeof(fn_rules[0]); i++)
			if (strlen(fn_rules[i].name) == len && !strncmp(fn, fn_rules[i].name, len))
				return fn_rules[i].says;
	return FN_NONE;
}

/* Whether fn or a frame below it says s. */
static bool any_says(const struct wait_obs *o, enum fn_says s)
{
	if (fn_says(o->fn) == s)
		return true;
	for (size_t i = 0; i < o->nstack; i++)
		if (fn_says(o->stack[i]) == s)
			return true;
	return false;
}

/* The class of the call's descriptors, the network's first: a poll over a
 * socket and a pipe waits for whichever speaks, and the network is what
 * the tree cannot make faster. WC_NCLASSES when they say nothing. */
static enum wait_class by_kinds(const struct wait_obs *o)
{
	unsigned k = o->kinds;
	if (k & WFD_BIT(WFD_FUSE))
		return o->daemon_in_tree ? WC_IPC : WC_FUSE;
	if (k & WFD_BIT(WFD_REMOTE))
		return WC_REMOTE_FS;
	if (k & WFD_BIT(WFD_INET))
		return WC_NETWORK;
	if (k & (WFD_BIT(WFD_PIPE) | WFD_BIT(WFD_LOCAL_SOCKET)))
		return WC_IPC;
	return WC_NCLASSES;
}

/* The call's own class, its descriptors aside. */
static enum wait_class by_call(long call)
{
	switch (call) {
#ifdef SYS_futex
	case SYS_futex:
#endif
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
#ifdef SYS_futex_wait
	case SYS_futex_wait:
#endif
	case SYS_flock:
		return WC_LOCK;
	case SYS_wait4:
	case SYS_waitid:
		return WC_CHILD;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
#ifdef SYS_pause
	case SYS_pause:
#endif
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
		return WC_SLEEP;
	case SYS_msgrcv:
	case SYS_msgsnd:
	case SYS_semop:
	case SYS_semtimedop:
	case SYS_mq_timedreceive:
	case SYS_mq_timedsend:
		return WC_IPC;
	default:
		return WC_NCLASSES;
	}
}

enum wait_class wait_classify(const struct wait_obs *o)
{
	if (o->flags & PF_MEMALLOC)
		return WC_PAGING;
	if (any_says(o, FN_PAGING))
		return WC_PAGING;
	enum wait_class kinds = o->call >= 0 && o->fds_known ? by_kinds(o) : WC_NCLASSES;
	if (any_says(o, FN_FUSE))
		return o->daemon_in_tree ? WC_IPC : WC_FUSE;
	if (any_says(o, FN_REMOTE))
		return WC_REMOTE_FS;
	enum fn_says says = fn_says(o->fn);
	if (says == FN_PAGE) {
		/* a page of a FUSE or network file is its server's */
		if (kinds == WC_FUSE || kinds == WC_REMOTE_FS || (kinds == WC_IPC && o->daemon_in_tree))
			return kinds;
		/* under a fault: a swap-in, unless the stack shows a mapped file */
		if (o->call == WAIT_NO_CALL)
			return any_says(o, FN_FILE_FAULT) ? WC_DISK : WC_PAGING;
		return WC_DISK;
	}
	if (kinds != WC_NCLASSES)
		return kinds;
	enum wait_class call = by_call(o->call);
	if (call != WC_NCLASSES)
		return call;
	/* a poll of no descriptor only sleeps */
	if (o->call >= 0 && o->fds_known && o->nfds == 0 && says == FN_POLL)
		return WC_SLEEP;
	switch (says) {
	case FN_LOCK:
		return WC_LOCK;
	case FN_IPC:
		return WC_IPC;
	case FN_CHILD:
		return WC_CHILD;
	case FN_SLEEP:
		return WC_SLEEP;
	default:
		return WC_OTHER;
	}
}

bool wait_call_fd(long call, int *fd_arg, enum wait_set *set)
{
	*fd_arg = 0;
	*set = WAIT_SET_NONE;
	switch (call) {
#ifdef SYS_poll
	case SYS_poll:
#endif
	case SYS_ppoll:
		*set = WAIT_SET_POLL;
		return true;
#ifdef SYS_select
	case SYS_select:
#endif
	case SYS_pselect6:
		*set = WAIT_SET_SELECT;
		return true;
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		*set = WAIT_SET_EPOLL;
		return true;
	/* a descriptor first */
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendmmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_sync_file_range:
	case SYS_ftruncate:
	case SYS_fallocate:
	case SYS_ioctl:
	case SYS_fcntl:
	case SYS_flock:
	case SYS_getdents64:
	case SYS_fstat:
	case SYS_lseek:
	case SYS_splice:
	case SYS_tee:
	case SYS_copy_file_range:
		return true;
#ifdef SYS_sendfile
	case SYS_sendfile: /* out_fd, in_fd: the file read is the in */
		*fd_arg = 1;
		return true;
#endif
	default:
		return false;
	}
}
