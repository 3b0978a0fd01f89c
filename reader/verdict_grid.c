// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An episode's rows onto the verdict's grid of windows: see verdict_grid.h.
 *
 * Each source's thread reads its rows into export's cells (cells.h) one
 * window at a time and puts each window's leaves in a queue; the reader
 * takes a window from every source's queue and makes of them the figures
 * the rules read (the busiest device, the tree's GPUs). */
#define _GNU_SOURCE
#include "verdict_grid.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cells.h"
#include "jsonl_reader.h"
#include "log.h"
#include "row_pick.h"
#include "row_shape.h"

const char *const verdict_source_names[VS_COUNT] = {
	[VS_TASKSTATS] = "taskstats", [VS_CGROUP] = "cgroup", [VS_DISKSTATS] = "diskstats",
	[VS_GPU] = "gpu", [VS_BLOCK_IO] = "block_io", [VS_WAITS] = "waits", [VS_OFFCPU] = "offcpu",
	[VS_NET] = "net",
};

const char *const verdict_source_roles[VS_COUNT] = {
	[VS_TASKSTATS] = "decides cpu, cpu_wait, disk, memory and idle: the tree's threads' CPU "
			 "time and delays",
	[VS_CGROUP] = "a CPU quota's throttling, the kernel's CPU time while the tree pages, its "
		      "memory, and its own pressure (PSI) where taskstats has no delays or no row",
	[VS_DISKSTATS] = "evidence: how busy each device was (a disk wait with the devices idle is "
			 "held before them)",
	[VS_GPU] = "decides gpu and gpu_copy: the tree's GPUs' utilization and PCIe bytes",
	[VS_BLOCK_IO] = "evidence only (an oracle): the tree's own block requests",
	[VS_WAITS] = "decides network, and cpu, cpu_wait, disk, memory and idle in taskstats' stead: "
		     "where the tree's threads were, at the time, and on what they waited",
	[VS_OFFCPU] = "evidence only (an oracle): the same as waits, exact",
	[VS_NET] = "evidence: the network's figures where the tree waits on it (the mount's round trips "
		   "and bytes, the busiest interface's rate, TCP's retransmits)",
};

bool verdict_source_decides(enum verdict_source s)
{
	return s == VS_TASKSTATS || s == VS_CGROUP || s == VS_GPU || s == VS_WAITS;
}

/* ---- which leaves are read of each source ------------------------------------ */

/* taskstats' leaves, in this order */
static const char *const taskstats_leaves[] = {
	"cpu_run_real_ns", "cpu_delay_ns", "blkio_delay_ns", "swapin_delay_ns", "freepages_delay_ns",
	"thrashing_delay_ns", "compact_delay_ns", "cpu_delay_count", "blkio_delay_count",
	"swapin_delay_count", "freepages_delay_count", "thrashing_delay_count", "compact_delay_count",
	"read_bytes", "write_bytes", "nthreads",
};
enum { T_RUN, T_DELAYS, T_COUNTS = T_DELAYS + VD_COUNT, T_READ = T_COUNTS + VD_COUNT, T_WRITE,
       T_NTHREADS, T_COUNT };

static const char *const cgroup_leaves[] = {
	"cpu_usage_ns", "cpu_system_ns", "throttled_ns", "cpu_some_ns", "io_some_ns",
	"memory_some_ns", "memory_bytes", "pgmajfault", "tree_cpus", "ancestor_throttled_ns",
	"memory_high_events",
};
enum { C_USAGE, C_SYSTEM, C_THROTTLED, C_CPU_SOME, C_IO_SOME, C_MEM_SOME, C_MEMORY, C_MAJFAULT,
       C_TREE_CPUS, C_ANCESTOR_THROTTLED, C_MEMORY_HIGH, C_COUNT };

/* per device (by_device.<name>.) */
static const char *const disk_leaves[] = {"util_pct", "read_bytes", "read_ops", "write_bytes",
					  "write_ops"};
enum { K_UTIL, K_READ_BYTES, K_READ_OPS, K_WRITE_BYTES, K_WRITE_OPS, K_COUNT };

/* per GPU (by_device.<index>.) */
static const char *const gpu_leaves[] = {"gpu_util_pct", "pcie_rx_bytes", "pcie_tx_bytes",
					 "tree_processes"};
enum { G_UTIL, G_RX, G_TX, G_PROCS, G_COUNT };

static const char *const block_io_leaves[] = {"read_bytes", "read_ops", "write_bytes", "write_ops"};

/* waits' and offcpu's: their classes (verdict_wait_fields), nthreads, then
 * per mount (by_mount.<point>.) its time */

/* net's: TCP's retransmits, then per interface (by_interface.<name>.) and
 * per mount (by_mount.<point>.: an NFS mount's RPCs, a FUSE mount's
 * requests waiting) */
static const char *const net_if_leaves[] = {"rx_bytes", "tx_bytes", "link_speed_mbps"};
enum { NI_RX, NI_TX, NI_SPEED, NI_COUNT };
static const char *const net_nfs_leaves[] = {"ops", "rtt_ns", "read_bytes", "write_bytes"};
enum { NN_OPS, NN_RTT, NN_READ, NN_WRITE, NN_COUNT };

/* How many windows a source's thread may run ahead of the reader. */
#define QUEUE_WINDOWS 512
/* The queue's ends are published a batch at a time (fewer locks). */
#define QUEUE_BATCH 32

struct gsource {
	enum verdict_source id;
	const char *dir, *file;
	const json_t *entry;
	int64_t interval, window;
	int dirfd;
	bool incomplete;
	const struct jschema_set *schemas;
	/* the leaves: per device for diskstats and gpu */
	size_t nleaf, ndev;
	char **leaf;
	const char **dev; /* diskstats: a name; gpu: an index as text; waits: a mount point;
			     net: its interfaces, then its mounts */
	char **what;      /* waits: each mount in words ("nfs4, server ..."); net: "fuse" or NULL */
	size_t nif;       /* net: its interfaces, the first of dev */
	size_t *off;      /* net: each dev's first leaf */
	struct pcie {
		int gen, width;
		double link;
	} *pcie;
	int64_t end; /* the last row's end: the thread's until done */

	/* the queue: windows [taken, made) of ring (QUEUE_WINDOWS × nleaf);
	 * taken counts the windows the reader is done with */
	double *ring;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t made, taken; /* published, under lock */
	bool done, stop;      /* under lock */
	uint64_t made_own, taken_seen; /* the thread's own */
	uint64_t taken_own, made_seen; /* the reader's own */
	pthread_t thread;
	bool running;

	/* how the thread ended: a sysexits code, why in e (about bad_line) */
	int code;
	uint64_t bad_line;
	struct errbuf e;
	bool reported;
};

struct verdict_grid {
	const char *dir;
	struct gsource src[VS_COUNT];
	bool read[VS_COUNT];
	int64_t window;
	bool psi;
	int cpus;
	uint64_t k;          /* the next window's index */
	bool have_next;      /* next is the window after the one to return */
	struct verdict_grid_window next;
	bool ended;
	int code;
};

static int add_leaf(struct gsource *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_leaf(struct gsource *s, const char *fmt, ...)
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

static int plain_leaves(struct gsource *s, const char *const *names, size_t n)
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
static int choose_leaves(struct gsource *s)
{
	size_t i;
	const json_t *d;
	switch (s->id) {
	case VS_TASKSTATS:
		return plain_leaves(s, taskstats_leaves, T_COUNT);
	case VS_CGROUP:
		return plain_leaves(s, cgroup_leaves, C_COUNT);
	case VS_BLOCK_IO:
		return plain_leaves(s, block_io_leaves, 4);
	case VS_WAITS:
	case VS_OFFCPU: {
		if (plain_leaves(s, verdict_wait_fields, VW_COUNT) < 0 || add_leaf(s, "nthreads") < 0)
			return -ENOMEM;
		const json_t *mounts = json_object_get(s->entry, "mounts");
		s->dev = calloc(json_object_size(mounts) + 1, sizeof(*s->dev));
		s->what = calloc(json_object_size(mounts) + 1, sizeof(*s->what));
		if (!s->dev || !s->what)
			return -ENOMEM;
		const char *point;
		json_object_foreach((json_t *)mounts, point, d) {
			const char *type = json_string_value(json_object_get(d, "fstype"));
			const char *server = json_string_value(json_object_get(d, "server"));
			const char *comm = json_string_value(json_object_get(d, "daemon_comm"));
			bool fuse = !server;
			int r = server ? asprintf(&s->what[s->ndev], "%s, server %s", type ? type : "?", server)
				: comm ? asprintf(&s->what[s->ndev], "%s, daemon %s (pid %lld)", type ? type : "fuse", comm,
						  (long long)json_integer_value(json_object_get(d, "daemon_pid")))
				       : asprintf(&s->what[s->ndev], "%s", type ? type : "fuse");
			if (r < 0)
				return -ENOMEM;
			s->dev[s->ndev++] = point;
			/* a mount point may hold dots: its keys apart as row_pick reads them */
			if (add_leaf(s, "by_mount%c%s%c%s", ROW_PICK_SEP, point, ROW_PICK_SEP,
				     fuse ? "fuse_ns" : "remote_fs_ns") < 0)
				return -ENOMEM;
		}
		return 0;
	}
	case VS_NET: {
		const json_t *ifs = json_object_get(s->entry, "interfaces"), *mounts = json_object_get(s->entry, "mounts");
		size_t n = json_array_size(ifs) + json_object_size(mounts) + 1;
		s->dev = calloc(n, sizeof(*s->dev));
		s->what = calloc(n, sizeof(*s->what));
		s->off = calloc(n, sizeof(*s->off));
		if (!s->dev || !s->what || !s->off || add_leaf(s, "tcp_retrans_segs") < 0)
			return -ENOMEM;
		json_array_foreach(ifs, i, d) {
			if (!json_is_string(d))
				continue;
			s->off[s->ndev] = s->nleaf;
			s->dev[s->ndev++] = json_string_value(d);
			for (size_t l = 0; l < NI_COUNT; l++)
				if (add_leaf(s, "by_interface%c%s%c%s", ROW_PICK_SEP, json_string_value(d), ROW_PICK_SEP,
					     net_if_leaves[l]) < 0)
					return -ENOMEM;
		}
		s->nif = s->ndev;
		const char *point;
		json_object_foreach((json_t *)mounts, point, d) {
			/* a FUSE mount: its requests waiting; an NFS one: its RPCs */
			static const char *const fuse_leaves[] = {"waiting"};
			bool fuse = !json_object_get(d, "server");
			const char *const *names = fuse ? fuse_leaves : net_nfs_leaves;
			s->off[s->ndev] = s->nleaf;
			if (fuse && !(s->what[s->ndev] = strdup("fuse")))
				return -ENOMEM;
			s->dev[s->ndev++] = point;
			for (size_t l = 0; l < (fuse ? 1 : NN_COUNT); l++)
				if (add_leaf(s, "by_mount%c%s%c%s", ROW_PICK_SEP, point, ROW_PICK_SEP, names[l]) < 0)
					return -ENOMEM;
		}
		return 0;
	}
	case VS_DISKSTATS:
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
	case VS_GPU: {
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

/* ---- the queue ------------------------------------------------------------------- */

/* The thread's next slot, once the reader has left room: NULL when the
 * reader stopped. */
static double *queue_slot(struct gsource *s)
{
	if (s->made_own - s->taken_seen == QUEUE_WINDOWS) {
		pthread_mutex_lock(&s->lock);
		s->made = s->made_own;
		pthread_cond_signal(&s->cond);
		while (s->made_own - s->taken == QUEUE_WINDOWS && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		s->taken_seen = s->taken;
		bool stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			return NULL;
	}
	return s->ring + (s->made_own % QUEUE_WINDOWS) * s->nleaf;
}

static void queue_publish(struct gsource *s, bool done)
{
	pthread_mutex_lock(&s->lock);
	s->made = s->made_own;
	s->done = s->done || done;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* The reader's next window of s: its leaves (valid until the next call), or
 * NULL when s has no more. */
static const double *queue_take(struct gsource *s)
{
	if (s->taken_own == s->made_seen) {
		pthread_mutex_lock(&s->lock);
		s->taken = s->taken_own;
		pthread_cond_signal(&s->cond);
		while (s->made == s->taken_own && !s->done)
			pthread_cond_wait(&s->cond, &s->lock);
		s->made_seen = s->made;
		pthread_mutex_unlock(&s->lock);
		if (s->taken_own == s->made_seen)
			return NULL;
	}
	const double *v = s->ring + (s->taken_own % QUEUE_WINDOWS) * s->nleaf;
	if (++s->taken_own % QUEUE_BATCH == 0) {
		/* done with those before the one given now, which the reader
		 * still reads until it asks for the next */
		pthread_mutex_lock(&s->lock);
		s->taken = s->taken_own - 1;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
	return v;
}

/* ---- a source's thread: rows onto windows ------------------------------------ */

/* A leaf's keys (parted by ROW_PICK_SEP where it has one, else by dots),
 * in buf; NULL-terminated in keys. */
static void leaf_keys(const char *leaf, char *buf, size_t cap, char **keys, size_t nkeys)
{
	char sep = strchr(leaf, ROW_PICK_SEP) ? ROW_PICK_SEP : '.';
	snprintf(buf, cap, "%s", leaf);
	size_t n = 0;
	for (char *k = buf; k && n + 1 < nkeys; n++) {
		keys[n] = k;
		if ((k = strchr(k, sep)))
			*k++ = '\0';
	}
	keys[n] = NULL;
}

/* The rules of s's leaves from its first row's shape (the schema's x-cell
 * and x-gauge, as export combines them); a leaf the rows lack is null. A
 * leaf in an object whose members come and go (net's by_mount) may be in
 * later rows only, or leave: read where a row has it (optional), its rule
 * from the schema. */
static int learn_rules(struct gsource *s, const char *text, size_t len, struct cell_leaf *rule,
		       bool *present, bool *optional)
{
	json_error_t je;
	json_t *row = json_loadb(text, len, 0, &je);
	struct row_shape shape;
	if (!json_is_object(row)) {
		json_decref(row);
		return errbuf_set(&s->e, EINVAL, "%s", row ? "not a JSON object" : je.text);
	}
	int r = row_shape_learn(&shape, s->schemas, verdict_source_names[s->id], row, &s->e);
	json_decref(row);
	for (size_t l = 0; r == 0 && l < s->nleaf; l++) {
		rule[l] = (struct cell_leaf){.rule = CELL_SUM, .num = -1, .den = -1};
		present[l] = false;
		char dotted[1024]; /* the leaf as export names it */
		snprintf(dotted, sizeof(dotted), "%s", s->leaf[l]);
		for (char *c = dotted; *c; c++)
			*c = *c == ROW_PICK_SEP ? '.' : *c;
		for (size_t i = 0; i < shape.n; i++)
			if (!strcmp(shape.name[i], dotted)) {
				rule[l].rule = shape.leaf[i].rule; /* none of the leaves read is a ratio */
				present[l] = true;
			}
		char buf[1024], *keys[16];
		enum cell_rule from_schema;
		leaf_keys(s->leaf[l], buf, sizeof(buf), keys, 16);
		optional[l] = row_shape_leaf_varies(s->schemas, verdict_source_names[s->id], keys, &from_schema);
		if (optional[l] && !present[l]) {
			rule[l].rule = from_schema;
			present[l] = true;
		}
	}
	row_shape_free(&shape);
	return r;
}

struct reading {
	struct jsonl_reader r;
	struct row_pick pick;
	struct cell_leaf *rule;
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
static int advance(struct gsource *s, struct reading *x)
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

/* The picker and the cells, from the file's first row (the leaves' rules),
 * then the reader back at that row. */
static int start_reading(struct gsource *s, struct reading *x, const char *text, size_t len)
{
	bool *present = calloc(s->nleaf + 1, sizeof(*present));
	bool *optional = calloc(s->nleaf + 1, sizeof(*optional));
	bool *picked_optional = calloc(s->nleaf + 1, sizeof(*picked_optional));
	x->rule = calloc(s->nleaf + 1, sizeof(*x->rule));
	x->picked = calloc(s->nleaf + 1, sizeof(*x->picked));
	x->slot = calloc(s->nleaf + 1, sizeof(*x->slot));
	x->v = calloc(s->nleaf + 1, sizeof(*x->v));
	int r = 0;
	if (!present || !optional || !picked_optional || !x->rule || !x->picked || !x->slot || !x->v)
		r = errbuf_set(&s->e, ENOMEM, "out of memory");
	else if ((r = learn_rules(s, text, len, x->rule, present, optional)) == 0) {
		for (size_t l = 0; l < s->nleaf; l++)
			if (present[l]) {
				picked_optional[x->npicked] = optional[l];
				x->slot[x->npicked] = l;
				x->picked[x->npicked++] = s->leaf[l];
			}
		if (row_pick_init(&x->pick, x->picked, x->npicked) < 0 ||
		    cells_init(&x->cells, x->rule, s->nleaf) < 0)
			r = errbuf_set(&s->e, ENOMEM, "out of memory");
		else {
			x->pick.optional = picked_optional;
			picked_optional = NULL;
		}
	}
	free(present);
	free(optional);
	free(picked_optional);
	if (r < 0) {
		s->bad_line = 1;
		return r;
	}
	jsonl_reader_close(&x->r);
	if ((r = jsonl_reader_open(&x->r, s->dirfd, s->file, &s->e)) < 0)
		return r;
	return advance(s, x);
}

static int read_rows(struct gsource *s, struct reading *x)
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
	if ((r = jsonl_reader_next(&x->r, &text, &len, &s->e)) <= 0)
		return r; /* no rows */
	if ((r = start_reading(s, x, text, len)) < 0)
		goto bad_line;
	for (int64_t c0 = 0; x->has_row; c0 += s->window) {
		cells_clear(&x->cells);
		while (x->has_row) {
			int c = cells_take(&x->cells, c0, c0 + s->window);
			if (c == -ERANGE) {
				r = errbuf_set(&s->e, ERANGE, "a sum beyond 2^63");
				break;
			}
			if (c != CELLS_USED || (r = advance(s, x)) < 0)
				break;
		}
		if (r < 0)
			goto bad_line;
		double *slot = queue_slot(s);
		if (!slot)
			return 0; /* the reader stopped */
		const struct value *v = cells_finish(&x->cells);
		for (size_t l = 0; l < s->nleaf; l++)
			slot[l] = v[l].kind == VAL_INT ? (double)v[l].i : v[l].kind == VAL_REAL ? v[l].d : NAN;
		if (++s->made_own % QUEUE_BATCH == 0)
			queue_publish(s, false);
	}
	if (x->r.damage[0] && !s->incomplete) {
		s->bad_line = 0;
		return errbuf_set(&s->e, EINVAL, "%s", x->r.damage);
	}
	return 0;
bad_line:
	s->bad_line = x->line ? x->line : 1;
	return r;
}

static void *read_source(void *arg)
{
	struct gsource *s = arg;
	struct reading x = {0};
	int r = read_rows(s, &x);
	if (r < 0 && !s->code)
		s->code = r == -ENOMEM ? EX_SOFTWARE : r == -EINVAL || r == -ERANGE ? EX_DATAERR : EX_IOERR;
	jsonl_reader_close(&x.r);
	row_pick_free(&x.pick);
	cells_free(&x.cells);
	free(x.rule);
	free(x.picked);
	free(x.slot);
	free(x.v);
	queue_publish(s, true);
	return NULL;
}

/* ---- the reader: a window of every source ------------------------------------ */

static double at(const double *v, size_t l)
{
	return v ? v[l] : NAN;
}

static void fill_disk(struct verdict_in *in, const struct gsource *s, const double *v)
{
	for (size_t d = 0; v && d < s->ndev; d++) {
		double util = v[d * K_COUNT + K_UTIL];
		if (isnan(util) || (in->disk && !(util > in->disk_util)))
			continue;
		in->disk = s->dev[d];
		in->disk_util = util;
		in->disk_read_bytes = v[d * K_COUNT + K_READ_BYTES];
		in->disk_read_ops = v[d * K_COUNT + K_READ_OPS];
		in->disk_write_bytes = v[d * K_COUNT + K_WRITE_BYTES];
		in->disk_write_ops = v[d * K_COUNT + K_WRITE_OPS];
	}
}

/* The GPUs the tree has processes on; every GPU that gave a reading where
 * NVML lists no process for any (the driver does not say whose). PCIe's
 * figures are bytes here, rates once verdict_grid_next knows the window's
 * width (the last window's is known only after it). */
static void fill_gpu(struct verdict_in *in, const struct gsource *s, const double *v)
{
	if (!v)
		return;
	bool known = false;
	for (size_t d = 0; d < s->ndev; d++)
		known = known || !isnan(v[d * G_COUNT + G_PROCS]);
	double busy = 0;
	in->gpus = 0;
	in->gpu_busy = 0;
	in->pcie_h2d = in->pcie_d2h = 0;
	for (size_t d = 0; d < s->ndev; d++) {
		double util = v[d * G_COUNT + G_UTIL], procs = v[d * G_COUNT + G_PROCS];
		if (known ? !(procs > 0) : isnan(util))
			continue;
		in->gpus++;
		busy += isnan(util) ? 0 : util / 100;
		double h2d = v[d * G_COUNT + G_RX], d2h = v[d * G_COUNT + G_TX];
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

/* waits' or offcpu's classes into to[], and (waits) the mount waited on
 * most. */
static void fill_waits(struct verdict_in *in, double *to, const struct gsource *s, const double *v)
{
	for (int c = 0; c < VW_COUNT; c++)
		to[c] = v ? v[c] : NAN;
	if (!v || to != in->waits)
		return;
	for (size_t m = 0; m < s->ndev; m++) {
		double ns = v[VW_COUNT + 1 + m];
		if (!isnan(ns) && ns > 0 && !(ns <= in->mount_ns)) {
			in->mount = s->dev[m];
			in->mount_what = s->what[m];
			in->mount_ns = ns;
		}
	}
}

/* net's figures for the window: the mount the waits found the tree waiting
 * on most (after fill_waits), the busiest interface, TCP's retransmits. */
static void fill_net(struct verdict_in *in, const struct gsource *s, const double *v)
{
	if (!v)
		return;
	in->net_retrans = v[0];
	for (size_t d = 0; d < s->nif; d++) {
		const double *f = v + s->off[d];
		double bytes = f[NI_RX] + f[NI_TX];
		if (isnan(bytes) || (in->net_if && !(bytes > in->net_if_rx + in->net_if_tx)))
			continue;
		in->net_if = s->dev[d];
		in->net_if_rx = f[NI_RX];
		in->net_if_tx = f[NI_TX];
		in->net_if_speed = f[NI_SPEED];
	}
	for (size_t d = s->nif; in->mount && d < s->ndev; d++) {
		if (strcmp(s->dev[d], in->mount))
			continue;
		const double *f = v + s->off[d];
		if (s->what[d]) {
			in->net_waiting = f[0];
		} else {
			in->net_ops = f[NN_OPS];
			in->net_rtt_ns = f[NN_RTT];
			in->net_read_bytes = f[NN_READ];
			in->net_write_bytes = f[NN_WRITE];
		}
	}
}

/* Says once what ended s's thread early, naming the file and line. */
static int source_failed(struct verdict_grid *g, struct gsource *s)
{
	if (!s->reported) {
		s->reported = true;
		if (s->bad_line)
			log_error("%s/%s:%llu: %s", g->dir, s->file, (unsigned long long)s->bad_line,
				  s->e.msg);
		else
			log_error("%s/%s: %s", g->dir, s->file, s->e.msg);
	}
	return s->code;
}

/* Window g->k of every source into w: 1, 0 when no source that decides
 * has it, or a sysexits code. */
static int take_window(struct verdict_grid *g, struct verdict_grid_window *w)
{
	const double *v[VS_COUNT] = {0};
	bool any = false;
	for (int i = 0; i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		if (!g->read[i] || !verdict_source_decides((enum verdict_source)i))
			continue;
		v[i] = queue_take(s);
		if (!v[i] && s->code)
			return source_failed(g, s);
		any = any || v[i];
	}
	if (!any)
		return 0;
	for (int i = 0; i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		if (!g->read[i] || verdict_source_decides((enum verdict_source)i))
			continue;
		v[i] = queue_take(s);
		if (!v[i] && s->code)
			return source_failed(g, s);
	}
	w->t_start = (int64_t)g->k * g->window;
	w->t_end = w->t_start + g->window;
	g->k++;
	struct verdict_in *in = &w->in;
	verdict_in_clear(in);
	in->window_ns = (double)g->window;
	in->cpus = g->cpus;
	const double *ts = v[VS_TASKSTATS], *cg = v[VS_CGROUP], *bio = v[VS_BLOCK_IO];
	w->run_ns = at(ts, T_RUN);
	for (int d = 0; d < VD_COUNT; d++) {
		w->delay_ns[d] = at(ts, T_DELAYS + d);
		w->delay_count[d] = at(ts, T_COUNTS + d);
	}
	in->swapin_count = at(ts, T_COUNTS + VD_SWAPIN);
	in->blkio_count = at(ts, T_COUNTS + VD_BLKIO);
	in->read_bytes = at(ts, T_READ);
	in->write_bytes = at(ts, T_WRITE);
	in->nthreads = at(ts, T_NTHREADS);
	w->usage_ns = at(cg, C_USAGE);
	w->system_ns = at(cg, C_SYSTEM);
	in->throttled_ns = at(cg, C_THROTTLED);
	in->tree_cpus = at(cg, C_TREE_CPUS);
	in->ancestor_throttled_ns = at(cg, C_ANCESTOR_THROTTLED);
	in->memory_high_events = at(cg, C_MEMORY_HIGH);
	in->memory_bytes = at(cg, C_MEMORY);
	in->majfaults = at(cg, C_MAJFAULT);
	if (g->psi) {
		in->cpu_some_ns = at(cg, C_CPU_SOME);
		in->io_some_ns = at(cg, C_IO_SOME);
		in->memory_some_ns = at(cg, C_MEM_SOME);
	}
	fill_disk(in, &g->src[VS_DISKSTATS], v[VS_DISKSTATS]);
	fill_gpu(in, &g->src[VS_GPU], v[VS_GPU]);
	fill_waits(in, in->waits, &g->src[VS_WAITS], v[VS_WAITS]);
	fill_waits(in, in->offcpu, &g->src[VS_OFFCPU], v[VS_OFFCPU]);
	fill_net(in, &g->src[VS_NET], v[VS_NET]);
	if (isnan(in->nthreads) && v[VS_WAITS])
		in->nthreads = v[VS_WAITS][VW_COUNT];
	in->bio_read_bytes = at(bio, 0);
	in->bio_read_ops = at(bio, 1);
	in->bio_write_bytes = at(bio, 2);
	in->bio_write_ops = at(bio, 3);
	return 1;
}

int verdict_grid_next(struct verdict_grid *g, struct verdict_grid_window *w)
{
	if (g->code || g->ended)
		return g->code;
	int r = 1;
	if (!g->have_next && (r = take_window(g, &g->next)) != 1) {
		g->ended = true;
		return g->code = r;
	}
	*w = g->next;
	g->have_next = (r = take_window(g, &g->next)) == 1;
	if (r != 1 && r != 0)
		return g->code = r;
	if (!g->have_next) { /* w is the last: it ends with the last row */
		int64_t end = w->t_start;
		for (int i = 0; i < VS_COUNT; i++)
			if (g->read[i] && verdict_source_decides((enum verdict_source)i) && g->src[i].end > end)
				end = g->src[i].end; /* the thread is done: its end is read */
		w->t_end = end;
		w->in.window_ns = (double)(w->t_end - w->t_start);
		g->ended = true;
	}
	if (w->in.gpus && w->in.window_ns > 0) {
		w->in.pcie_h2d /= w->in.window_ns / 1e9;
		w->in.pcie_d2h /= w->in.window_ns / 1e9;
	}
	return 1;
}

struct verdict_grid *verdict_grid_open(int dirfd, const char *dir, bool incomplete,
				       const struct jschema_set *schemas,
				       const struct verdict_grid_source src[VS_COUNT],
				       int64_t window_ns, bool psi, int cpus)
{
	struct verdict_grid *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->dir = dir;
	g->window = window_ns;
	g->psi = psi;
	g->cpus = cpus;
	for (int i = 0; i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		*s = (struct gsource){
			.id = (enum verdict_source)i, .dir = dir, .file = src[i].file,
			.entry = src[i].entry, .interval = src[i].interval, .window = window_ns,
			.dirfd = dirfd, .incomplete = incomplete, .schemas = schemas,
		};
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->cond, NULL);
		if (!src[i].file)
			continue;
		g->read[i] = true;
		if (choose_leaves(s) < 0 ||
		    !(s->ring = calloc((size_t)QUEUE_WINDOWS * (s->nleaf ? s->nleaf : 1), sizeof(*s->ring)))) {
			verdict_grid_close(g, false);
			return NULL;
		}
	}
	for (int i = 0; i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		if (!g->read[i])
			continue;
		s->running = pthread_create(&s->thread, NULL, read_source, s) == 0;
		if (!s->running) {
			verdict_grid_close(g, false);
			return NULL;
		}
	}
	return g;
}

int verdict_grid_close(struct verdict_grid *g, bool check)
{
	if (!g)
		return 0;
	int code = g->code;
	/* what is left of every file, read to its end: damage there refuses a
	 * complete episode as damage before the last window does */
	for (int i = 0; check && !code && i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		while (g->read[i] && s->running && queue_take(s))
			;
		if (g->read[i] && s->code)
			code = source_failed(g, s);
	}
	for (int i = 0; i < VS_COUNT; i++) {
		struct gsource *s = &g->src[i];
		if (s->running) {
			pthread_mutex_lock(&s->lock);
			s->stop = true;
			pthread_cond_signal(&s->cond);
			pthread_mutex_unlock(&s->lock);
			pthread_join(s->thread, NULL);
		}
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
		for (size_t l = 0; l < s->nleaf; l++)
			free(s->leaf[l]);
		free(s->leaf);
		free(s->ring);
		free(s->pcie);
		for (size_t d = 0; s->id == VS_GPU && d < s->ndev; d++)
			free((char *)s->dev[d]);
		for (size_t d = 0; s->what && d < s->ndev; d++)
			free(s->what[d]);
		free(s->what);
		free(s->dev);
		free(s->off);
	}
	free(g);
	return code;
}
