// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An episode's verdict written out as its windows come: see verdict_write.h. */
#define _GNU_SOURCE
#include "verdict_write.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "table.h"

/* ---- runs ----------------------------------------------------------------------- */

static void run_evidence(struct verdict_run *r)
{
	struct verdict_out out;
	verdict_decide(&r->sum, &out);
	verdict_evidence(&r->sum, &out, r->label, r->evidence, sizeof(r->evidence));
}

bool verdict_runs_add(struct verdict_runs *r, size_t k, const struct verdict_window *w,
		      struct verdict_run *done)
{
	bool ended = r->open && w->out.label != r->run.label;
	if (ended) {
		*done = r->run;
		run_evidence(done);
	}
	if (!r->open || ended) {
		r->open = true;
		r->run = (struct verdict_run){.first = k, .t_start = w->t_start, .label = w->out.label};
		verdict_in_clear(&r->run.sum);
	}
	r->run.last = k;
	r->run.t_end = w->t_end;
	verdict_in_add(&r->run.sum, &w->in);
	return ended;
}

bool verdict_runs_end(struct verdict_runs *r, struct verdict_run *done)
{
	if (!r->open)
		return false;
	*done = r->run;
	run_evidence(done);
	r->open = false;
	return true;
}

/* ---- words ---------------------------------------------------------------------- */

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

/* ---- text ------------------------------------------------------------------------ */

static void text_head(FILE *f, const struct verdict_episode *v, bool first)
{
	char win[32];
	duration_human(v->window_ns, win, sizeof(win));
	fprintf(f, "%s%s: episode %s, %s, windows of %s%s\n", first ? "" : "\n", v->dir, v->name,
		json_string_value(json_object_get(v->manifest, "status")), win,
		v->deployable_only ? ", deployable sources only" : "");
	const char *name;
	const json_t *s;
	json_object_foreach(v->sources, name, s)
		fprintf(f, "  %s: %s%s%s\n", name, json_string_value(json_object_get(s, "status")),
			json_object_get(s, "role") ? ": " : "",
			json_string_value(json_object_get(s, "role")) ?: "");
	char text[1024];
	size_t i;
	const json_t *c;
	json_array_foreach(v->cannot_tell, i, c) {
		verdict_cannot_tell_text(c, text, sizeof(text));
		fprintf(f, "  cannot tell apart: %s\n", text);
	}
	fprintf(f, "  %-17s %-9s", "time (s)", "verdict");
	for (int l = 0; l < V_LABELS; l++)
		fprintf(f, " %5.5s", l == V_CPU_WAIT ? "wait" : l == V_MEMORY ? "mem" : l == V_GPU_COPY ? "copy" : l == V_NETWORK ? "net" : verdict_label_names[l]);
	fprintf(f, "  evidence\n");
}

static void text_window(FILE *f, const struct verdict_window *w)
{
	char span[40];
	snprintf(span, sizeof(span), "%.2f-%.2f", w->t_start / 1e9, w->t_end / 1e9);
	fprintf(f, "  %-17s %-9s", span, verdict_label_names[w->out.label]);
	for (int l = 0; l < V_LABELS; l++)
		fprintf(f, " %5.0f", 100 * w->out.share[l]);
	fprintf(f, "  %s\n", w->out.evidence);
}

static void text_tail(FILE *f, const struct verdict_episode *v)
{
	if (!v->n) {
		fprintf(f, "  no rows: no verdict\n");
		return;
	}
	char text[1024];
	verdict_totals_text(v, text, sizeof(text));
	fprintf(f, "  over the episode, %zu windows: %s", v->n, text);
	fprintf(f, "\n  mostly %s: %s\n", verdict_label_names[v->label], v->evidence);
}

/* ---- JSON ------------------------------------------------------------------------ */

#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(6) | JSON_ENCODE_ANY)

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

