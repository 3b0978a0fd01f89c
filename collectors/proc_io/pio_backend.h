/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* proc_io's backends: two ways to read the same totals, the change of the
 * tree's /proc/PID/io sums since the last reading. proc_io.c (the
 * source's face: config, choice, rows) sees them only through this.
 *
 *   procfs  each process's /proc/PID/io, parents before children
 *           (pio_procfs.c, proc_io_tree.c): deployable anywhere /proc is;
 *   bpf     one walk of the kernel's task list by a BPF task iterator,
 *           summing in the kernel (pio_bpf.c, proc_io.bpf.c): root and
 *           Linux 5.8, an order of magnitude under the /proc floor. */
#ifndef IOPSAMPLE_PIO_BACKEND_H
#define IOPSAMPLE_PIO_BACKEND_H

#include <jansson.h>
#include <stdint.h>

#include "collector.h"
#include "common/ebpf/ebpf_preload.h"
#include "procfs.h"

enum pio_backend_choice { PIO_AUTO, PIO_PROCFS, PIO_BPF };

struct pio_backend;

/* sources.proc_io as configured (source_config.priv), and the backend the
 * probe settled on, for the sampler forked after it. */
struct pio_config {
	enum pio_backend_choice backend;
	const struct pio_backend *run;
	char run_reason[sizeof(((struct errbuf *)0)->msg) + 64]; /* why run, for the manifest */
	struct ebpf_preload preload; /* what run's probe loaded for the sampler */
};

struct pio_backend {
	const char *name;
	/* Can it read here? 0, or -errno with why; what it found into facts.
	 * It may keep in cfg->preload what open, in the sampler forked after
	 * it, takes over rather than do again. */
	int (*probe)(struct pio_config *cfg, json_t *facts, struct errbuf *why);
	/* In the sampler, on the waiting target (or, attached, the running
	 * tree): the baseline. What the manifest should say of how it reads
	 * goes to manifest. */
	int (*open)(const struct pio_config *cfg, const struct target_info *t, json_t *manifest,
		    void **state, struct errbuf *why);
	/* The change of the tree's totals since the last reading, never
	 * negative, and the tree's live processes (the keeper not included). */
	int (*measure)(void *state, uint64_t delta[IO_NFIELDS], unsigned *nprocs, struct errbuf *why);
	void (*close)(void *state);
};

extern const struct pio_backend pio_procfs;
extern const struct pio_backend pio_bpf;

#endif
