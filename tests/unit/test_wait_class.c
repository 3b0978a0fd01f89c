// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The rules that put a waiting thread in a class (wait_class.c), on what
 * each kernel of the matrix shows for its waits (the functions named as
 * /proc/TID/wchan prints them on 5.10, 6.1, 6.12 and 6.18, from their
 * sources; docs/data-model.md's waits). */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "common/wait_class.h"
#include "testing.h"

static enum wait_class classify(const char *fn, long call, unsigned kinds, char state)
{
	struct wait_obs o = {.state = state, .fn = fn, .call = call, .kinds = kinds,
			     .fds_known = call >= 0, .nfds = kinds ? 1 : 0};
	return wait_classify(&o);
}

TEST(a_futex_is_a_lock_whatever_the_kernel_calls_its_wait)
{
	const char *fns[] = {"futex_wait_queue_me", "futex_wait_queue", "futex_do_wait"}; /* 5.10, 6.1-6.12, 6.18 */
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(classify(fns[i], SYS_futex, 0, 'S'), WC_LOCK);
		EXPECT_EQ(classify(fns[i], WAIT_CALL_UNKNOWN, 0, 'S'), WC_LOCK); /* no syscall read */
	}
	EXPECT_EQ(classify("locks_lock_inode_wait", SYS_flock, WFD_BIT(WFD_FILE), 'S'), WC_LOCK);
	EXPECT_EQ(classify("fcntl_setlk", WAIT_CALL_UNKNOWN, 0, 'S'), WC_LOCK);
}

TEST(a_page_wait_is_the_files_system_s)
{
	/* a buffered read that misses the cache: the same function for every file */
	EXPECT_EQ(classify("folio_wait_bit_common", SYS_read, WFD_BIT(WFD_FILE), 'D'), WC_DISK);
	EXPECT_EQ(classify("wait_on_page_bit_common", SYS_read, WFD_BIT(WFD_FILE), 'D'), WC_DISK); /* 5.10 */
	EXPECT_EQ(classify("folio_wait_bit_common", SYS_read, WFD_BIT(WFD_REMOTE), 'D'), WC_REMOTE_FS);
	EXPECT_EQ(classify("folio_wait_bit_common", SYS_read, WFD_BIT(WFD_FUSE), 'D'), WC_FUSE);
	/* an O_DIRECT read, the journal, a full queue */
	EXPECT_EQ(classify("blk_io_schedule", SYS_pread64, WFD_BIT(WFD_FILE), 'D'), WC_DISK);
	EXPECT_EQ(classify("jbd2_log_wait_commit", SYS_fsync, WFD_BIT(WFD_FILE), 'D'), WC_DISK);
	EXPECT_EQ(classify("blk_mq_get_tag", WAIT_CALL_UNKNOWN, 0, 'D'), WC_DISK);
}

TEST(a_fault_waits_for_a_page_of_swap_unless_the_stack_says_a_mapped_file)
{
	EXPECT_EQ(classify("folio_wait_bit_common", WAIT_NO_CALL, 0, 'D'), WC_PAGING);
	struct wait_obs o = {.state = 'D', .fn = "folio_wait_bit_common", .call = WAIT_NO_CALL,
			     .stack = {"__folio_lock_or_retry", "filemap_fault", "__do_fault"}, .nstack = 3};
	EXPECT_EQ(wait_classify(&o), WC_DISK);
	struct wait_obs s = {.state = 'D', .fn = "folio_wait_bit_common", .call = WAIT_CALL_UNKNOWN,
			     .stack = {"__folio_lock_or_retry", "do_swap_page", "__handle_mm_fault"}, .nstack = 3};
	EXPECT_EQ(wait_classify(&s), WC_PAGING);
}

TEST(reclaim_and_memory_high_are_paging)
{
	struct wait_obs o = {.state = 'D', .flags = 0x800, .fn = "folio_wait_bit_common", .call = SYS_read,
			     .kinds = WFD_BIT(WFD_FILE), .fds_known = true};
	EXPECT_EQ(wait_classify(&o), WC_PAGING); /* PF_MEMALLOC: reclaiming for its allocation */
	EXPECT_EQ(classify("mem_cgroup_handle_over_high", SYS_write, WFD_BIT(WFD_FILE), 'D'), WC_PAGING);
	EXPECT_EQ(classify("__mem_cgroup_handle_over_high", WAIT_NO_CALL, 0, 'D'), WC_PAGING); /* 6.18 */
	EXPECT_EQ(classify("reclaim_throttle", WAIT_NO_CALL, 0, 'D'), WC_PAGING);
}

TEST(a_fuse_request_is_its_daemons_unless_the_daemon_is_the_trees)
{
	EXPECT_EQ(classify("request_wait_answer", SYS_read, WFD_BIT(WFD_FUSE), 'S'), WC_FUSE);
	struct wait_obs o = {.state = 'S', .fn = "request_wait_answer", .call = SYS_read,
			     .kinds = WFD_BIT(WFD_FUSE), .fds_known = true, .nfds = 1, .daemon_in_tree = true};
	EXPECT_EQ(wait_classify(&o), WC_IPC);
	o.fn = "folio_wait_bit_common";
	EXPECT_EQ(wait_classify(&o), WC_IPC);
	/* the daemon waiting for requests serves the tree's own */
	EXPECT_EQ(classify("fuse_dev_do_read", SYS_read, WFD_BIT(WFD_OTHER), 'S'), WC_IPC);
}

