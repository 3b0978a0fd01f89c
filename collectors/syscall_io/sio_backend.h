/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* syscall_io's backends: two ways to count the same syscalls into the same
 * totals. syscall_io.c (the source's face: config, choice, rows) sees them
 * only through this.
 *
 *   ebpf    programs on the kernel's syscall-exit tracepoint count in
 *           per-CPU slots; the target never stops (sio_ebpf.c);
 *   ptrace  a tracer thread, fed by a seccomp filter in the launched target
 *           (every syscall when attached), counts at each stop
 *           (sio_ptrace.c, tracer.c). */
#ifndef IOPSAMPLE_SIO_BACKEND_H
#define IOPSAMPLE_SIO_BACKEND_H

#include <jansson.h>
#include <stdbool.h>

#include "collector.h"
#include "common/ebpf/ebpf_preload.h"
#include "io_syscalls.h"
#include "sio_counts.h"

enum sio_backend_choice { SIO_AUTO, SIO_EBPF, SIO_PTRACE };

struct sio_backend;

/* sources.syscall_io as configured (source_config.priv), and the backend
 * the probe settled on before anything was forked, so the target's
 * before_exec and the sampler act on the same choice. */
struct sio_config {
	size_t n;
	const struct io_syscall *sys[SIO_MAX_SYSCALLS]; /* in the order given */
	enum sio_backend_choice backend;
	const struct sio_backend *run;
	char run_reason[sizeof(((struct errbuf *)0)->msg) + 64]; /* why run, for the manifest */
	struct ebpf_preload preload; /* what run's probe loaded for the sampler */
};

struct sio_backend {
	const char *name;
	/* The target dies with the sampler: a launched target's tracer. */
	bool holds_target;
	/* Can it count here? 0, or -errno with why; adds what it found to
	 * facts ("works" and "error" are the face's). It may keep in
	 * cfg->preload what open, in the sampler forked after it, takes
	 * over rather than do again. */
	int (*probe)(struct sio_config *cfg, json_t *facts, struct errbuf *why);
	/* Optional: in the launched target, right before exec. */
	int (*before_exec)(const struct sio_config *cfg);
	/* In the sampler, on the waiting target (or, attached, the running
	 * tree): counting starts here. */
	int (*open)(const struct sio_config *cfg, const struct target_info *t, void **state,
		    struct errbuf *why);
	/* Everything counted since open, each call wholly or not at all. */
	int (*snapshot)(void *state, struct sio_totals *out, struct errbuf *why);
	/* Why a configured family cannot be seen by this backend on this host
	 * (its by_syscall entry is null, the reason in the manifest's
	 * "unseen"), or NULL when it is counted. */
	const char *(*unseen)(const struct io_syscall *sys);
	/* Optional: what the manifest entry should say of the counting so far
	 * (the ebpf backend's slots_deferred), after each snapshot. */
	void (*report)(void *state, json_t *manifest);
	/* Optional: let go of the target before the last snapshot. */
	void (*finish)(void *state);
	void (*close)(void *state);
};

extern const struct sio_backend sio_ebpf;
extern const struct sio_backend sio_ptrace;

#endif
