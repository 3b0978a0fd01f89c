// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An episode's verdict: see verdict_episode.h.
 *
 * Each source the verdict reads is read in a thread of its own (parsing is
 * the work, and the sources are independent), its rows picked for the few
 * leaves the rules need (row_pick.h) and spread over the windows by
 * export's rules (cells.h), so a window holds exactly what export's cell
 * of the same grid holds. Then each window's figures go to the rules. */
#define _GNU_SOURCE
#include "verdict_episode.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cells.h"
#include "duration.h"
#include "jsonl_reader.h"
#include "log.h"
#include "manifest_read.h"
#include "row_pick.h"
#include "row_shape.h"

/* ---- what is read of each source ------------------------------------------- */

enum source_id { S_TASKSTATS, S_CGROUP, S_DISKSTATS, S_GPU, S_BLOCK_IO, S_COUNT };

static const struct {
	const char *name;
	const char *role;
} roles[S_COUNT] = {
	[S_TASKSTATS] = {"taskstats", "decides cpu, cpu_wait, disk, memory and idle: the tree's "
				      "threads' CPU time and delays"},
	[S_CGROUP] = {"cgroup", "a CPU quota's throttling, the kernel's CPU time while the tree "
				"pages, its memory, and its own pressure (PSI) where taskstats has no "
				"delays"},
	[S_DISKSTATS] = {"diskstats", "evidence: how busy each device was (a disk wait with the "
				      "devices idle is held before them)"},
	[S_GPU] = {"gpu", "decides gpu and gpu_copy: the tree's GPUs' utilization and PCIe bytes"},
	[S_BLOCK_IO] = {"block_io", "evidence only (an oracle): the tree's own block requests"},
};

/* taskstats' leaves, in this order */
static const char *const taskstats_leaves[] = {
	"cpu_run_real_ns", "cpu_delay_ns", "blkio_delay_ns", "swapin_delay_ns", "freepages_delay_ns",
	"thrashing_delay_ns", "compact_delay_ns", "cpu_delay_count", "blkio_delay_count",
	"swapin_delay_count", "freepages_delay_count", "thrashing_delay_count", "compact_delay_count",
	"read_bytes", "write_bytes", "nthreads",
};
enum { T_RUN, T_DELAYS, T_COUNTS = T_DELAYS + 6, T_READ = T_COUNTS + 6, T_WRITE, T_NTHREADS, T_COUNT };
/* the six delays taskstats charges as each wait ends: put back */
enum { D_CPU, D_BLKIO, D_SWAPIN, D_FREEPAGES, D_THRASHING, D_COMPACT, D_COUNT };

static const char *const cgroup_leaves[] = {
	"cpu_usage_ns", "cpu_system_ns", "throttled_ns", "cpu_some_ns", "io_some_ns",
	"memory_some_ns", "memory_bytes", "pgmajfault",
};
enum { C_USAGE, C_SYSTEM, C_THROTTLED, C_CPU_SOME, C_IO_SOME, C_MEM_SOME, C_MEMORY, C_MAJFAULT,
       C_COUNT };

/* per device (by_device.<name>.) */
static const char *const disk_leaves[] = {"util_pct", "read_bytes", "read_ops", "write_bytes",
					  "write_ops"};
enum { K_UTIL, K_READ_BYTES, K_READ_OPS, K_WRITE_BYTES, K_WRITE_OPS, K_COUNT };

/* per GPU (by_device.<index>.) */
static const char *const gpu_leaves[] = {"gpu_util_pct", "pcie_rx_bytes", "pcie_tx_bytes",
					 "tree_processes"};
enum { G_UTIL, G_RX, G_TX, G_PROCS, G_COUNT };

static const char *const block_io_leaves[] = {"read_bytes", "read_ops", "write_bytes", "write_ops"};

struct vsource {
	enum source_id id;
	const char *dir;
	const json_t *entry;
	const char *file;
	int64_t interval, window;
	int dirfd;
	bool incomplete;
	const struct jschema_set *schemas;
	/* the leaves: per device for diskstats and gpu */
	size_t nleaf, ndev;
	char **leaf;
	const char **dev; /* diskstats: a name; gpu: an index as text */
	struct pcie { int gen, width; double link; } *pcie;
	/* what the thread made: col[k * nleaf + l], NAN for null */
	double *col;
	size_t nwin, cap;
	int64_t end; /* the last row's end */
	int code;
	uint64_t bad_line;
	struct errbuf e;
	const char *damage;
	pthread_t thread;
	bool running;
};

