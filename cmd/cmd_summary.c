// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample summary EPISODE_DIR...: for a human, what an episode was and
 * what each source saw. Read from the manifest and the rows alone, so any
 * source's file is summed the same way: integer fields get their total and
 * mean rate per second of the covered time, other numbers and the gauges
 * the schema marks ("x-gauge": true) their mean, min and max over the rows
 * that have them, *_size_hist and *_latency_hist arrays a bar per non-empty
 * bucket, and nested
 * counters (by_syscall) their non-zero totals.
 *
 * Numbers are for reading, in the unit the schema gives a field ("x-unit"):
 * bytes in B/KiB/MiB/GiB and per second, times (ns, ms) as durations and
 * as a share of the time covered (a delay of 250 ms in 1 s is 25%), counts
 * per second of their unit ("calls/s": iops-profiler's IOPS). --raw prints
 * exact integers and plain rates instead, for scripts. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "duration.h"
#include "manifest_read.h"
#include "jsonl_reader.h"
#include "log.h"
#include "numfmt.h"
#include "builtin_schemas.h"
#include "verdict_write.h"

#define BAR_WIDTH 40

enum field_kind { F_COUNT, F_NUMBER, F_HIST };

struct field {
	char name[160];
	const char *unit; /* the schema's x-unit, or NULL */
	enum field_kind kind;
	bool nested; /* a member of an object field: shown only when not 0 */
	json_int_t total;
	double sum, min, max;
	uint64_t known; /* rows where it was not null */
	json_int_t *buckets;
	size_t nbuckets;
};

struct tally {
	const struct jschema_set *schemas;
	bool raw; /* --raw */
	const char *source;
	struct field *f;
	size_t n;
	uint64_t rows;
	json_int_t t_end; /* t_mono_ns of the last row: the time covered */
};

static struct field *field_for(struct tally *t, const char *name, enum field_kind kind,
			       bool nested)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].name, name))
			return &t->f[i];
	struct field *more = realloc(t->f, (t->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	t->f = more;
	struct field *f = &t->f[t->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->kind = kind;
	f->nested = nested;
	f->min = INFINITY;
	f->max = -INFINITY;
	return f;
}

/* v, the value of field name, which the part schema of the source's
 * schema describes. */
static void add_value(struct tally *t, const char *name, const json_t *v, bool nested,
		      const json_t *schema)
{
	struct field *f;
	bool gauge = json_is_true(json_object_get(schema, "x-gauge"));
	if (json_is_integer(v) && gauge) {
		json_t *d = json_real((double)json_integer_value(v));
		add_value(t, name, d, nested, schema);
		json_decref(d);
		return;
	}
	if (json_is_integer(v) || (json_is_null(v) && !nested)) {
		/* a null counter stays a counter: null in every row is worth saying */
		if (!(f = field_for(t, name, F_COUNT, nested)))
			return;
		f->unit = json_string_value(json_object_get(schema, "x-unit"));
		if (json_is_integer(v)) {
			f->known++;
			f->total += json_integer_value(v);
			f->sum += (double)json_integer_value(v);
		}
		return;
	}
	if (json_is_real(v)) {
		if (!(f = field_for(t, name, F_NUMBER, nested)))
			return;
		/* the first rows decided it was a count; a real means it never was */
		f->kind = F_NUMBER;
		f->unit = json_string_value(json_object_get(schema, "x-unit"));
		double d = json_real_value(v);
		f->known++;
		f->sum += d;
		f->min = d < f->min ? d : f->min;
		f->max = d > f->max ? d : f->max;
		return;
	}
	if (json_is_array(v)) {
		if (!(f = field_for(t, name, F_HIST, nested)))
			return;
		size_t n = json_array_size(v);
		if (n > f->nbuckets) {
			json_int_t *more = realloc(f->buckets, n * sizeof(*more));
			if (!more)
				return;
			memset(more + f->nbuckets, 0, (n - f->nbuckets) * sizeof(*more));
			f->buckets = more;
			f->nbuckets = n;
		}
		for (size_t i = 0; i < n; i++)
			f->buckets[i] += json_integer_value(json_array_get(v, i));
		f->known++;
		return;
	}
	if (json_is_object(v)) {
		const char *key;
		const json_t *sub;
		json_object_foreach((json_t *)v, key, sub) {
			char path[160];
			snprintf(path, sizeof(path), "%s.%s", name, key);
			add_value(t, path, sub, true, jschema_sub(t->schemas, t->source, schema, key));
		}
	}
}

static void add_row(struct tally *t, const json_t *row)
{
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)row, key, v)
		if (!jschema_property(t->schemas, "envelope", key)) /* every source has these */
			add_value(t, key, v, false, jschema_property(t->schemas, t->source, key));
	const json_t *tm = json_object_get(row, "t_mono_ns");
	if (json_is_integer(tm))
		t->t_end = json_integer_value(tm);
	t->rows++;
}

