// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* compare.h: the pairs, export's cells read back, and each pair's figures
 * (pair_stats.c). */
#define _GNU_SOURCE
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <yaml.h>

#include "builtin_schemas.h"
#include "config_yaml.h"
#include "json_schema.h"
#include "log.h"
#include "manifest_read.h"
#include "pair_stats.h"

/* A side of a pair: export's column, or columns added up ("a+b": null when
 * one is). */
#define SIDE_PARTS 4
struct side {
	char name[256];
	size_t nparts;
	char *part[SIDE_PARTS];
	int col[SIDE_PARTS]; /* in the table read back; -1 when absent */
};

struct pair {
	struct side side[2]; /* deployable, oracle */
	double *cell[2];     /* each cell's value, NAN for null */
};

/* The pairs compare shows by default, where the episodes have both sides:
 * each is a deployable field and the oracle field that counts the same
 * thing (docs/data-model.md lists why each should agree, and where not). */
static const char *const default_pairs[][2] = {
	{"proc_io.rchar", "syscall_io.read_bytes"},
	{"proc_io.wchar", "syscall_io.write_bytes"},
	{"proc_io.syscr", "syscall_io.read_calls"},
	{"proc_io.syscw", "syscall_io.write_calls"},
	{"proc_io.read_bytes", "block_io.read_bytes"},
	{"taskstats.read_bytes", "block_io.read_bytes"},
	{"cgroup.io_read_bytes", "block_io.read_bytes"},
	{"diskstats.read_bytes", "block_io.all_read_bytes"},
	{"diskstats.write_bytes", "block_io.all_write_bytes"},
	{"diskstats.read_ops", "block_io.all_read_ops"},
	{"diskstats.write_ops", "block_io.all_write_ops"},
	{"taskstats.cpu_run_real_ns", "perf_event.task_clock"},
	{"cgroup.cpu_usage_ns", "perf_event.task_clock"},
	{"cgroup.pgfault", "perf_event.page_faults"},
	{"taskstats.voluntary_ctxsw+taskstats.involuntary_ctxsw", "perf_event.context_switches"},
	{"waits.running_ns", "offcpu.running_ns"},
	{"waits.runnable_ns", "offcpu.runnable_ns"},
	{"waits.disk_ns", "offcpu.disk_ns"},
	{"waits.paging_ns", "offcpu.paging_ns"},
	{"waits.network_ns", "offcpu.network_ns"},
	{"waits.remote_fs_ns", "offcpu.remote_fs_ns"},
	{"waits.fuse_ns", "offcpu.fuse_ns"},
	{"waits.lock_ns", "offcpu.lock_ns"},
	{"waits.ipc_ns", "offcpu.ipc_ns"},
	{"waits.child_ns", "offcpu.child_ns"},
	{"waits.sleep_ns", "offcpu.sleep_ns"},
	{"waits.other_ns", "offcpu.other_ns"},
};

struct compare {
	struct pair *pair;
	size_t npair;
	/* the table read back: its cells, each one's episode */
	size_t ncell, cap;
	size_t *ep;
	char **episodes;
	size_t nep;
	int64_t grid_ns;
};

struct compare *compare_new(void)
{
	return calloc(1, sizeof(struct compare));
}

/* ---- pairs ----------------------------------------------------------------- */

/* Whether the schemas know column name (SOURCE.LEAF, the leaf's parts
 * properties or array indexes), as export would name it. */
static bool known_column(const struct jschema_set *set, const char *name)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", name);
	char *dot = strchr(buf, '.');
	if (!dot)
		return false;
	*dot = '\0';
	if (!builtin_schemas_is_source(set, buf))
		return false;
	const json_t *s = jschema_root(set, buf);
	char *save = NULL;
	for (char *part = strtok_r(dot + 1, ".", &save); part && s; part = strtok_r(NULL, ".", &save)) {
		bool index = part[strspn(part, "0123456789")] == '\0';
		s = jschema_sub(set, buf, s, index ? NULL : part);
	}
	return s != NULL;
}

/* side's name split at '+', each part a column the schemas know. */
static int set_side(struct side *s, const char *name, const struct jschema_set *set, const char **bad)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	char *save = NULL, *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	for (char *p = strtok_r(copy, "+", &save); p; p = strtok_r(NULL, "+", &save)) {
		if (s->nparts == SIDE_PARTS || !known_column(set, p)) {
			*bad = name;
			free(copy);
			for (size_t i = 0; i < s->nparts; i++)
				free(s->part[i]);
			s->nparts = 0;
			return -EINVAL;
		}
		s->part[s->nparts] = strdup(p);
		s->col[s->nparts++] = -1;
	}
	free(copy);
	return s->nparts ? 0 : -EINVAL;
}

