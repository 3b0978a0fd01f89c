// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The filter program, run by the kernel: built with RET_ERRNO instead of
 * RET_TRACE, a listed syscall fails with errno data + its index, and every
 * other syscall, or another ABI's, runs untouched. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscall_io/seccomp_filter.h"
#include "testing.h"

/* In a child: installs the filter, then reports each check in its exit code. */
static int run_in_child(void)
{
	int nrs[] = {SYS_getppid, SYS_getuid, SYS_getgid};
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	int n = seccomp_filter_build(nrs, NULL, 3, SECCOMP_RET_ERRNO, 100, insns);
	if (n < 0 || seccomp_filter_install(insns, (size_t)n) < 0)
		return 10;
	errno = 0;
	if (syscall(SYS_getppid) != -1 || errno != 100)
		return 11;
	if (syscall(SYS_getuid) != -1 || errno != 101)
		return 12;
	if (syscall(SYS_getgid) != -1 || errno != 102)
		return 13;
	if (syscall(SYS_getpid) != getpid() || syscall(SYS_gettid) <= 0)
		return 14;
#ifdef X32_SYSCALL_BIT
	/* the x32 ABI's getuid is not ours: the kernel answers it (or says
	 * ENOSYS where x32 is off), never our errno */
	errno = 0;
	syscall(SYS_getuid | X32_SYSCALL_BIT);
	if (errno == 101)
		return 15;
#endif
	return 0;
}

/* valgrind has no seccomp(2): the filter cannot be tried under memcheck */
static void need_seccomp(void)
{
	if (getenv("IOPSAMPLE_MEMCHECK"))
		SKIP("valgrind does not implement seccomp(2)");
}

TEST(listed_syscalls_hit_their_return_others_pass)
{
	need_seccomp();
	pid_t pid = fork();
	if (pid == 0)
		_exit(run_in_child());
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(build_rejects_overflows)
{
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	int nrs[SECCOMP_FILTER_MAX_NRS + 1] = {0};
	EXPECT_EQ(seccomp_filter_build(nrs, NULL, SECCOMP_FILTER_MAX_NRS + 1, SECCOMP_RET_TRACE, 0, insns),
		  -EINVAL);
	EXPECT_EQ(seccomp_filter_build(nrs, NULL, 2, SECCOMP_RET_TRACE, 0xffff, insns), -EINVAL);
	EXPECT(seccomp_filter_build(nrs, NULL, SECCOMP_FILTER_MAX_NRS, SECCOMP_RET_TRACE, 0, insns) > 0);
}

TEST(ret_trace_is_available_here)
{
	need_seccomp();
	EXPECT_EQ(seccomp_filter_available(SECCOMP_RET_TRACE), 0);
}