static void format_ns(json_int_t ns, char *buf, size_t len)
{
	duration_human(ns, buf, len);
}

/* 2^k bytes as "512 B", "4 KiB", "1 GiB". */
/* 2^k of a unit that steps by 1024 (bytes) or by 1000 (microseconds). */
static void format_pow2(unsigned k, bool time, char *buf, size_t len)
{
	static const char *const bytes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	if (!time) {
		snprintf(buf, len, "%llu %s", 1ull << (k % 10), bytes[k / 10 < 4 ? k / 10 : 4]);
		return;
	}
	unsigned long long us = 1ull << k;
	if (us < 1000)
		snprintf(buf, len, "%llu us", us);
	else if (us < 1000000)
		snprintf(buf, len, "%.3g ms", (double)us / 1e3);
	else
		snprintf(buf, len, "%.3g s", (double)us / 1e6);
}

/* The range of log2 bucket i of n (docs/data-model.md): 0 is 0, i is
 * [2^(i-1), 2^i), the last is 2^(n-2) and more. */
static void bucket_label(size_t i, size_t n, bool time, char *buf, size_t len)
{
	char lo[24], hi[24];
	if (i == 0) {
		snprintf(buf, len, time ? "< 1 us" : "0 B");
		return;
	}
	format_pow2((unsigned)i - 1, time, lo, sizeof(lo));
	if (i == 1 && !time)
		snprintf(buf, len, "%s", lo);
	else if (i == n - 1)
		snprintf(buf, len, ">= %s", lo);
	else {
		format_pow2((unsigned)i, time, hi, sizeof(hi));
		snprintf(buf, len, "%s to < %s", lo, hi);
	}
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n > t && !strcmp(s + n - t, tail);
}

static void print_hist(const struct field *f)
{
	bool sized = ends_with(f->name, "_size_hist"), timed = ends_with(f->name, "_latency_hist");
	json_int_t top = 0, total = 0;
	for (size_t i = 0; i < f->nbuckets; i++) {
		top = f->buckets[i] > top ? f->buckets[i] : top;
		total += f->buckets[i];
	}
	printf("  %s: %lld in all%s\n", f->name, (long long)total, total ? "" : ", every bucket empty");
	for (size_t i = 0; i < f->nbuckets && total; i++) {
		char label[64];
		if (!f->buckets[i])
			continue;
		if (sized || timed)
			bucket_label(i, f->nbuckets, timed, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "bucket %zu", i);
		int width = (int)((f->buckets[i] * BAR_WIDTH + top - 1) / top);
		printf("    %-20s %12lld  %.*s\n", label, (long long)f->buckets[i], width,
		       "########################################");
	}
}

/* A count's total and rate, for reading: see the top of this file. */
static void format_count(const struct field *f, double seconds, char *total, char *rate, size_t len)
{
	double per_s = seconds > 0 ? (double)f->total / seconds : 0.0;
	const char *u = f->unit;
	if (u && !strcmp(u, "bytes")) {
		numfmt_bytes(total, len, (double)f->total, "");
		numfmt_bytes(rate, len, per_s, "/s");
	} else if (u && (!strcmp(u, "ns") || !strcmp(u, "ms"))) {
		json_int_t ns = f->total * (!strcmp(u, "ms") ? NS_PER_MS : 1);
		format_ns(ns, total, len);
		snprintf(rate, len, "%.1f%% of the time", seconds > 0 ? 100.0 * (double)ns / NS_PER_S / seconds : 0.0);
	} else {
		snprintf(total, len, "%lld", (long long)f->total);
		snprintf(rate, len, "%.1f%s%s/s", per_s, u ? " " : "", u ? u : "");
	}
}

/* A gauge's or a ratio's level in its unit: bytes and times for a person,
 * the rest as numbers. */