static int add_leaf(struct vsource *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_leaf(struct vsource *s, const char *fmt, ...)
{
	char **more = realloc(s->leaf, (s->nleaf + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	s->leaf = more;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s->leaf[s->nleaf], fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	s->nleaf++;
	return 0;
}

static int plain_leaves(struct vsource *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_leaf(s, "%s", names[i]) < 0)
			return -ENOMEM;
	return 0;
}

/* the raw rate of a PCIe link, bytes/s: GT/s per lane (1.0 to 6.0) over 8
 * bits a byte, as the gpu source bounds its counters' wrap */
static double pcie_raw(int gen, int width)
{
	static const double gts[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};
	if (gen <= 0 || gen >= (int)(sizeof(gts) / sizeof(gts[0])) || width <= 0)
		return 0;
	return gts[gen] / 8 * width;
}

/* Which leaves s is read for, devices from its manifest entry. */
static int choose_leaves(struct vsource *s)
{
	size_t i;
	const json_t *d;
	switch (s->id) {
	case S_TASKSTATS:
		return plain_leaves(s, taskstats_leaves, T_COUNT);
	case S_CGROUP:
		return plain_leaves(s, cgroup_leaves, C_COUNT);
	case S_BLOCK_IO:
		return plain_leaves(s, block_io_leaves, 4);
	case S_DISKSTATS:
		s->dev = calloc(json_array_size(json_object_get(s->entry, "devices")) + 1, sizeof(*s->dev));
		if (!s->dev)
			return -ENOMEM;
		json_array_foreach(json_object_get(s->entry, "devices"), i, d) {
			const char *name = json_string_value(json_object_get(d, "name"));
			if (!name)
				continue;
			s->dev[s->ndev++] = name;
			for (size_t l = 0; l < K_COUNT; l++)
				if (add_leaf(s, "by_device.%s.%s", name, disk_leaves[l]) < 0)
					return -ENOMEM;
		}
		return 0;
	case S_GPU: {
		size_t n = json_array_size(json_object_get(s->entry, "gpus"));
		s->dev = calloc(n + 1, sizeof(*s->dev));
		s->pcie = calloc(n + 1, sizeof(*s->pcie));
		if (!s->dev || !s->pcie)
			return -ENOMEM;
		json_array_foreach(json_object_get(s->entry, "gpus"), i, d) {
			json_int_t index = json_integer_value(json_object_get(d, "index"));
			int gen = (int)json_integer_value(json_object_get(d, "pcie_max_gen"));
			int width = (int)json_integer_value(json_object_get(d, "pcie_max_width"));
			s->pcie[s->ndev] = (struct pcie){gen, width, pcie_raw(gen, width)};
			char *name;
			if (asprintf(&name, "%lld", (long long)index) < 0)
				return -ENOMEM;
			s->dev[s->ndev++] = name;
			for (size_t l = 0; l < G_COUNT; l++)
				if (add_leaf(s, "by_device.%s.%s", name, gpu_leaves[l]) < 0)
					return -ENOMEM;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- reading a source onto the windows --------------------------------------- */

static int grow(struct vsource *s)
{
	if (s->nwin < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap * 2 : 1024;
	double *more = realloc(s->col, cap * (s->nleaf ? s->nleaf : 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	s->col = more;
	s->cap = cap;
	return 0;
}

/* The rules of s's leaves from its first row's shape (the schema's x-cell
 * and x-gauge, as export combines them); a leaf the rows lack is null. */
static int learn_rules(struct vsource *s, const char *text, size_t len, struct cell_leaf *rule,
		       bool *present)
{
	json_error_t je;
	json_t *row = json_loadb(text, len, 0, &je);
	struct row_shape shape;
	if (!json_is_object(row)) {
		json_decref(row);
		return errbuf_set(&s->e, EINVAL, "%s", row ? "not a JSON object" : je.text);
	}
	int r = row_shape_learn(&shape, s->schemas, roles[s->id].name, row, &s->e);
	json_decref(row);
	for (size_t l = 0; r == 0 && l < s->nleaf; l++) {
		rule[l] = (struct cell_leaf){.rule = CELL_SUM, .num = -1, .den = -1};
		present[l] = false;
		for (size_t i = 0; i < shape.n; i++)
			if (!strcmp(shape.name[i], s->leaf[l])) {
				rule[l].rule = shape.leaf[i].rule; /* none of the leaves read is a ratio */
				present[l] = true;
			}
	}
	row_shape_free(&shape);
	return r;
}

struct reading {
	struct jsonl_reader r;
	struct row_pick pick;
	const char **picked; /* the leaves the rows have */
	size_t *slot;        /* their place among s's leaves */
	size_t npicked;
	struct value *v;
	struct cells cells;
	bool has_row;
	uint64_t line;
	int64_t t;
};

/* The next row into the cells; 0, or -errno with s->e. */
static int advance(struct vsource *s, struct reading *x)
{
	char *text;
	size_t len;
	x->has_row = false;
	int r = jsonl_reader_next(&x->r, &text, &len, &s->e);
	if (r <= 0)
		return r;
	x->line++;
	int64_t t;
	bool final;
	if ((r = row_pick_read(&x->pick, text, len, x->v, &t, &final, &s->e)) < 0)
		return r;
	if (t < x->t)
		return errbuf_set(&s->e, EINVAL, "t_mono_ns is before the previous row's");
	x->t = t;
	for (size_t l = 0; l < s->nleaf; l++)
		x->cells.row[l] = (struct value){.kind = VAL_NULL};
	for (size_t i = 0; i < x->npicked; i++)
		x->cells.row[x->slot[i]] = x->v[i];
	int64_t end = cells_row_end(t, final, s->interval, s->end);
	cells_row(&x->cells, s->end, end);
	s->end = end;
	x->has_row = true;
	return 0;
}

static int read_rows(struct vsource *s, struct reading *x)
{
	char *text;
	size_t len;
	int r = jsonl_reader_open(&x->r, s->dirfd, s->file, &s->e);
	if (r == -ENOENT && s->incomplete)
		return 0; /* stopped before the source wrote its file */
	if (r < 0) {
		s->code = EX_NOINPUT;
		return r;
	}
	/* the first row: the leaves' rules */
	if ((r = jsonl_reader_next(&x->r, &text, &len, &s->e)) <= 0)
		goto out;
	struct cell_leaf *rule = calloc(s->nleaf + 1, sizeof(*rule));
	bool *present = calloc(s->nleaf + 1, sizeof(*present));
	x->picked = calloc(s->nleaf + 1, sizeof(*x->picked));
	x->slot = calloc(s->nleaf + 1, sizeof(*x->slot));
	x->v = calloc(s->nleaf + 1, sizeof(*x->v));
	if (!rule || !present || !x->picked || !x->slot || !x->v) {
		free(rule);
		free(present);
		r = errbuf_set(&s->e, ENOMEM, "out of memory");
		goto out;
	}
	if ((r = learn_rules(s, text, len, rule, present)) == 0) {
		for (size_t l = 0; l < s->nleaf; l++)
			if (present[l]) {
				x->slot[x->npicked] = l;
				x->picked[x->npicked++] = s->leaf[l];
			}
		if (row_pick_init(&x->pick, x->picked, x->npicked) < 0 ||
		    cells_init(&x->cells, rule, s->nleaf) < 0)
			r = errbuf_set(&s->e, ENOMEM, "out of memory");
	}
	free(present);
	if (r < 0) {
		free(rule);
		s->bad_line = 1;
		goto out;
	}
	/* the first row again, now picked like the rest */
	jsonl_reader_close(&x->r);
	if ((r = jsonl_reader_open(&x->r, s->dirfd, s->file, &s->e)) < 0 || (r = advance(s, x)) < 0) {
		free(rule);
		goto out;
	}
	for (int64_t c0 = 0; x->has_row; c0 += s->window) {
		cells_clear(&x->cells);
		while (x->has_row) {
			int c = cells_take(&x->cells, c0, c0 + s->window);
			if (c == -ERANGE) {
				r = errbuf_set(&s->e, ERANGE, "a sum beyond 2^63");
				break;
			}
			if (c != CELLS_USED)
				break;
			if ((r = advance(s, x)) < 0)
				break;
		}
		if (r < 0)
			break;
		const struct value *v = cells_finish(&x->cells);
		if ((r = grow(s)) < 0) {
			errbuf_set(&s->e, ENOMEM, "out of memory");
			break;
		}
		double *row = s->col + s->nwin++ * s->nleaf;
		for (size_t l = 0; l < s->nleaf; l++)
			row[l] = v[l].kind == VAL_INT ? (double)v[l].i : v[l].kind == VAL_REAL ? v[l].d : NAN;
	}
	free(rule);
	if (r < 0) {
		s->bad_line = x->line;
		goto out;
	}
	if (x->r.damage[0]) {
		if (!s->incomplete) {
			r = errbuf_set(&s->e, EINVAL, "%s", x->r.damage);
			s->bad_line = 0;
		} else {
			s->damage = "its file ends in a cut row (the episode did not end)";
		}
	}
out:
	if (r < 0 && !s->code)
		s->code = r == -ENOMEM ? EX_SOFTWARE : r == -EINVAL || r == -ERANGE ? EX_DATAERR : EX_IOERR;
	return r;
}

static void *read_source(void *arg)
{
	struct vsource *s = arg;
	struct reading x = {0};
	read_rows(s, &x);
	jsonl_reader_close(&x.r);
	row_pick_free(&x.pick);
	cells_free(&x.cells);
	free(x.picked);
	free(x.slot);
	free(x.v);
	return NULL;
}

/* ---- the episode --------------------------------------------------------------- */

static enum source_id source_id(const char *name)
{
	for (int i = 0; i < S_COUNT; i++)
		if (!strcmp(roles[i].name, name))
			return (enum source_id)i;
	return S_COUNT;
}

static double at(const struct vsource *s, size_t k, size_t l)
{
	return s && s->file && k < s->nwin && l < s->nleaf ? s->col[k * s->nleaf + l] : NAN;
}

static void fill_disk(struct verdict_in *in, const struct vsource *s, size_t k)
{
	for (size_t d = 0; d < s->ndev; d++) {
		double util = at(s, k, d * K_COUNT + K_UTIL);
		if (isnan(util) || (in->disk && !(util > in->disk_util)))
			continue;
		in->disk = s->dev[d];
		in->disk_util = util;
		in->disk_read_bytes = at(s, k, d * K_COUNT + K_READ_BYTES);
		in->disk_read_ops = at(s, k, d * K_COUNT + K_READ_OPS);
		in->disk_write_bytes = at(s, k, d * K_COUNT + K_WRITE_BYTES);
		in->disk_write_ops = at(s, k, d * K_COUNT + K_WRITE_OPS);
	}
}

/* The GPUs the tree has processes on; every GPU that gave a reading where
 * NVML lists no process for any (the driver does not say whose). */
static void fill_gpu(struct verdict_in *in, const struct vsource *s, size_t k)
{
	bool known = false;
	for (size_t d = 0; d < s->ndev; d++)
		known = known || !isnan(at(s, k, d * G_COUNT + G_PROCS));
	double busy = 0, secs = in->window_ns / 1e9;
	in->gpus = 0;
	in->gpu_busy = 0;
	in->pcie_h2d = in->pcie_d2h = 0;
	for (size_t d = 0; d < s->ndev; d++) {
		double util = at(s, k, d * G_COUNT + G_UTIL), procs = at(s, k, d * G_COUNT + G_PROCS);
		if (known ? !(procs > 0) : isnan(util))
			continue;
		in->gpus++;
		busy += isnan(util) ? 0 : util / 100;
		double h2d = at(s, k, d * G_COUNT + G_RX) / secs, d2h = at(s, k, d * G_COUNT + G_TX) / secs;
		if (!isnan(h2d) && h2d >= in->pcie_h2d)
			in->pcie_h2d = h2d;
		if (!isnan(d2h) && d2h >= in->pcie_d2h)
			in->pcie_d2h = d2h;
		if (s->pcie[d].link > 0 && !(s->pcie[d].link <= in->pcie_link)) {
			in->pcie_link = s->pcie[d].link;
			in->pcie_gen = s->pcie[d].gen;
			in->pcie_width = s->pcie[d].width;
		}
	}
	if (in->gpus)
		in->gpu_busy = busy / in->gpus;
}

/* The manifest's say on a source the episode lacks, for "sources". */
static json_t *missing_entry(const json_t *entry, const char *why)
{
	json_t *o = json_pack("{s:s}", "status", why);
	const json_t *error = json_object_get(entry, "error");
	if (o && json_is_string(error))
		json_object_set(o, "error", (json_t *)error);
	return o;
}

/* What the sources missing leave the rules unable to tell apart. */
static int note_cannot_tell(struct verdict_episode *v, const struct vsource *src[S_COUNT],
			    bool psi)
{
	const json_t *ts = json_object_get(json_object_get(v->manifest, "sources"), "taskstats");
	struct {
		bool when;
		const char *labels[5];
		const char *why;
	} notes[] = {
		{!src[S_TASKSTATS] && !psi,
		 {"cpu_wait", "disk", "memory", "idle"},
		 "without taskstats, and no pressure (PSI) of the episode's own cgroup, a tree waiting "
		 "for a CPU, the disk or memory reads as idle"},
		{!src[S_TASKSTATS] && psi,
		 {"cpu", "cpu_wait"},
		 "without taskstats, the cgroup's pressure (PSI) counts wall time, not each thread's: a "
		 "tree queueing for CPUs behind its own threads reads as cpu_wait"},
		{src[S_TASKSTATS] && json_is_false(json_object_get(ts, "delays_counted")) && !psi,
		 {"disk", "memory", "idle"},
		 "taskstats counted no block I/O or memory delays (its delays_reason), and the cgroup has "
		 "no pressure (PSI) of its own: waiting for the disk or memory reads as idle"},
		{!src[S_CGROUP],
		 {"cpu_wait", "cpu", "memory"},
		 "without cgroup, a CPU quota's throttling reads as the tree's own queueing (cpu), and the "
		 "kernel's CPU time while the tree pages as cpu, not memory"},
		{!src[S_GPU],
		 {"gpu", "gpu_copy", "idle", "cpu"},
		 "without the gpu source, a host waiting on a GPU reads as idle, or as cpu while it spins "
		 "or stages a copy"},
	};
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		if (!notes[i].when)
			continue;
		json_t *labels = json_array();
		for (size_t l = 0; l < 5 && notes[i].labels[l]; l++)
			json_array_append_new(labels, json_string(notes[i].labels[l]));
		if (json_array_append_new(v->cannot_tell, json_pack("{s:o, s:s}", "labels", labels, "why",
								     notes[i].why)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The sources to read: their entries, the window, refusals. */
static int choose_sources(struct verdict_episode *v, const struct jschema_set *schemas,
			  const struct verdict_options *o, struct vsource *src, int dirfd)
{
	struct manifest_source *listed = NULL;
	size_t n = 0;
	int code = manifest_sources(v->dir, v->manifest, schemas, &listed, &n);
	if (code)
		return code;
	for (size_t i = 0; i < n; i++) {
		enum source_id id = source_id(listed[i].name);
		if (id == S_COUNT)
			continue;
		const json_t *entry = listed[i].entry;
		const char *file = json_string_value(json_object_get(entry, "file"));
		bool deployable = json_is_true(json_object_get(entry, "available_in_deployment"));
		json_t *says;
		if (!file)
			says = missing_entry(entry, "wrote no rows");
		else if (o->deployable_only && !deployable)
			says = json_pack("{s:s}", "status", "left out: not deployable (--deployable-only)");
		else {
			src[id] = (struct vsource){
				.id = id, .dir = v->dir, .entry = entry, .file = file,
				.interval = json_integer_value(json_object_get(entry, "interval_ns")),
				.dirfd = dirfd, .incomplete = v->incomplete, .schemas = schemas,
			};
			says = json_pack("{s:s, s:I, s:b, s:s}", "status", "read", "interval_ns",
					 (json_int_t)src[id].interval, "available_in_deployment", deployable,
					 "role", roles[id].role);
		}
		if (!says || json_object_set_new(v->sources, listed[i].name, says) < 0) {
			free(listed);
			return EX_SOFTWARE;
		}
	}
	free(listed);
	for (int i = 0; i < S_COUNT; i++)
		if (!json_object_get(v->sources, roles[i].name))
			json_object_set_new(v->sources, roles[i].name,
					    json_pack("{s:s}", "status", "not in the episode"));
	if (!src[S_TASKSTATS].file && !src[S_CGROUP].file) {
		snprintf(v->refusal, sizeof(v->refusal),
			 "the episode has no taskstats or cgroup rows%s (taskstats decides where the "
			 "tree's time went: add it to the episode's sources)",
			 o->deployable_only ? " from a deployable source" : "");
		if (!o->quiet_refusal)
			log_error("%s: no verdict: %s", v->dir, v->refusal);
		return EX_UNAVAILABLE;
	}
	int64_t coarsest = 0;
	for (int i = 0; i < S_COUNT; i++)
		coarsest = src[i].file && src[i].interval > coarsest ? src[i].interval : coarsest;
	v->window_ns = o->window_ns ? o->window_ns : coarsest;
	for (int i = 0; i < S_COUNT; i++) {
		if (!src[i].file)
			continue;
		if (src[i].interval <= 0 || v->window_ns % src[i].interval) {
			char w[32], iv[32];
			duration_format(v->window_ns, w, sizeof(w));
			duration_format(src[i].interval, iv, sizeof(iv));
			log_error("--window %s is not a multiple of %s's interval (%s) in %s", w,
				  roles[i].name, iv, v->dir);
			return EX_USAGE;
		}
		src[i].window = v->window_ns;
		if (choose_leaves(&src[i]) < 0)
			return EX_SOFTWARE;
	}
	return 0;
}

static int read_sources(struct verdict_episode *v, struct vsource *src)
{
	for (int i = 0; i < S_COUNT; i++) {
		if (!src[i].file)
			continue;
		src[i].running = pthread_create(&src[i].thread, NULL, read_source, &src[i]) == 0;
		if (!src[i].running)
			read_source(&src[i]);
	}
	int code = 0;
	for (int i = 0; i < S_COUNT; i++) {
		struct vsource *s = &src[i];
		if (s->running)
			pthread_join(s->thread, NULL);
		if (code || !s->code)
			continue;
		if (s->bad_line)
			log_error("%s/%s:%llu: %s", v->dir, s->file, (unsigned long long)s->bad_line,
				  s->e.msg);
		else
			log_error("%s/%s: %s", v->dir, s->file, s->e.msg);
		code = s->code;
	}
	return code;
}

/* How far around a window the tree's threads at work are counted, and a
 * faulty delay's waits are measured: a second's worth of windows. */
static size_t neighbourhood(const struct verdict_episode *v)
{
	int64_t h = v->window_ns > 0 ? (NS_PER_S + v->window_ns / 2) / v->window_ns : 1;
	return h < 1 ? 1 : (size_t)h;
}

/* A delay the taskstats source nulled (a fault of the kernel's accounting,
 * its kernel_faults) where the window's waits were still counted: the
 * count times the mean wait of the same kind of waiting, known: the
 * nearest window, within ten seconds, whose count is within a factor of
 * 1.5 of its own (the closer of two as near), else, within a second, the
 * one whose count is nearest. The
 * windows so estimated get bit d in estimated[k]. (Seen here: forked
 * workers waiting on the disk had every other row's block I/O delay
 * nulled.) */
#define MATCHING_COUNTS 1.5

static bool known(const double *delay, const double *count, const unsigned *estimated, unsigned d,
		  size_t j)
{
	return !isnan(delay[j]) && !isnan(count[j]) && count[j] >= 1 && !(estimated[j] & (1u << d));
}

static void estimate_faulty(const struct verdict_episode *v, double *delay, const double *count,
			    unsigned d, unsigned *estimated)
{
	size_t n = v->n, h = neighbourhood(v), far = 10 * h;
	for (size_t k = 0; k < n; k++) {
		if (!isnan(delay[k]) || isnan(count[k]) || count[k] < 1)
			continue;
		double mean = NAN, nearest = NAN, best = INFINITY;
		for (size_t dist = 1; dist <= far && isnan(mean); dist++) {
			double match = INFINITY;
			for (int side = 0; side < 2; side++) {
				if (side ? k + dist >= n : dist > k)
					continue;
				size_t j = side ? k + dist : k - dist;
				if (!known(delay, count, estimated, d, j))
					continue;
				double off = fabs(log(count[j] / count[k]));
				if (off <= log(MATCHING_COUNTS) && off < match) {
					match = off;
					mean = delay[j] / count[j];
				} else if (dist <= h && off < best) {
					best = off;
					nearest = delay[j] / count[j];
				}
			}
		}
		if (isnan(mean))
			mean = nearest;
		if (!isnan(mean)) {
			delay[k] = count[k] * mean;
			estimated[k] |= 1u << d;
		}
	}
}

/* taskstats' delays, put back over the windows they were waited in.
 * Each window's room is the threads at work around it (the mean of their
 * running and waiting time a window over the second before it or the
 * second after, the larger, rounded up, never more than it has) times its
 * width, less their run time: the threads that sleep throughout take no
 * wait back. */
static int spread_delays(const struct verdict_episode *v, const struct vsource *ts,
			 double *spread[D_COUNT], unsigned *estimated)
{
	size_t n = v->n, h = neighbourhood(v);
	double *delay[D_COUNT] = {0}, *room = calloc(n + 1, sizeof(*room)), *busy = calloc(n + 1, sizeof(*busy));
	double *end = calloc(n + 1, sizeof(*end));
	int r = room && busy && end ? 0 : -ENOMEM;
	for (size_t k = 0; r == 0 && k < n; k++)
		end[k] = (double)v->win[k].t_end;
	for (int d = 0; r == 0 && d < D_COUNT; d++) {
		double *count = malloc((n + 1) * sizeof(*count));
		if (!(delay[d] = malloc((n + 1) * sizeof(**delay))) || !count || !(spread[d] = malloc((n + 1) * sizeof(**spread)))) {
			free(count);
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < n; k++) {
			delay[d][k] = at(ts, k, T_DELAYS + d);
			count[k] = at(ts, k, T_COUNTS + d);
		}
		estimate_faulty(v, delay[d], count, (unsigned)d, estimated);
		free(count);
	}
	for (size_t k = 0; r == 0 && k < n; k++) {
		double run = at(ts, k, T_RUN);
		busy[k] = isnan(run) ? 0 : run;
		for (int d = 0; d < D_COUNT; d++)
			busy[k] += isnan(delay[d][k]) ? 0 : delay[d][k];
	}
	for (size_t k = 0; r == 0 && k < n; k++) {
		/* the busier of the second before and the second after: a window
		 * where the tree starts working harder keeps room for it */
		double side[2] = {0, 0};
		for (int after = 0; after < 2; after++) {
			double sum = 0, width = 0;
			size_t from = after ? k : k > h ? k - h : 0, to = after ? (k + h < n ? k + h : n - 1) : k;
			for (size_t j = from; j <= to; j++) {
				sum += busy[j];
				width += (double)(v->win[j].t_end - v->win[j].t_start);
			}
			side[after] = width > 0 ? sum / width : 0;
		}
		double threads = at(ts, k, T_NTHREADS);
		double at_work = ceil((side[0] > side[1] ? side[0] : side[1]) - 0.05);
		if (at_work < 1)
			at_work = 1;
		if (!isnan(threads) && threads >= 1 && at_work > threads)
			at_work = threads;
		double run = at(ts, k, T_RUN);
		room[k] = at_work * (double)(v->win[k].t_end - v->win[k].t_start) - (isnan(run) ? 0 : run);
	}
	/* the waits off the CPU, sharing the room: a thread waiting for a CPU
	 * or for block I/O runs nothing meanwhile, and the kernel charges
	 * these in chunks (a throttled read's 120 ms). The memory delays are
	 * left as charged: short, and partly the thread's own CPU time
	 * (reclaim, a swap-in from the swap cache), which already fills its
	 * window. */
	for (int d = 0; r == 0 && d < D_COUNT; d++) {
		if (d == D_CPU || d == D_BLKIO)
			r = verdict_spread(delay[d], room, end, n, spread[d]);
		else
			memcpy(spread[d], delay[d], n * sizeof(**spread));
	}
	for (int d = 0; d < D_COUNT; d++)
		free(delay[d]);
	free(room);
	free(busy);
	free(end);
	return r;
}

/* The cgroup's CPU time in the kernel in window k. The kernel splits a
 * task's time between user and system by the timer ticks that find it in
 * either (a few dozen a window at 100 ms), so a window's own split is
 * noisy: its CPU time is taken at the kernel's share of the cgroup's CPU
 * time over the second around it. */
static double kernel_time(const struct verdict_episode *v, const struct vsource *cg, size_t k)
{
	size_t h = neighbourhood(v);
	double system = 0, usage = 0;
	for (size_t j = k > h ? k - h : 0; j < v->n && j <= k + h; j++) {
		double s = at(cg, j, C_SYSTEM), u = at(cg, j, C_USAGE);
		if (!isnan(s) && !isnan(u)) {
			system += s;
			usage += u;
		}
	}
	double mine = at(cg, k, C_USAGE);
	return usage > 0 && !isnan(mine) ? mine * system / usage : at(cg, k, C_SYSTEM);
}

static int decide_windows(struct verdict_episode *v, struct vsource *src)
{
	const struct vsource *ts = src[S_TASKSTATS].file ? &src[S_TASKSTATS] : NULL;
	const struct vsource *cg = src[S_CGROUP].file ? &src[S_CGROUP] : NULL;
	const struct vsource *dk = src[S_DISKSTATS].file ? &src[S_DISKSTATS] : NULL;
	const struct vsource *gp = src[S_GPU].file ? &src[S_GPU] : NULL;
	const struct vsource *bio = src[S_BLOCK_IO].file ? &src[S_BLOCK_IO] : NULL;
	/* the windows of the sources that decide: the same whether the
	 * evidence's sources (whose final rows may wait longer for I/O in
	 * flight) are read or not */
	int64_t end = 0;
	for (int i = 0; i < S_COUNT; i++) {
		if (i == S_DISKSTATS || i == S_BLOCK_IO)
			continue;
		v->n = src[i].nwin > v->n ? src[i].nwin : v->n;
		end = src[i].end > end ? src[i].end : end;
	}
	if (v->n == 0)
		return 0;
	if (!(v->win = calloc(v->n, sizeof(*v->win))))
		return -ENOMEM;
	for (size_t k = 0; k < v->n; k++) {
		v->win[k].t_start = (int64_t)k * v->window_ns;
		v->win[k].t_end = k + 1 < v->n ? v->win[k].t_start + v->window_ns : end;
	}
	double *spread[D_COUNT] = {0};
	unsigned *estimated = calloc(v->n + 1, sizeof(*estimated));
	int r = !estimated ? -ENOMEM : ts ? spread_delays(v, ts, spread, estimated) : 0;
	const json_t *cgm = json_object_get(json_object_get(v->manifest, "sources"), "cgroup");
	const char *scope = json_string_value(json_object_get(cgm, "pressure_scope"));
	bool psi = cg && scope && !strcmp(scope, "cgroup");
	int cpus = (int)json_integer_value(json_object_get(json_object_get(v->manifest, "host"), "cpu_count"));
	for (size_t k = 0; r == 0 && k < v->n; k++) {
		struct verdict_window *w = &v->win[k];
		struct verdict_in *in = &w->in;
		verdict_in_clear(in);
		in->window_ns = (double)(w->t_end - w->t_start);
		in->cpus = cpus;
		if (ts) {
			in->run_ns = at(ts, k, T_RUN);
			double *d[D_COUNT] = {&in->cpu_delay_ns, &in->blkio_ns, &in->swapin_ns,
					      &in->freepages_ns, &in->thrashing_ns, &in->compact_ns};
			for (int i = 0; i < D_COUNT; i++)
				*d[i] = spread[i][k];
			in->estimated = estimated[k];
			in->read_bytes = at(ts, k, T_READ);
			in->write_bytes = at(ts, k, T_WRITE);
			in->nthreads = at(ts, k, T_NTHREADS);
		} else if (cg) {
			in->run_ns = at(cg, k, C_USAGE);
		}
		if (cg) {
			in->system_ns = kernel_time(v, cg, k);
			in->throttled_ns = at(cg, k, C_THROTTLED);
			in->memory_bytes = at(cg, k, C_MEMORY);
			in->majfaults = at(cg, k, C_MAJFAULT);
			if (psi) {
				in->cpu_some_ns = at(cg, k, C_CPU_SOME);
				in->io_some_ns = at(cg, k, C_IO_SOME);
				in->memory_some_ns = at(cg, k, C_MEM_SOME);
			}
		}
		if (dk)
			fill_disk(in, dk, k);
		if (gp)
			fill_gpu(in, gp, k);
		if (bio) {
			in->bio_read_bytes = at(bio, k, 0);
			in->bio_read_ops = at(bio, k, 1);
			in->bio_write_bytes = at(bio, k, 2);
			in->bio_write_ops = at(bio, k, 3);
		}
		verdict_decide(in, &w->out);
	}
	for (int d = 0; d < D_COUNT; d++)
		free(spread[d]);
	free(estimated);
	if (r == 0)
		r = note_cannot_tell(v, (const struct vsource *[S_COUNT]){ts, cg, dk, gp, bio}, psi);
	return r;
}

static void totals(struct verdict_episode *v)
{
	struct verdict_in all;
	verdict_in_clear(&all);
	for (size_t k = 0; k < v->n; k++) {
		const struct verdict_window *w = &v->win[k];
		for (int l = 0; l < V_LABELS; l++)
			v->total_ns[l] += w->out.share[l] * w->in.window_ns;
		v->total_windows[w->out.label]++;
		verdict_in_add(&all, &w->in);
	}
	static const enum verdict_label order[V_LABELS] = {V_GPU, V_GPU_COPY, V_MEMORY, V_DISK,
							   V_CPU_WAIT, V_CPU, V_IDLE};
	v->label = order[0];
	for (int i = 1; i < V_LABELS; i++)
		if (v->total_ns[order[i]] > v->total_ns[v->label])
			v->label = order[i];
	struct verdict_out out;
	verdict_decide(&all, &out);
	verdict_evidence(&all, &out, v->label, v->evidence, sizeof(v->evidence));
}

int verdict_episode_read(struct verdict_episode *v, const char *dir,
			 const struct jschema_set *schemas, const struct verdict_options *o)
{
	memset(v, 0, sizeof(*v));
	v->dir = dir;
	v->deployable_only = o->deployable_only;
	int dirfd;
	int code = manifest_load(dir, schemas, &dirfd, &v->manifest);
	if (code)
		return code;
	v->name = json_string_value(json_object_get(v->manifest, "episode"));
	v->incomplete = manifest_incomplete(v->manifest);
	v->sources = json_object();
	v->cannot_tell = json_array();
	struct vsource src[S_COUNT] = {0};
	if (!v->sources || !v->cannot_tell)
		code = EX_SOFTWARE;
	if (!code)
		code = choose_sources(v, schemas, o, src, dirfd);
	if (!code)
		code = read_sources(v, src);
	if (!code && decide_windows(v, src) < 0)
		code = EX_SOFTWARE;
	if (!code)
		totals(v);
	/* the windows name diskstats' devices by the manifest's strings */
	for (int i = 0; i < S_COUNT; i++) {
		struct vsource *s = &src[i];
		for (size_t l = 0; l < s->nleaf; l++)
			free(s->leaf[l]);
		free(s->leaf);
		free(s->col);
		free(s->pcie);
		for (size_t d = 0; s->id == S_GPU && d < s->ndev; d++)
			free((char *)s->dev[d]);
		free(s->dev);
	}
	close(dirfd);
	return code;
}

void verdict_episode_free(struct verdict_episode *v)
{
	free(v->win);
	json_decref(v->sources);
	json_decref(v->cannot_tell);
	json_decref(v->manifest);
	memset(v, 0, sizeof(*v));
}

int verdict_episode_runs(const struct verdict_episode *v, struct verdict_run **runs, size_t *n)
{
	*n = 0;
	*runs = NULL;
	for (size_t k = 0; k < v->n;) {
		size_t last = k;
		while (last + 1 < v->n && v->win[last + 1].out.label == v->win[k].out.label)
			last++;
		struct verdict_run *more = realloc(*runs, (*n + 1) * sizeof(*more));
		if (!more) {
			free(*runs);
			*runs = NULL;
			return -ENOMEM;
		}
		*runs = more;
		struct verdict_run *run = &(*runs)[(*n)++];
		run->first = k;
		run->last = last;
		run->label = v->win[k].out.label;
		struct verdict_in sum;
		verdict_in_clear(&sum);
		for (size_t i = k; i <= last; i++)
			verdict_in_add(&sum, &v->win[i].in);
		struct verdict_out out;
		verdict_decide(&sum, &out);
		verdict_evidence(&sum, &out, run->label, run->evidence, sizeof(run->evidence));
		k = last + 1;
	}
	return 0;
}

int64_t verdict_window_wall(const struct verdict_episode *v, const struct verdict_window *w)
{
	return json_integer_value(json_object_get(v->manifest, "t_wall_start_ns")) + w->t_end;
}

void verdict_totals_text(const struct verdict_episode *v, char *buf, size_t len)
{
	double time = 0;
	size_t n = 0;
	for (int l = 0; l < V_LABELS; l++)
		time += v->total_ns[l];
	buf[0] = 0;
	for (int l = 0; l < V_LABELS && n < len; l++) {
		if (!(v->total_ns[l] >= 0.005 * time) || time <= 0)
			continue;
		char d[32];
		duration_human((int64_t)llround(v->total_ns[l]), d, sizeof(d));
		int r = snprintf(buf + n, len - n, "%s%s %.0f %% (%s)", n ? ", " : "", verdict_label_names[l],
				 100 * v->total_ns[l] / time, d);
		n = r < 0 ? len : n + (size_t)r;
	}
}

void verdict_cannot_tell_text(const json_t *entry, char *buf, size_t len)
{
	size_t i, n = 0;
	const json_t *l;
	buf[0] = 0;
	json_array_foreach(json_object_get(entry, "labels"), i, l) {
		int r = n < len ? snprintf(buf + n, len - n, "%s%s", i ? ", " : "", json_string_value(l)) : 0;
		n = r < 0 ? len : n + (size_t)r;
	}
	if (n < len)
		snprintf(buf + n, len - n, " (%s)", json_string_value(json_object_get(entry, "why")));
}

/* A share to 6 decimals: the same number however a writer prints it. */
static json_t *share_json(double share)
{
	return json_real(round(share * 1e6) / 1e6);
}

static json_t *shares_json(const double *share)
{
	json_t *o = json_object();
	for (int l = 0; o && l < V_LABELS; l++)
		json_object_set_new(o, verdict_label_names[l], share_json(share[l]));
	return o;
}

json_t *verdict_episode_json(const struct verdict_episode *v)
{
	json_t *windows = json_array();
	for (size_t k = 0; windows && k < v->n; k++) {
		const struct verdict_window *w = &v->win[k];
		json_t *o = json_pack("{s:I, s:I, s:I, s:s, s:o, s:s}", "t_mono_ns", (json_int_t)w->t_end,
				      "t_wall_ns", (json_int_t)verdict_window_wall(v, w), "interval_ns",
				      (json_int_t)(w->t_end - w->t_start), "verdict",
				      verdict_label_names[w->out.label], "shares", shares_json(w->out.share),
				      "evidence", w->out.evidence);
		if (!o || json_array_append_new(windows, o) < 0) {
			json_decref(windows);
			return NULL;
		}
	}
	double time = 0;
	for (int l = 0; l < V_LABELS; l++)
		time += v->total_ns[l];
	json_t *ns = json_object(), *share = json_object(), *count = json_object();
	for (int l = 0; ns && share && count && l < V_LABELS; l++) {
		json_object_set_new(ns, verdict_label_names[l], json_integer((json_int_t)llround(v->total_ns[l])));
		json_object_set_new(share, verdict_label_names[l], share_json(time > 0 ? v->total_ns[l] / time : 0));
		json_object_set_new(count, verdict_label_names[l], json_integer((json_int_t)v->total_windows[l]));
	}
	return json_pack("{s:s, s:s, s:I, s:b, s:O, s:O, s:o, s:{s:s?, s:s, s:o, s:o, s:o}}",
			 "episode", v->name, "status",
			 json_string_value(json_object_get(v->manifest, "status")), "window_ns",
			 (json_int_t)v->window_ns, "deployable_only", v->deployable_only, "sources",
			 v->sources, "cannot_tell", v->cannot_tell, "windows", windows, "totals",
			 "verdict", v->n ? verdict_label_names[v->label] : NULL, "evidence",
			 v->n ? v->evidence : "no rows", "ns", ns, "share", share, "windows", count);
}
