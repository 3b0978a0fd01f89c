// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io: /proc/PID/io counters summed over the target's whole process
 * tree, each byte counted once.
 *
 * This file is the source's face: its config key (backend), which backend
 * reads (pio_backend.h: procfs or bpf, `auto` settled by the probe), and
 * the row. The rows are the same whichever backend read them; the manifest
 * says which did, and why. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pio_backend.h"

static const char *const choice_names[] = {[PIO_AUTO] = "auto", [PIO_PROCFS] = "procfs", [PIO_BPF] = "bpf"};

struct proc_io {
	const struct pio_backend *backend;
	void *reader; /* the backend's state */
	unsigned present; /* fields this kernel reports */
	json_t *field[IO_NFIELDS];
	json_t *nprocs;
};

/* ---- config -------------------------------------------------------------- */

static void pio_init(void *priv)
{
	struct pio_config *cfg = priv;
	cfg->backend = PIO_AUTO;
}

static int pio_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *v)
{
	struct pio_config *cfg = priv;
	if (strcmp(key, "backend"))
		return -ENOENT;
	int i;
	int r = cfg_choice(c, v, "proc_io backend", choice_names, sizeof(choice_names) / sizeof(choice_names[0]), &i);
	if (r == 0)
		cfg->backend = (enum pio_backend_choice)i;
	return r;
}

static void pio_describe(const void *priv, json_t *out)
{
	const struct pio_config *cfg = priv;
	json_object_set_new(out, "backend", json_string(choice_names[cfg->backend]));
}

/* ---- choosing the backend ------------------------------------------------ */

/* Probes one backend; its facts ("works", "error", what it found) go into
 * manifest under its name. */
static int probe_one(struct pio_config *cfg, const struct pio_backend *b, json_t *manifest,
		     struct errbuf *why)
{
	json_t *facts = json_object();
	int r = b->probe(cfg, facts, why);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(why->msg));
	json_object_set_new(manifest, b->name, facts);
	return r;
}

/* Settles cfg->run before the sampler is forked. auto prefers bpf, which
 * costs an order of magnitude less a tick, and says why when it takes
 * procfs; it probes both so that `iopsample probe` reports each. An
 * explicit backend is probed alone and is what runs, or the source cannot
 * run. */
static int pio_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
		     struct errbuf *why)
{
	(void)t;
	struct pio_config *cfg = sc->priv;
	cfg->run = NULL;
	int r;
	if (cfg->backend == PIO_AUTO) {
		struct errbuf no_bpf, no_procfs;
		int b = probe_one(cfg, &pio_bpf, manifest, &no_bpf);
		int p = probe_one(cfg, &pio_procfs, manifest, &no_procfs);
		if (b == 0) {
			cfg->run = &pio_bpf;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "auto: the BPF task iterator loads here");
		} else if (p == 0) {
			cfg->run = &pio_procfs;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "auto: bpf unavailable: %s", no_bpf.msg);
		}
		r = cfg->run ? 0 : errbuf_set(why, -p, "%s", no_procfs.msg);
	} else {
		const struct pio_backend *b = cfg->backend == PIO_BPF ? &pio_bpf : &pio_procfs;
		if ((r = probe_one(cfg, b, manifest, why)) == 0) {
			cfg->run = b;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "set in the config");
		} else if (b == &pio_bpf) {
			char detail[sizeof(why->msg)];
			snprintf(detail, sizeof(detail), "%s", why->msg);
			errbuf_set(why, -r, "backend bpf: %s", detail);
		}
	}
	json_object_set_new(manifest, "backend", cfg->run ? json_string(cfg->run->name) : json_null());
	json_object_set_new(manifest, "backend_reason",
			    cfg->run ? json_string(cfg->run_reason) : json_null());
	return r;
}

/* ---- the rows ------------------------------------------------------------ */

static void pio_close(void *state)
{
	struct proc_io *p = state;
	if (!p)
		return;
	if (p->reader)
		p->backend->close(p->reader);
	free(p);
}

static int pio_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why)
{
	const struct pio_config *cfg = sc->priv;
	pid_t root = t->keeper ? t->keeper : t->pid;
	struct proc_io_counters io;
	int r = procfs_read_io(root, &io);
	if (r < 0)
		return errbuf_set(why, r, "/proc/%d/io: %s", (int)root, strerror(-r));

	struct proc_io *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->backend = cfg->run;
	p->present = io.present;
	json_object_set_new(manifest, "backend", json_string(cfg->run->name));
	json_object_set_new(manifest, "backend_reason", json_string(cfg->run_reason));
	if ((r = p->backend->open(cfg, t, manifest, &p->reader, why)) < 0) {
		p->reader = NULL;
		pio_close(p);
		return r;
	}

	/* A counter this kernel does not keep is null in every row, never 0. */
	for (int f = 0; f < IO_NFIELDS; f++) {
		p->field[f] = (p->present & (1u << f)) ? json_integer(0) : json_null();
		json_object_set_new(row, procfs_io_names[f], p->field[f]);
	}
	p->nprocs = json_integer(0);
	json_object_set_new(row, "nprocs", p->nprocs);
	*state = p;
	return 0;
}

static int pio_sample(void *state, struct errbuf *why)
{
	struct proc_io *p = state;
	uint64_t delta[IO_NFIELDS];
	unsigned nprocs;
	int r = p->backend->measure(p->reader, delta, &nprocs, why);
	if (r < 0)
		return r;
	for (int f = 0; f < IO_NFIELDS; f++)
		if (p->present & (1u << f))
			json_integer_set(p->field[f], (json_int_t)delta[f]);
	json_integer_set(p->nprocs, nprocs);
	return 0;
}

/* What the probe loaded, for a sampler forked with a copy of its own, or
 * never. */
static void pio_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct pio_config *)sc->priv)->preload);
}

static size_t pio_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct pio_config *)sc->priv)->preload, fds, max);
}

const struct collector_ops proc_io_ops = {
	.name = "proc_io",
	.available_in_deployment = true,
	.priv_size = sizeof(struct pio_config),
	.init = pio_init,
	.parse_key = pio_parse_key,
	.describe = pio_describe,
	.probe = pio_probe,
	.release = pio_release,
	.inherited = pio_inherited,
	.open = pio_open,
	.sample = pio_sample,
	.close = pio_close,
};