static void format_level(const struct field *f, bool raw, double v, char *buf, size_t len)
{
	if (!raw && f->unit && !strcmp(f->unit, "bytes"))
		numfmt_bytes(buf, len, v, "");
	else if (!raw && f->unit && !strcmp(f->unit, "ns"))
		duration_human((int64_t)llround(v), buf, len);
	else
		snprintf(buf, len, "%.4g", v);
}

static void print_tally(const struct tally *t)
{
	double seconds = (double)t->t_end / NS_PER_S;
	bool header = false;
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		if (f->kind == F_HIST || (f->nested && f->kind == F_COUNT && f->total == 0))
			continue;
		if (!header)
			printf("  %-32s %16s %*s\n", "field", "total", t->raw ? 16 : 22, "per second");
		header = true;
		if (f->known == 0)
			printf("  %-32s %16s\n", f->name, "null in every row");
		else if (f->kind == F_COUNT && t->raw)
			printf("  %-32s %16lld %16.1f%s\n", f->name, (long long)f->total,
			       seconds > 0 ? (double)f->total / seconds : 0.0,
			       f->known < t->rows ? "  (null in some rows)" : "");
		else if (f->kind == F_COUNT) {
			char total[48], rate[48];
			format_count(f, seconds, total, rate, sizeof(total));
			printf("  %-32s %16s %22s%s\n", f->name, total, rate,
			       f->known < t->rows ? "  (null in some rows)" : "");
		}
		else {
			char mean[32], lo[32], hi[32];
			format_level(f, t->raw, f->sum / (double)f->known, mean, sizeof(mean));
			format_level(f, t->raw, f->min, lo, sizeof(lo));
			format_level(f, t->raw, f->max, hi, sizeof(hi));
			printf("  %-32s %16s %16s  mean %s, min %s, max %s over %llu rows\n", f->name, "",
			       "", mean, lo, hi, (unsigned long long)f->known);
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->f[i].kind == F_HIST)
			print_hist(&t->f[i]);
}

static void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->f[i].buckets);
	free(t->f);
}

/* A source's rows tallied, in a thread of its own (parsing is the work:
 * every source at once), then printed in the manifest's order. */
struct source_summary {
	const char *name, *file, *error;
	const json_t *src;
	int dirfd;
	struct tally t;
	struct jsonl_reader r;
	bool opened;
	int err;
	struct errbuf e;
	pthread_t thread;
	bool running;
};

static void *tally_source(void *arg)
{
	struct source_summary *s = arg;
	char *text;
	size_t len;
	if (!s->file || (s->err = jsonl_reader_open(&s->r, s->dirfd, s->file, &s->e)) < 0)
		return NULL;
	s->opened = true;
	while ((s->err = jsonl_reader_next(&s->r, &text, &len, &s->e)) > 0) {
		json_t *row = json_loadb(text, len, 0, NULL);
		if (json_is_object(row))
			add_row(&s->t, row);
		json_decref(row);
	}
	return NULL;
}

/* 0, or an exit status when the file could not be read at all. */
static int print_source(struct source_summary *s, const char *dir)
{
	char ival[32];
	format_ns(json_integer_value(json_object_get(s->src, "interval_ns")), ival, sizeof(ival));
	const char *status = json_string_value(json_object_get(s->src, "status"));
	printf("\n%s (%s): %s, every %s", s->name,
	       json_is_true(json_object_get(s->src, "available_in_deployment")) ? "deployable" : "oracle",
	       status ? status : "?", ival);
	if (!s->file) {
		printf(", no rows%s%s\n", s->error ? ": " : "", s->error ? s->error : "");
		return 0;
	}
	if (!s->opened) {
		printf("\n");
		log_error("%s/%s", dir, s->e.msg);
		return EX_NOINPUT;
	}
	char covered[32];
	format_ns(s->t.t_end, covered, sizeof(covered));
	printf(", %llu rows over %s (%s)\n", (unsigned long long)s->t.rows, covered, s->file);
	if (s->error)
		printf("  error: %s\n", s->error);
	if (s->err < 0 || s->r.damage[0])
		printf("  the file stops early, after row %llu: %s\n", (unsigned long long)s->r.rows,
		       s->err < 0 ? s->e.msg : s->r.damage);
	print_tally(&s->t);
	return 0;
}