static json_t *window_json(const struct verdict_episode *v, int64_t t_end, int64_t width,
			   enum verdict_label label, const double *share, const char *evidence)
{
	int64_t wall = json_integer_value(json_object_get(v->manifest, "t_wall_start_ns")) + t_end;
	return json_pack("{s:I, s:I, s:I, s:s, s:o, s:s}", "t_mono_ns", (json_int_t)t_end,
			 "t_wall_ns", (json_int_t)wall, "interval_ns", (json_int_t)width, "verdict",
			 verdict_label_names[label], "shares", shares_json(share), "evidence", evidence);
}

/* The JSON's members before "windows". */
static json_t *head_json(const struct verdict_episode *v)
{
	return json_pack("{s:s, s:s, s:I, s:b, s:O, s:O}", "episode", v->name, "status",
			 json_string_value(json_object_get(v->manifest, "status")), "window_ns",
			 (json_int_t)v->window_ns, "deployable_only", v->deployable_only, "sources",
			 v->sources, "cannot_tell", v->cannot_tell);
}

static json_t *totals_json(const struct verdict_episode *v)
{
	double time = 0;
	for (int l = 0; l < V_LABELS; l++)
		time += v->total_ns[l];
	json_t *ns = json_object(), *share = json_object(), *count = json_object();
	for (int l = 0; ns && share && count && l < V_LABELS; l++) {
		json_object_set_new(ns, verdict_label_names[l], json_integer((json_int_t)llround(v->total_ns[l])));
		json_object_set_new(share, verdict_label_names[l], share_json(time > 0 ? v->total_ns[l] / time : 0));
		json_object_set_new(count, verdict_label_names[l], json_integer((json_int_t)v->total_windows[l]));
	}
	return json_pack("{s:s?, s:s, s:o, s:o, s:o}", "verdict", v->n ? verdict_label_names[v->label] : NULL,
			 "evidence", v->n ? v->evidence : "no rows", "ns", ns, "share", share, "windows", count);
}

/* An object's text without its closing brace: the writer goes on with more
 * members. */
static void put_open_object(FILE *f, json_t *o)
{
	char *text = o ? json_dumps(o, JSON_FLAGS) : NULL;
	size_t n = text ? strlen(text) : 0;
	if (n >= 2) /* "{...}" less its "}" */
		fwrite(text, 1, n - 1, f);
	else
		fputc('{', f);
	free(text);
	json_decref(o);
}

static void put_json(FILE *f, json_t *o)
{
	if (o)
		json_dumpf(o, f, JSON_FLAGS);
	else
		fputs("null", f);
	json_decref(o);
}

/* ---- CSV ------------------------------------------------------------------------- */

struct table *verdict_csv_open(const char *path, struct errbuf *e)
{
	char *cols[6 + V_LABELS];
	size_t n = 0;
	static const char *const fixed[] = {"episode", "t_mono_ns", "t_wall_ns", "interval_ns", "verdict"};
	for (size_t i = 0; i < 5; i++)
		cols[n++] = (char *)fixed[i];
	char names[V_LABELS][32];
	for (int l = 0; l < V_LABELS; l++) {
		snprintf(names[l], sizeof(names[l]), "shares.%s", verdict_label_names[l]);
		cols[n++] = names[l];
	}
	cols[n++] = "evidence";
	return table_open(path, TABLE_CSV, cols, n, e);
}

static void csv_window(struct table *t, const struct verdict_episode *v, const struct verdict_window *w)
{
	table_string(t, v->name);
	table_int(t, w->t_end);
	table_int(t, verdict_window_wall(v, w));
	table_int(t, w->t_end - w->t_start);
	table_string(t, verdict_label_names[w->out.label]);
	for (int l = 0; l < V_LABELS; l++)
		table_real(t, w->out.share[l]);
	table_string(t, w->out.evidence);
	table_end_row(t);
}

/* ---- the writer ------------------------------------------------------------------- */

void verdict_write_head(struct verdict_writer *w, const struct verdict_episode *v, bool first)
{
	if (w->format == VERDICT_TEXT) {
		text_head(w->f, v, first);
	} else if (w->format == VERDICT_JSON) {
		put_open_object(w->f, head_json(v));
		fputs(",\"windows\":[", w->f);
	}
}