static int add_pair(struct compare *x, const char *d, const char *o, const struct jschema_set *set,
		    const char **bad)
{
	struct pair *p = realloc(x->pair, (x->npair + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	x->pair = p;
	p = &x->pair[x->npair];
	memset(p, 0, sizeof(*p));
	int r = set_side(&p->side[0], d, set, bad);
	if (r == 0 && (r = set_side(&p->side[1], o, set, bad)) < 0) {
		for (size_t i = 0; i < p->side[0].nparts; i++)
			free(p->side[0].part[i]);
	}
	if (r == 0)
		x->npair++;
	return r;
}

/* One pair of a --pairs file, as its keys are read. */
struct pairs_file {
	const char *d, *o;
	yaml_node_t *dnode, *onode;
};

static int pair_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		    yaml_node_t *value)
{
	struct pairs_file *f = arg;
	const char **out = !strcmp(key, "deployable") ? &f->d : !strcmp(key, "oracle") ? &f->o : NULL;
	if (!out)
		return cfg_fail(c, key_node, "unknown key \"%s\" (a pair has deployable and oracle)", key);
	if (out == &f->d)
		f->dnode = value;
	else
		f->onode = value;
	return cfg_string(c, value, out);
}

int compare_read_pairs(struct compare *x, const char *path, const struct jschema_set *set)
{
	FILE *in = fopen(path, "re");
	if (!in) {
		log_error("%s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	char *text = NULL;
	size_t size = 0;
	ssize_t len = getdelim(&text, &size, '\0', in); /* the whole file */
	fclose(in);
	yaml_parser_t parser;
	yaml_document_t doc;
	struct errbuf err = {0};
	if (cfg_load(&parser, &doc, path, text ? text : "", len > 0 ? (size_t)len : 0, &err) < 0) {
		log_error("%s", err.msg);
		free(text);
		return EX_DATAERR;
	}
	struct cfg_ctx c = {.doc = &doc, .file = path, .err = &err};
	int code = 0;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_SEQUENCE_NODE || root->data.sequence.items.start ==
								     root->data.sequence.items.top) {
		if (root)
			cfg_fail(&c, root, "the pairs must be a list of {deployable: SOURCE.FIELD, "
					   "oracle: SOURCE.FIELD}");
		else
			errbuf_set(&err, EINVAL, "%s:1:1: no pairs", path);
		code = EX_DATAERR;
	}
	for (yaml_node_item_t *it = code ? NULL : root->data.sequence.items.start;
	     it && it < root->data.sequence.items.top && !code; it++) {
		struct pairs_file f = {0};
		yaml_node_t *item = cfg_node(&c, *it);
		const char *bad = NULL;
		if (cfg_each_key(&c, item, "a pair", pair_key, &f) < 0) {
			code = EX_DATAERR;
		} else if (!f.d || !f.o) {
			cfg_fail(&c, item, "a pair needs deployable and oracle");
			code = EX_DATAERR;
		} else if (add_pair(x, f.d, f.o, set, &bad) < 0) {
			cfg_fail(&c, bad == f.d ? f.dnode : f.onode,
				 "\"%s\" is no field of a source's rows (SOURCE.FIELD, as export names its "
				 "columns; fields added up with +)",
				 bad ? bad : "?");
			code = EX_DATAERR;
		}
	}
	if (code)
		log_error("%s", err.msg);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	return code;
}

int compare_default_pairs(struct compare *x, const struct jschema_set *set)
{
	for (size_t i = 0; i < sizeof(default_pairs) / sizeof(default_pairs[0]); i++) {
		const char *bad = NULL;
		if (add_pair(x, default_pairs[i][0], default_pairs[i][1], set, &bad) < 0) {
			log_error("compare: the default pair %s is no field", bad ? bad : default_pairs[i][0]);
			return EX_SOFTWARE;
		}
	}
	return 0;
}

/* ---- what export must write ------------------------------------------------------ */

static void drop_pair(struct pair *p)
{
	for (int k = 0; k < 2; k++) {
		free(p->cell[k]);
		for (size_t j = 0; j < p->side[k].nparts; j++)
			free(p->side[k].part[j]);
	}
}

/* Whether manifest m has rows of every source side s reads. */
static bool has_side(const json_t *m, const struct side *s)
{
	for (size_t i = 0; i < s->nparts; i++) {
		char src[256];
		snprintf(src, sizeof(src), "%.*s", (int)strcspn(s->part[i], "."), s->part[i]);
		const json_t *e = json_object_get(json_object_get(m, "sources"), src);
		if (!json_string_value(json_object_get(e, "file")))
			return false;
	}
	return true;
}

static int add_source(char **list, const char *part)
{
	int n = (int)strcspn(part, ".");
	for (const char *at = *list; at && *at;) { /* already listed */
		size_t len = strcspn(at, ",");
		if ((int)len == n && !strncmp(at, part, len))
			return 0;
		at += len + (at[len] == ',');
	}
	char *more;
	if (asprintf(&more, "%s%s%.*s", *list ? *list : "", *list ? "," : "", n, part) < 0)
		return -ENOMEM;
	free(*list);
	*list = more;
	return 0;
}

int compare_plan(struct compare *x, char **dirs, size_t n, const struct jschema_set *set,
		 char **sources, int64_t *grid_ns)
{
	*sources = NULL;
	*grid_ns = 0;
	bool *applies = calloc(x->npair + 1, sizeof(*applies));
	if (!applies)
		return EX_SOFTWARE;
	int code = 0;
	for (size_t e = 0; e < n && !code; e++) {
		int dirfd;
		json_t *m;
		if ((code = manifest_load(dirs[e], set, &dirfd, &m)))
			break;
		close(dirfd);
		const char *name;
		const json_t *src;
		json_object_foreach(json_object_get(m, "sources"), name, src) {
			int64_t iv = json_integer_value(json_object_get(src, "interval_ns"));
			if (json_string_value(json_object_get(src, "file")) && iv > *grid_ns)
				*grid_ns = iv;
		}
		for (size_t p = 0; p < x->npair; p++)
			applies[p] = applies[p] || (has_side(m, &x->pair[p].side[0]) && has_side(m, &x->pair[p].side[1]));
		json_decref(m);
	}
	size_t kept = 0;
	for (size_t p = 0; p < x->npair; p++) {
		if (!applies[p]) {
			drop_pair(&x->pair[p]);
			continue;
		}
		for (int k = 0; k < 2 && !code; k++)
			for (size_t j = 0; j < x->pair[p].side[k].nparts && !code; j++)
				if (add_source(sources, x->pair[p].side[k].part[j]) < 0)
					code = EX_SOFTWARE;
		x->pair[kept++] = x->pair[p];
	}
	x->npair = kept;
	x->grid_ns = *grid_ns;
	free(applies);
	return code;
}

/* ---- the cells ----------------------------------------------------------------- */

static double cell_value(const json_t *row, const struct side *s, const char *const *names)
{
	double v = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		if (s->col[i] < 0)
			return NAN;
		const json_t *j = json_object_get(row, names[s->col[i]]);
		if (!json_is_number(j))
			return NAN;
		v += json_number_value(j);
	}
	return v;
}

static int push_cell(struct compare *x, size_t ep)
{
	if (x->ncell == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 1024;
		size_t *e = realloc(x->ep, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		x->ep = e;
		for (size_t p = 0; p < x->npair; p++)
			for (int k = 0; k < 2; k++) {
				double *v = realloc(x->pair[p].cell[k], cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				x->pair[p].cell[k] = v;
			}
		x->cap = cap;
	}
	x->ep[x->ncell++] = ep;
	return 0;
}

/* The columns of the table's first row; each side's parts found there.
 * A pair with a part no episode has is dropped. */
static void find_columns(struct compare *x, const json_t *row, const char ***names)
{
	size_t n = json_object_size(row), i = 0;
	const char *key;
	const json_t *v;
	*names = calloc(n ? n : 1, sizeof(**names));
	json_object_foreach((json_t *)row, key, v) (*names)[i++] = key;
	size_t kept = 0;
	for (size_t p = 0; p < x->npair; p++) {
		bool all = true;
		for (int k = 0; k < 2; k++)
			for (size_t j = 0; j < x->pair[p].side[k].nparts; j++) {
				x->pair[p].side[k].col[j] = -1;
				for (size_t c = 0; c < n; c++)
					if (!strcmp((*names)[c], x->pair[p].side[k].part[j]))
						x->pair[p].side[k].col[j] = (int)c;
				all &= x->pair[p].side[k].col[j] >= 0;
			}
		if (all)
			x->pair[kept++] = x->pair[p];
		else
			for (int k = 0; k < 2; k++)
				for (size_t j = 0; j < x->pair[p].side[k].nparts; j++)
					free(x->pair[p].side[k].part[j]);
	}
	x->npair = kept;
}

int compare_read_cells(struct compare *x, const char *path)
{
	FILE *in = fopen(path, "re");
	if (!in) {
		log_error("%s: %s", path, strerror(errno));
		return EX_SOFTWARE;
	}
	char *line = NULL;
	size_t cap = 0;
	const char **names = NULL;
	json_t *first = NULL;
	int code = 0;
	while (!code && getline(&line, &cap, in) > 0) {
		json_error_t e;
		json_t *row = json_loads(line, 0, &e);
		if (!json_is_object(row)) {
			log_error("%s: %s", path, e.text);
			json_decref(row);
			code = EX_SOFTWARE;
			break;
		}
		if (!first) {
			first = json_incref(row);
			find_columns(x, row, &names);
			x->grid_ns = json_integer_value(json_object_get(row, "t_end_ns")) -
				     json_integer_value(json_object_get(row, "t_start_ns"));
		}
		const char *name = json_string_value(json_object_get(row, "episode"));
		if (!name)
			name = "";
		if (!x->nep || strcmp(x->episodes[x->nep - 1], name)) {
			char **e = realloc(x->episodes, (x->nep + 1) * sizeof(*e));
			if (!e || !(e[x->nep] = strdup(name))) {
				free(e);
				code = EX_SOFTWARE;
				json_decref(row);
				break;
			}
			x->episodes = e;
			x->nep++;
		}
		if (push_cell(x, x->nep - 1) < 0) {
			code = EX_SOFTWARE;
		} else {
			for (size_t p = 0; p < x->npair; p++)
				for (int k = 0; k < 2; k++)
					x->pair[p].cell[k][x->ncell - 1] =
						cell_value(row, &x->pair[p].side[k], names);
		}
		json_decref(row);
	}
	free(line);
	free(names);
	json_decref(first); /* the names pointed into it */
	fclose(in);
	if (!first) { /* no cell: no column, so no pair */
		json_t *none = json_object();
		find_columns(x, none, &names);
		free(names);
		json_decref(none);
	}
	return code;
}

/* ---- the figures ---------------------------------------------------------------- */

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *figures(const struct pair_stats *s)
{
	return json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cells", (json_int_t)s->cells,
			 "deployable_total", num(s->deployable_total), "oracle_total",
			 num(s->oracle_total), "total_diff_pct", num(s->total_diff_pct), "mae",
			 num(s->mae), "pearson_r", num(s->pearson_r), "rel_err_p50", num(s->rel_err_p50),
			 "rel_err_p95", num(s->rel_err_p95), "within_1pct", num(s->within_1pct),
			 "best_lag_cells",
			 isnan(s->r_at_best_lag) ? json_null() : json_integer(s->best_lag_cells),
			 "r_at_best_lag", num(s->r_at_best_lag));
}

json_t *compare_figures(const struct compare *x, bool by_episode, bool cells)
{
	json_t *pairs = json_array(), *eps = json_array();
	for (size_t e = 0; e < x->nep; e++)
		json_array_append_new(eps, json_string(x->episodes[e]));
	for (size_t p = 0; p < x->npair; p++) {
		const struct pair *pr = &x->pair[p];
		struct pair_stats s;
		if (pair_stats(pr->cell[0], pr->cell[1], x->ep, x->ncell, &s) < 0)
			goto nomem;
		json_t *one = figures(&s);
		json_object_set_new(one, "deployable", json_string(pr->side[0].name));
		json_object_set_new(one, "oracle", json_string(pr->side[1].name));
		if (cells) { /* the cells where both are non-null */
			json_t *dv = json_array(), *ov = json_array();
			for (size_t k = 0; k < x->ncell; k++)
				if (!isnan(pr->cell[0][k]) && !isnan(pr->cell[1][k])) {
					json_array_append_new(dv, json_real(pr->cell[0][k]));
					json_array_append_new(ov, json_real(pr->cell[1][k]));
				}
			json_object_set_new(one, "d", dv);
			json_object_set_new(one, "o", ov);
		}
		if (by_episode) {
			json_t *by = json_array();
			for (size_t e = 0, k = 0; e < x->nep; e++) {
				size_t from = k;
				while (k < x->ncell && x->ep[k] == e)
					k++;
				if (pair_stats(pr->cell[0] + from, pr->cell[1] + from, x->ep + from, k - from,
					       &s) < 0) {
					json_decref(one);
					json_decref(by);
					goto nomem;
				}
				json_t *f = figures(&s);
				json_object_set_new(f, "episode", json_string(x->episodes[e]));
				json_array_append_new(by, f);
			}
			json_object_set_new(one, "by_episode", by);
		}
		json_array_append_new(pairs, one);
	}
	return json_pack("{s:I,s:o,s:o}", "grid_ns", (json_int_t)x->grid_ns, "episodes", eps, "pairs",
			 pairs);
nomem:
	json_decref(pairs);
	json_decref(eps);
	return NULL;
}

void compare_free(struct compare *x)
{
	if (!x)
		return;
	for (size_t p = 0; p < x->npair; p++)
		drop_pair(&x->pair[p]);
	free(x->pair);
	free(x->ep);
	for (size_t e = 0; e < x->nep; e++)
		free(x->episodes[e]);
	free(x->episodes);
	free(x);
}

