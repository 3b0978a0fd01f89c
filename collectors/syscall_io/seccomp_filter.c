// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Building and installing the filter. */
#define _GNU_SOURCE
#include "seccomp_filter.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int seccomp_filter_build(const int *nrs, const uint16_t *index, size_t n, uint32_t ret,
			 uint16_t data, struct sock_filter *insns)
{
	if (n > SECCOMP_FILTER_MAX_NRS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)data + (index ? index[i] : i) > SECCOMP_RET_DATA)
			return -EINVAL;
	size_t k = 0;
	/* The matches, each a compare and its return, end in one ALLOW that
	 * every miss reaches; jumps are counted from the next instruction. */
#ifdef X32_SYSCALL_BIT
	size_t head = 4;
#else
	size_t head = 3;
#endif
	size_t allow = head + 2 * n;
	insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, arch));
	insns[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_NATIVE_ARCH, 0,
						(uint8_t)(allow - k - 1));
	k++;
	insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, nr));
#ifdef X32_SYSCALL_BIT
	insns[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT,
						(uint8_t)(allow - k - 1), 0);
	k++;
#endif
	for (size_t i = 0; i < n; i++) {
		insns[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nrs[i], 0, 1);
		insns[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							  ret | (uint32_t)(data + (index ? index[i] : i)));
	}
	insns[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return (int)k;
}

int seccomp_filter_install(const struct sock_filter *insns, size_t ninsns)
{
	struct sock_fprog prog = {.len = (unsigned short)ninsns, .filter = (struct sock_filter *)insns};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0)
		return 0;
	if (errno != EACCES)
		return -errno;
	/* Unprivileged: the kernel insists the filter cannot be escaped by
	 * exec'ing something setuid. Under ptrace setuid is not honoured
	 * anyway, as with strace. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

int seccomp_filter_available(uint32_t ret)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &ret) < 0 ? -errno : 0;
}