TEST(an_rpc_of_a_network_file_system)
{
	EXPECT_EQ(classify("rpc_wait_bit_killable", SYS_openat, 0, 'D'), WC_REMOTE_FS);
	EXPECT_EQ(classify("nfs_direct_wait", SYS_pread64, WFD_BIT(WFD_REMOTE), 'D'), WC_REMOTE_FS);
	EXPECT_EQ(classify("netfs_wait_for_read", WAIT_CALL_UNKNOWN, 0, 'D'), WC_REMOTE_FS);
}

TEST(a_socket_is_the_network_or_another_process_by_its_family)
{
	EXPECT_EQ(classify("wait_woken", SYS_recvfrom, WFD_BIT(WFD_INET), 'S'), WC_NETWORK);
	EXPECT_EQ(classify("wait_woken", SYS_read, WFD_BIT(WFD_LOCAL_SOCKET), 'S'), WC_IPC);
	EXPECT_EQ(classify("wait_woken", SYS_read, WFD_BIT(WFD_OTHER), 'S'), WC_OTHER); /* a terminal */
	EXPECT_EQ(classify("inet_csk_accept", SYS_accept4, WFD_BIT(WFD_INET), 'S'), WC_NETWORK);
	EXPECT_EQ(classify("unix_stream_read_generic", SYS_recvmsg, WFD_BIT(WFD_LOCAL_SOCKET), 'S'), WC_IPC);
	EXPECT_EQ(classify("wait_woken", WAIT_CALL_UNKNOWN, 0, 'S'), WC_OTHER);
}

TEST(a_poll_waits_on_its_set)
{
	/* a socket beside a pipe: the network's; a pipe alone: another process's */
	EXPECT_EQ(classify("poll_schedule_timeout.constprop.0", SYS_poll, WFD_BIT(WFD_INET) | WFD_BIT(WFD_PIPE), 'S'),
		  WC_NETWORK);
	EXPECT_EQ(classify("do_epoll_wait", SYS_epoll_wait, WFD_BIT(WFD_PIPE), 'S'), WC_IPC);
	EXPECT_EQ(classify("ep_poll", SYS_epoll_wait, WFD_BIT(WFD_OTHER), 'S'), WC_OTHER); /* timerfd, eventfd */
	struct wait_obs none = {.state = 'S', .fn = "poll_schedule_timeout", .call = SYS_poll, .fds_known = true};
	EXPECT_EQ(wait_classify(&none), WC_SLEEP); /* poll(NULL, 0, t): a sleep */
}

TEST(a_child_a_sleep_a_pipe)
{
	EXPECT_EQ(classify("do_wait", SYS_wait4, 0, 'S'), WC_CHILD);
	EXPECT_EQ(classify("kernel_clone", WAIT_CALL_UNKNOWN, 0, 'D'), WC_CHILD); /* a vfork's parent, 6.18 */
	EXPECT_EQ(classify("hrtimer_nanosleep", SYS_clock_nanosleep, 0, 'S'), WC_SLEEP);
	EXPECT_EQ(classify("sigsuspend.isra.0", WAIT_CALL_UNKNOWN, 0, 'S'), WC_SLEEP);
	EXPECT_EQ(classify("pipe_read", SYS_read, WFD_BIT(WFD_PIPE), 'S'), WC_IPC);
	EXPECT_EQ(classify("anon_pipe_read", WAIT_CALL_UNKNOWN, 0, 'S'), WC_IPC); /* 6.16+ */
	EXPECT_EQ(classify("wait_for_partner", SYS_openat, 0, 'S'), WC_IPC);
	EXPECT_EQ(classify("do_msgrcv", SYS_msgrcv, 0, 'S'), WC_IPC);
	EXPECT_EQ(classify("some_driver_wait", WAIT_CALL_UNKNOWN, 0, 'D'), WC_OTHER);
	EXPECT_EQ(classify(NULL, WAIT_CALL_UNKNOWN, 0, 'S'), WC_OTHER);
}

TEST(the_scheduler_s_own_functions_are_skipped_in_a_stack)
{
	EXPECT(wait_fn_is_scheduler("__schedule"));
	EXPECT(wait_fn_is_scheduler("schedule_timeout_killable"));
	EXPECT(wait_fn_is_scheduler("io_schedule"));
	EXPECT(wait_fn_is_scheduler("out_of_line_wait_on_bit"));
	EXPECT(wait_fn_is_scheduler("rwsem_down_write_slowpath.constprop.0"));
	EXPECT(!wait_fn_is_scheduler("folio_wait_bit_common"));
	EXPECT(!wait_fn_is_scheduler("scheduler_tick"));
}

TEST(which_argument_names_the_descriptor)
{
	int fd;
	enum wait_set set;
	EXPECT(wait_call_fd(SYS_read, &fd, &set) && fd == 0 && set == WAIT_SET_NONE);
#ifdef SYS_sendfile
	EXPECT(wait_call_fd(SYS_sendfile, &fd, &set) && fd == 1); /* out, in: the file read is the in */
#endif
	EXPECT(wait_call_fd(SYS_ppoll, &fd, &set) && set == WAIT_SET_POLL);
	EXPECT(wait_call_fd(SYS_pselect6, &fd, &set) && set == WAIT_SET_SELECT);
	EXPECT(wait_call_fd(SYS_epoll_pwait, &fd, &set) && set == WAIT_SET_EPOLL);
	EXPECT(!wait_call_fd(SYS_nanosleep, &fd, &set));
}
