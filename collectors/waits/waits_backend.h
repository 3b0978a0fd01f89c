/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* waits' backends: two ways to take the same sample, each thread of the
 * tree, its scheduler counts and where it waits, fed to wait_account.h.
 * waits.c (the source's face: config, choice, rows) sees them only
 * through this.
 *
 *   procfs  each thread's /proc/TID/task/TID/stat and schedstat, and for a
 *           thread that waits somewhere new its wchan, syscall and
 *           descriptors (waits_procfs.c): deployable anywhere /proc is;
 *   bpf     one walk of the kernel's task list by a BPF task iterator,
 *           which reads the same from each task_struct and its kernel
 *           stack (waits_bpf.c, waits.bpf.c): root and Linux 5.15. */
#ifndef IOPSAMPLE_WAITS_BACKEND_H
#define IOPSAMPLE_WAITS_BACKEND_H

#include <jansson.h>

#include "collector.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/wait_fds.h"
#include "wait_account.h"

enum waits_backend_choice { WAITS_AUTO, WAITS_PROCFS, WAITS_BPF };

struct waits_backend;

/* sources.waits as configured (source_config.priv), and the backend the
 * probe settled on, for the sampler forked after it. */
struct waits_config {
	enum waits_backend_choice backend;
	const struct waits_backend *run;
	char run_reason[sizeof(((struct errbuf *)0)->msg) + 64];
	struct ebpf_preload preload;
};

/* What both backends fill each tick, the face's. */
struct waits_tick {
	struct wait_account acct;
	struct wait_fds fds;
};

struct waits_backend {
	const char *name;
	int (*probe)(struct waits_config *cfg, json_t *facts, struct errbuf *why);
	/* In the sampler, on the waiting target: the baseline tick. */
	int (*open)(const struct waits_config *cfg, const struct target_info *t, struct waits_tick *tk,
		    json_t *manifest, void **state, struct errbuf *why);
	/* A tick: tk->acct from wait_account_begin to wait_account_end. */
	int (*measure)(void *state, struct errbuf *why);
	void (*close)(void *state);
};

extern const struct waits_backend waits_procfs;
extern const struct waits_backend waits_bpf;

#endif