static json_int_t usage_field(const json_t *u, const char *name)
{
	return json_integer_value(json_object_get(u, name));
}

/* What the tree used, from wait4, as GNU time -v says it: the judge the
 * sources' CPU times and switches can be held against. */
static void print_usage(const json_t *target, bool raw)
{
	const json_t *u = json_object_get(target, "rusage");
	if (!json_is_object(u)) {
		const char *why = json_string_value(json_object_get(target, "rusage_reason"));
		if (why)
			printf("tree used: unknown (%s)\n", why);
		return;
	}
	char user[32], sys[32], rss[32];
	if (raw) {
		snprintf(user, sizeof(user), "%lld ns", (long long)usage_field(u, "user_ns"));
		snprintf(sys, sizeof(sys), "%lld ns", (long long)usage_field(u, "system_ns"));
		snprintf(rss, sizeof(rss), "%lld B", (long long)usage_field(u, "max_rss_bytes"));
	} else {
		format_ns(usage_field(u, "user_ns"), user, sizeof(user));
		format_ns(usage_field(u, "system_ns"), sys, sizeof(sys));
		numfmt_bytes(rss, sizeof(rss), (double)usage_field(u, "max_rss_bytes"), "");
	}
	printf("tree used (wait4): %s user, %s system, max RSS %s; faults %lld minor, %lld major; "
	       "blocks %lld in, %lld out; switches %lld voluntary, %lld involuntary\n",
	       user, sys, rss, (long long)usage_field(u, "minor_faults"),
	       (long long)usage_field(u, "major_faults"), (long long)usage_field(u, "block_input_ops"),
	       (long long)usage_field(u, "block_output_ops"), (long long)usage_field(u, "voluntary_ctxsw"),
	       (long long)usage_field(u, "involuntary_ctxsw"));
}

static void print_header(const char *dir, const json_t *m, bool raw)
{
	const json_t *target = json_object_get(m, "target");
	char dur[32] = "?";
	if (json_is_integer(json_object_get(m, "duration_ns")))
		format_ns(json_integer_value(json_object_get(m, "duration_ns")), dur, sizeof(dur));
	printf("%s: episode %s, %s, %s\n", dir,
	       json_string_value(json_object_get(m, "episode")) ?: "?",
	       json_string_value(json_object_get(m, "status")) ?: "?", dur);
	const json_t *code = json_object_get(target, "exit_code"), *sig = json_object_get(target, "signal");
	const char *reason = json_string_value(json_object_get(target, "stop_reason"));
	if (json_is_true(json_object_get(target, "attached")))
		printf("target: pid %lld, attached", (long long)json_integer_value(json_object_get(target, "pid")));
	else if (json_is_integer(code))
		printf("target: exited with status %lld", (long long)json_integer_value(code));
	else if (json_is_string(sig))
		printf("target: killed by %s", json_string_value(sig));
	else
		printf("target: %s", json_string_value(json_object_get(target, "error")) ?: "did not end");
	printf("%s%s\n", reason ? "; stopped because: " : "", reason ? reason : "");
	print_usage(target, raw);
	const char *key;
	const json_t *v;
	json_object_foreach(json_object_get(m, "labels"), key, v)
		printf("label %s: %s\n", key, json_string_value(v));
	size_t i;
	json_array_foreach(json_object_get(m, "warnings"), i, v)
		printf("warning: %s\n", json_string_value(v));
}

/* Where the time went, first: a line per run of equal windows (the
 * verdict's own windows, as `iopsample verdict` lists them), then the
 * time by label over the episode. */
