// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waits: where each thread of the tree spends its time, sampled each tick
 * (wait_account.h says how): running, runnable, and waiting on the disk,
 * paging, the network, a network or FUSE file system, a lock, another
 * process (ipc), a child, a sleep, or elsewhere (wait_class.h). Deployable:
 * its procfs backend reads what /proc gives any user of their own
 * processes.
 *
 * This file is the source's face: its config key (backend), which backend
 * reads (waits_backend.h: procfs or bpf, `auto` settled by the probe), and
 * the row (common/wait_row.h, offcpu's too). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wait_row.h"
#include "waits_backend.h"

static const char *const choice_names[] = {[WAITS_AUTO] = "auto", [WAITS_PROCFS] = "procfs", [WAITS_BPF] = "bpf"};

/* The manifest's other_functions: the functions with most of other_ns. */
#define OTHER_LISTED 10

struct waits {
	const struct waits_backend *backend;
	void *reader;
	struct waits_tick tick;
	struct wait_row row;
	json_t *manifest;
};

static void waits_init(void *priv)
{
	((struct waits_config *)priv)->backend = WAITS_AUTO;
}

static int waits_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *v)
{
	struct waits_config *cfg = priv;
	if (strcmp(key, "backend"))
		return -ENOENT;
	int i;
	int r = cfg_choice(c, v, "waits backend", choice_names, sizeof(choice_names) / sizeof(choice_names[0]), &i);
	if (r == 0)
		cfg->backend = (enum waits_backend_choice)i;
	return r;
}

static void waits_describe(const void *priv, json_t *out)
{
	const struct waits_config *cfg = priv;
	json_object_set_new(out, "backend", json_string(choice_names[cfg->backend]));
}

static int probe_one(struct waits_config *cfg, const struct waits_backend *b, json_t *manifest,
		     struct errbuf *why)
{
	json_t *facts = json_object();
	int r = b->probe(cfg, facts, why);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(why->msg));
	json_object_set_new(manifest, b->name, facts);
	return r;
}

/* auto prefers bpf, which reads each thread without a file of /proc, and
 * says why when it takes procfs; an explicit backend is probed alone. */
static int waits_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
		       struct errbuf *why)
{
	(void)t;
	struct waits_config *cfg = sc->priv;
	cfg->run = NULL;
	int r;
	if (cfg->backend == WAITS_AUTO) {
		struct errbuf no_bpf, no_procfs;
		int b = probe_one(cfg, &waits_bpf, manifest, &no_bpf);
		int p = probe_one(cfg, &waits_procfs, manifest, &no_procfs);
		if (b == 0) {
			cfg->run = &waits_bpf;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "auto: the BPF task iterator loads here");
		} else if (p == 0) {
			cfg->run = &waits_procfs;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "auto: bpf unavailable: %s", no_bpf.msg);
		}
		r = cfg->run ? 0 : errbuf_set(why, -p, "%s", no_procfs.msg);
	} else {
		const struct waits_backend *b = cfg->backend == WAITS_BPF ? &waits_bpf : &waits_procfs;
		if ((r = probe_one(cfg, b, manifest, why)) == 0) {
			cfg->run = b;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "set in the config");
		} else {
			char detail[sizeof(why->msg)];
			snprintf(detail, sizeof(detail), "%s", why->msg);
			errbuf_set(why, -r, "backend %s: %s", b->name, detail);
		}
	}
	json_object_set_new(manifest, "backend", cfg->run ? json_string(cfg->run->name) : json_null());
	json_object_set_new(manifest, "backend_reason", cfg->run ? json_string(cfg->run_reason) : json_null());
	return r;
}

static int by_ns(const void *a, const void *b)
{
	uint64_t x = ((const struct wait_other *)a)->ns, y = ((const struct wait_other *)b)->ns;
	return x < y ? 1 : x > y ? -1 : strcmp(((const struct wait_other *)a)->fn, ((const struct wait_other *)b)->fn);
}

/* The manifest's other_functions: the kernel functions other_ns was found
 * in, most first, each with its share of other_ns ("" for none known). */
