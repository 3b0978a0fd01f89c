/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The seccomp-bpf program that sends only the counted syscalls to the tracer.
 *
 * Syscall i of the list returns ret | (data + its index); every other syscall, and
 * every syscall of another ABI (a 32-bit int 0x80, x32), is allowed at full
 * speed. syscall_io installs it with ret = SECCOMP_RET_TRACE, so the tracer
 * learns which counted syscall stopped from the event message alone. */
#ifndef IOPSAMPLE_SECCOMP_FILTER_H
#define IOPSAMPLE_SECCOMP_FILTER_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

/* The ABI whose syscall numbers the table in io_syscalls.c holds. */
#if defined(__x86_64__)
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_X86_64
#define X32_SYSCALL_BIT 0x40000000u /* same arch value, other ABI */
#elif defined(__aarch64__)
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "syscall_io: add this architecture's AUDIT_ARCH value"
#endif

#define SECCOMP_FILTER_MAX_NRS 80
#define SECCOMP_FILTER_MAX_INSNS (5 + 2 * SECCOMP_FILTER_MAX_NRS)

/* Fills insns (SECCOMP_FILTER_MAX_INSNS long) and returns the count, or
 * -EINVAL for too many syscalls or a data overflow. Syscall nrs[i] returns
 * ret | (data + index[i]), or data + i when index is NULL (several
 * syscalls may share an index). */
int seccomp_filter_build(const int *nrs, const uint16_t *index, size_t n, uint32_t ret,
			 uint16_t data, struct sock_filter *insns);
/* Installs the program in the calling thread; without CAP_SYS_ADMIN it sets
 * no_new_privs first, as the kernel requires. 0 or -errno. */
int seccomp_filter_install(const struct sock_filter *insns, size_t ninsns);
/* 0 when the kernel has seccomp filters with the action ret, or -errno. */
int seccomp_filter_available(uint32_t ret);

#endif