#define MAX_RUNS 40
static void print_verdict(const struct jschema_set *schemas, const char *dir)
{
	struct verdict_options o = {.quiet_refusal = true};
	struct verdict_episode v;
	int code = verdict_episode_open(&v, dir, schemas, &o);
	/* the first runs kept until the last window is read: a damaged row
	 * on the way prints no verdict at all */
	struct verdict_run runs[MAX_RUNS], run;
	struct verdict_runs open = {0};
	size_t n = 0;
	const struct verdict_window *w;
	while (!code && (code = verdict_episode_next(&v, &w)) == 1) {
		if (verdict_runs_add(&open, v.n - 1, w, &run) && n++ < MAX_RUNS)
			runs[n - 1] = run;
		code = 0;
	}
	if (!code && verdict_runs_end(&open, &run) && n++ < MAX_RUNS)
		runs[n - 1] = run;
	if (code || !v.n) {
		printf("verdict: none (%s)\n", v.refusal[0] ? v.refusal
			: code ? "the rows could not be read: `iopsample verdict` says why" : "no rows");
		verdict_episode_close(&v);
		return;
	}
	char win[32];
	duration_human(v.window_ns, win, sizeof(win));
	printf("verdict, by %s windows (iopsample verdict lists each):\n", win);
	for (size_t i = 0; i < n && i < MAX_RUNS; i++)
		printf("  %.2f-%.2f s %s (%s)\n", runs[i].t_start / 1e9, runs[i].t_end / 1e9,
		       verdict_label_names[runs[i].label], runs[i].evidence);
	if (n > MAX_RUNS)
		printf("  ... %zu more runs of windows\n", n - MAX_RUNS);
	char text[1024];
	verdict_totals_text(&v, text, sizeof(text));
	printf("  over the episode: %s\n", text);
	size_t i;
	const json_t *c;
	json_array_foreach(v.cannot_tell, i, c) {
		verdict_cannot_tell_text(c, text, sizeof(text));
		printf("  cannot tell apart: %s\n", text);
	}
	verdict_episode_close(&v);
}

static int summarize(const struct jschema_set *schemas, bool raw, const char *dir)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		log_error("%s: %s", dir, strerror(errno));
		return EX_NOINPUT;
	}
	json_error_t je;
	json_t *m;
	int r = manifest_read(dirfd, 0, &m, &je);
	int status = 0;
	if (r < 0 && r != -EINVAL) {
		log_error("%s/manifest.json: %s", dir, strerror(-r));
		status = EX_NOINPUT;
	} else if (!m) {
		log_error("%s/manifest.json:%d:%d: %s", dir, je.line, je.column, je.text);
		status = EX_DATAERR;
	} else if (!json_is_object(m)) {
		log_error("%s/manifest.json: not a JSON object", dir);
		status = EX_DATAERR;
	} else {
		print_header(dir, m, raw);
		const json_t *sources = json_object_get(m, "sources");
		size_t n = json_object_size(sources), k = 0;
		struct source_summary *ss = calloc(n + 1, sizeof(*ss));
		const char *name;
		const json_t *src;
		json_object_foreach((json_t *)sources, name, src) {
			if (!ss)
				break;
			struct source_summary *s = &ss[k++];
			*s = (struct source_summary){
				.name = name, .src = src, .dirfd = dirfd,
				.file = json_string_value(json_object_get(src, "file")),
				.error = json_string_value(json_object_get(src, "error")),
				.t = {.schemas = schemas, .source = name, .raw = raw},
			};
			s->running = pthread_create(&s->thread, NULL, tally_source, s) == 0;
			if (!s->running)
				tally_source(s);
		}
		print_verdict(schemas, dir); /* while the sources are tallied */
		for (size_t i = 0; i < k; i++) {
			if (ss[i].running)
				pthread_join(ss[i].thread, NULL);
			int st = print_source(&ss[i], dir);
			status = status ? status : st;
			tally_free(&ss[i].t);
			if (ss[i].opened)
				jsonl_reader_close(&ss[i].r);
		}
		free(ss);
		if (!ss)
			status = EX_SOFTWARE;
	}
	json_decref(m);
	close(dirfd);
	return status;
}

int cmd_summary(int argc, char **argv)
{
	bool raw = false;
	int ndirs = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw"))
			raw = true;
		else if (argv[i][0] == '-' && argv[i][1]) {
			log_error("summary: unknown option %s; usage: iopsample summary [--raw] EPISODE_DIR...", argv[i]);
			return EX_USAGE;
		} else
			argv[++ndirs] = argv[i];
	}
	if (!ndirs) {
		log_error("usage: iopsample summary [--raw] EPISODE_DIR...");
		return EX_USAGE;
	}
	argc = ndirs + 1;
	struct jschema_set *schemas = builtin_schemas_load();
	if (!schemas)
		return EX_SOFTWARE;
	int status = 0;
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			printf("\n");
		int s = summarize(schemas, raw, argv[i]);
		status = status ? status : s;
	}
	jschema_free(schemas);
	if (fflush(stdout) == EOF) {
		log_error("stdout: %s", strerror(errno));
		return EX_IOERR;
	}
	return status;
}
