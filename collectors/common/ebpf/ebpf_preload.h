/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a source's probe loaded, kept for its sampler.
 *
 * A load is most of an eBPF source's start: libbpf parses the kernel's BTF
 * (megabytes) to relocate, and the verifier runs. The probe loads first, in
 * the supervisor, so that a refusal is known before the episode exists; the
 * sampler, forked after it, takes over the probe's skeleton (its copy of
 * the memory is its own, the descriptors are inherited) rather than load a
 * second time. The descriptors are found as those open after the load and
 * not before (the supervisor is one thread); the sampler keeps them at
 * their numbers (collector_ops.inherited). A load that opened more than a
 * sampler may keep is not kept, and the sampler loads its own.
 *
 * What the programs must know of the target (the keeper's pid) is not
 * known at the probe: it lives in their writable data, set at open. */
#ifndef IOPSAMPLE_EBPF_PRELOAD_H
#define IOPSAMPLE_EBPF_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>

#define EBPF_PRELOAD_FDS_MAX 48

struct ebpf_preload {
	void *skel; /* NULL when nothing is kept */
	void (*destroy)(void *skel);
	int fds[EBPF_PRELOAD_FDS_MAX];
	size_t nfds;
};

/* The descriptors open before a load. */
struct ebpf_fd_mark {
	int n; /* < 0 when they could not be listed, or did not fit */
	int fds[256];
};

void ebpf_preload_mark(struct ebpf_fd_mark *before);

/* After a load that succeeded: keeps skel in p (letting go of what p held),
 * with the descriptors opened since before, or destroys it when they cannot
 * all be kept. Either way skel is p's. */
void ebpf_preload_keep(struct ebpf_preload *p, const struct ebpf_fd_mark *before, void *skel,
		       void (*destroy)(void *skel));

/* The descriptors the sampler must keep, into fds (at most max): how many,
 * or 0 when nothing is kept or they do not fit. */
size_t ebpf_preload_fds(const struct ebpf_preload *p, int *fds, size_t max);

/* Where no sampler took it (the supervisor at its end, `iopsample probe`). */
void ebpf_preload_release(struct ebpf_preload *p);

#endif
