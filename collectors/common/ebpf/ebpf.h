/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What every eBPF source does around its libbpf skeleton: check the host,
 * load and attach with reasons a user can act on, and keep libbpf's own
 * messages off the terminal.
 *
 * The kernel side of a source is collectors/<source>/<source>.bpf.c, which
 * includes ebpf/tree.bpf.h (the target's tree) and keeps its counters in
 * per-CPU slots (ebpf_slot.h); `bpftool gen skeleton` turns it into
 * build/gen/<source>.skel.h. Programs, links and maps live only as file
 * descriptors of the sampler process: nothing is pinned, so they are gone
 * when it exits, however it exits. */
#ifndef IOPSAMPLE_EBPF_H
#define IOPSAMPLE_EBPF_H

#include <sys/types.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "log.h"

/* Checks what a load needs beyond bpf() itself: kernel BTF (CO-RE
 * relocates against it) and iopsample in the host's pid namespace (the
 * programs see the kernel's pids, the tree is seeded with ours). Adds "btf"
 * and "host_pid_ns" to facts. 0 or -errno with why. */
int ebpf_host_check(json_t *facts, struct errbuf *why);

/* Whether the kernel gives programs the helper id, named name ("bpf_loop"),
 * which came in since ("Linux 5.17 or later"): adds name to facts. 0, or
 * -ENOTSUP with why (the kernel's release, what it lacks and the kernel it
 * needs) before a load that the verifier would refuse with a message no user
 * could read. */
int ebpf_need_helper(json_t *facts, const char *name, enum bpf_func_id id, const char *since,
		     struct errbuf *why);

/* libbpf's messages go to a buffer of this process instead of stderr; the
 * last warning is kept for ebpf_fail(). Idempotent. */
void ebpf_quiet_libbpf(void);

/* The reason a skeleton step failed (what: "loading", "attaching"), err a
 * negative errno from libbpf: "bpf() refused: Operation not permitted" when
 * the kernel said no to bpf() itself, else the errno and libbpf's last
 * warning. Returns err. */
int ebpf_fail(struct errbuf *why, int err, const char *what);

/* Whether why, from ebpf_fail(), is the kernel's refusal of bpf() itself
 * (EBPF_REFUSED), not of the programs. */
#define EBPF_REFUSED "bpf() refused"
bool ebpf_refused(const struct errbuf *why);

/* A load that failed with err and why on a kernel older than major.minor,
 * the oldest its programs are known to load on: why says so first, the
 * refusal after it. Returns err. */
int ebpf_older_than(struct errbuf *why, unsigned major, unsigned minor, int err);

/* The skeleton's load and attach, after the caller opened it and set what
 * it sets before load; a failure is said by ebpf_fail(). */
int ebpf_load(struct bpf_object_skeleton *skel, struct errbuf *why);
/* One run of the task iterator behind link_fd, what it wrote read whole into
 * *buf (grown as needed, from first bytes, kept by the caller between runs):
 * its length, or -errno. */
ssize_t ebpf_iter_read(int link_fd, char **buf, size_t *cap, size_t first);
int ebpf_attach(struct bpf_object_skeleton *skel, struct errbuf *why);

#endif