void verdict_write_window(struct verdict_writer *w, const struct verdict_episode *v,
			  const struct verdict_window *win)
{
	if (w->format == VERDICT_TEXT) {
		text_window(w->f, win);
	} else if (w->format == VERDICT_JSON) {
		if (v->n > 1)
			fputc(',', w->f);
		put_json(w->f, window_json(v, win->t_end, win->t_end - win->t_start, win->out.label,
					   win->out.share, win->out.evidence));
	} else {
		csv_window(w->t, v, win);
	}
}

void verdict_write_tail(struct verdict_writer *w, const struct verdict_episode *v)
{
	if (w->format == VERDICT_TEXT) {
		text_tail(w->f, v);
	} else if (w->format == VERDICT_JSON) {
		fputs("],\"totals\":", w->f);
		put_json(w->f, totals_json(v));
		fputs("}\n", w->f);
	}
}

/* ---- thinned ---------------------------------------------------------------------- */

int verdict_thin_init(struct verdict_thin *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max ? max : 1;
	t->per = 1;
	t->b = calloc(2 * t->max, sizeof(*t->b));
	return t->b ? 0 : -ENOMEM;
}

void verdict_thin_free(struct verdict_thin *t)
{
	free(t->b);
	memset(t, 0, sizeof(*t));
}

static void bucket_add(struct verdict_bucket *a, const struct verdict_bucket *b)
{
	if (!a->windows) {
		*a = *b;
		return;
	}
	a->t_end = b->t_end;
	a->windows += b->windows;
	for (int l = 0; l < V_LABELS; l++)
		a->ns[l] += b->ns[l];
	verdict_in_add(&a->sum, &b->sum);
}

int verdict_thin_add(struct verdict_thin *t, const struct verdict_window *w)
{
	size_t i = t->windows / t->per;
	if (i >= 2 * t->max) { /* twice as wide: each pair of buckets one */
		for (size_t j = 0; j < t->max; j++) {
			struct verdict_bucket pair = t->b[2 * j];
			bucket_add(&pair, &t->b[2 * j + 1]);
			t->b[j] = pair;
		}
		memset(t->b + t->max, 0, t->max * sizeof(*t->b));
		t->per *= 2;
		t->n = t->max;
		i = t->windows / t->per;
	}
	struct verdict_bucket one = {.t_start = w->t_start, .t_end = w->t_end, .windows = 1,
				     .sum = w->in};
	for (int l = 0; l < V_LABELS; l++)
		one.ns[l] = w->out.share[l] * w->in.window_ns;
	bucket_add(&t->b[i], &one);
	t->n = i + 1;
	t->windows++;
	return 0;
}

json_t *verdict_thin_json(const struct verdict_thin *t, const struct verdict_episode *v)
{
	json_t *o = head_json(v), *windows = json_array();
	if (!o || !windows || json_object_set_new(o, "windows", windows) < 0) {
		json_decref(o);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct verdict_bucket *b = &t->b[i];
		double time = 0, share[V_LABELS];
		for (int l = 0; l < V_LABELS; l++)
			time += b->ns[l];
		for (int l = 0; l < V_LABELS; l++)
			share[l] = time > 0 ? b->ns[l] / time : 0;
		enum verdict_label label = verdict_largest(b->ns);
		char evidence[512];
		struct verdict_out out;
		verdict_decide(&b->sum, &out);
		verdict_evidence(&b->sum, &out, label, evidence, sizeof(evidence));
		json_t *w = window_json(v, b->t_end, b->t_end - b->t_start, label, share, evidence);
		if (!w || (t->per > 1 && json_object_set_new(w, "windows", json_integer((json_int_t)b->windows)) < 0) ||
		    json_array_append_new(windows, w) < 0) {
			json_decref(w);
			json_decref(o);
			return NULL;
		}
	}
	if (t->per > 1)
		json_object_set_new(o, "thinned", json_pack("{s:I, s:I, s:I}", "windows",
							     (json_int_t)t->windows, "per_bucket",
							     (json_int_t)t->per, "buckets", (json_int_t)t->n));
	json_object_set_new(o, "totals", totals_json(v));
	return o;
}