static void say_other(struct waits *w)
{
	struct wait_account *a = &w->tick.acct;
	qsort(a->other, a->nother, sizeof(*a->other), by_ns);
	json_t *list = json_object();
	uint64_t all = 0;
	for (size_t i = 0; i < a->nother; i++)
		all += a->other[i].ns;
	for (size_t i = 0; i < a->nother && i < OTHER_LISTED; i++)
		json_object_set_new(list, a->other[i].fn[0] ? a->other[i].fn : "(unknown)",
				    json_real(all ? (double)a->other[i].ns / (double)all : 0));
	json_object_set_new(w->manifest, "other_functions", list);
}

static void waits_close(void *state)
{
	struct waits *w = state;
	if (!w)
		return;
	if (w->manifest) {
		say_other(w);
		wait_row_mounts(&w->row, w->manifest, &w->tick.fds);
	}
	if (w->reader)
		w->backend->close(w->reader);
	wait_row_free(&w->row);
	wait_account_free(&w->tick.acct);
	wait_fds_free(&w->tick.fds);
	free(w);
}

static int waits_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		      json_t *manifest, void **state, struct errbuf *why)
{
	const struct waits_config *cfg = sc->priv;
	struct waits *w = calloc(1, sizeof(*w));
	if (!w)
		return errbuf_set(why, ENOMEM, "out of memory");
	w->backend = cfg->run;
	wait_account_init(&w->tick.acct);
	wait_fds_init(&w->tick.fds);
	json_object_set_new(manifest, "backend", json_string(cfg->run->name));
	json_object_set_new(manifest, "backend_reason", json_string(cfg->run_reason));
	json_object_set_new(manifest, "sampled",
			    json_string("running_ns and runnable_ns are each thread's scheduler counts "
					"(schedstat); the rest of its time is charged to where the tick finds "
					"it waiting, or, found running, where the last tick found it"));
	pid_t root = t->keeper ? t->keeper : t->pid;
	int r = wait_fds_load_mounts(&w->tick.fds, root);
	if (r < 0) {
		waits_close(w);
		return errbuf_set(why, -r, "/proc/%d/mountinfo: %s", (int)root, strerror(-r));
	}
	if ((r = w->backend->open(cfg, t, &w->tick, manifest, &w->reader, why)) < 0) {
		w->reader = NULL;
		waits_close(w);
		return r;
	}
	if (wait_row_open(&w->row, row, manifest, &w->tick.fds) < 0) {
		waits_close(w);
		return errbuf_set(why, ENOMEM, "out of memory");
	}
	w->manifest = manifest;
	*state = w;
	return 0;
}

static int waits_sample(void *state, struct errbuf *why)
{
	struct waits *w = state;
	int r = w->backend->measure(w->reader, why);
	if (r < 0)
		return r;
	const struct wait_account *a = &w->tick.acct;
	if (wait_row_set(&w->row, a->ns, a->nthreads, a->mount_ns, a->nmount_ns, &w->tick.fds) < 0)
		return errbuf_set(why, ENOMEM, "out of memory");
	return 0;
}

/* The baseline again, once every source has opened and right before the
 * target runs: the first row's time is from there, as its interval's (the
 * open's reading, milliseconds before, charged the first row that much
 * more than its interval: 8 times it, seen at 10 ms). */
static void waits_begin(void *state)
{
	struct waits *w = state;
	struct errbuf ignored;
	w->tick.acct.baseline = true;
	if (w->backend->measure(w->reader, &ignored) < 0)
		w->tick.acct.baseline = false;
}

static void waits_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct waits_config *)sc->priv)->preload);
}

static size_t waits_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct waits_config *)sc->priv)->preload, fds, max);
}

const struct collector_ops waits_ops = {
	.name = "waits",
	.available_in_deployment = true,
	.priv_size = sizeof(struct waits_config),
	.init = waits_init,
	.parse_key = waits_parse_key,
	.describe = waits_describe,
	.probe = waits_probe,
	.release = waits_release,
	.inherited = waits_inherited,
	.open = waits_open,
	.begin = waits_begin,
	.sample = waits_sample,
	.close = waits_close,
};
