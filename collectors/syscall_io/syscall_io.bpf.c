// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* syscall_io's eBPF backend, the kernel side: at every syscall exit of a
 * process in the target's tree, the counted read/write syscalls add their
 * result to the running CPU's slot. Nothing goes through a buffer: the
 * sampler reads the slots at each tick (sio_ebpf.c), so no event can be
 * lost however fast they come.
 *
 * The same rules as the ptrace tracer (sio_rules.h): a restart code is no
 * result, -4095..-1 is an error, sizes are bucketed by log2, and a syscall
 * of another ABI is not counted. */
#include "common/ebpf/kernel.bpf.h"
#include "common/ebpf/tree.bpf.h"
#include "syscall_io/sio_slot.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the sampler before load (read-only after it). */
const volatile __u8 sio_index[SIO_MAX_NR];      /* counted index of a syscall number */
const volatile __u8 sio_dir[SIO_MAX_SYSCALLS];  /* enum io_dir of a counted index */

EBPF_SLOTS_MAP(sio_slots, struct sio_slot);

SEC("tp_btf/sys_exit")
int BPF_PROG(iops_sio_exit, struct pt_regs *regs, long ret)
{
	/* cheapest test first: this runs at every syscall exit of the host */
	unsigned long nr = kernel_syscall_nr(regs);
	if (nr >= SIO_MAX_NR) /* -1 (not a syscall), x32 */
		return 0;
	__u32 i = sio_index[nr];
	if (i >= SIO_MAX_SYSCALLS || kernel_compat_syscall() || !tree_has_current() ||
	    sio_restarting(ret))
		return 0;
	struct sio_slot *s = EBPF_THIS_CPU_SLOT(&sio_slots);
	if (!s)
		return 0;

	EBPF_SLOT_ENTER(&s->seq);
	if (sio_is_error(ret)) {
		EBPF_SLOT_ADD(&s->errors[i], 1);
	} else {
		__u32 dir = sio_dir[i] & 1;
		EBPF_SLOT_ADD(&s->calls[i], 1);
		EBPF_SLOT_ADD(&s->bytes[i], (__u64)ret);
		EBPF_SLOT_ADD(&s->hist[dir][log2_bucket((__u64)ret) & (SIO_HIST_BUCKETS - 1)], 1);
	}
	EBPF_SLOT_LEAVE(&s->seq);
	return 0;
}
