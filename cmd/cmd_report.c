// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample report EPISODE_DIR... -o FILE.html: episodes as pictures, in one
 * HTML file that needs nothing else (docs/data-model.md, "Reports").
 *
 * The page holds the chart library (uPlot, inlined as GoAccess inlines its
 * own), cmd/report/report.js that draws, and the data, once, as JSON: per
 * episode its manifest and, per source, its rows as columns (t_mono_ns,
 * interval_ns, then one array per leaf of row_shape.h; past twice
 * REPORT_BUCKETS rows, buckets of rows with each leaf's lowest and highest:
 * reader/series.h), with what each field is: counter, gauge or value (the
 * leaf's cell rule), its unit (x-unit), and what the schema says of it for
 * the pictures (x-histogram, x-compare, x-main). Nothing here names a
 * source: a source that lands later gets its charts from its rows and its
 * schema.
 *
 * Every episode is read before a byte is written, and the file is an
 * outfile: a refusal or failure leaves no page behind. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "manifest_read.h"
#include "jsonl_reader.h"
#include "log.h"
#include "outfile.h"
#include "row_shape.h"
#include "series.h"
#include "builtin_schemas.h"
#include "verdict_write.h"
#include "version.h"

#define USAGE "usage: iopsample report EPISODE_DIR... -o FILE.html"
/* A chart's width is about a thousand pixels: series with more points than
 * twice this are thinned to buckets of equal time, between this many and
 * twice as many, each keeping its lowest and highest (cmd/report/report.js
 * draws the band between them), as time-series dashboards do. */
#define REPORT_BUCKETS 1000

/* The page's parts, linked in by build/gen/report_assets.S; each ends in a
 * NUL. */
extern const char report_uplot_js[], report_uplot_css[], report_uplot_license[];
extern const char report_js[], report_css[];

struct rp_source {
	const char *name;    /* the manifest's key */
	const json_t *entry; /* the manifest's sources.<name> */
	const struct jschema_set *schemas;
	int dirfd;
	bool incomplete; /* its episode is running, killed or failed: its file may be cut */
	pthread_t thread;
	bool running;
	/* what read_source made */
	struct row_shape shape;
	struct series series; /* its rows, thinned past REPORT_BUCKETS */
	uint64_t rows;
	const char *damage; /* an incomplete episode's cut file: why the rows end */
	int code;           /* a sysexits code, and why in e (naming the file) */
	uint64_t bad_line;  /* ... or the file's line that e is about */
	struct errbuf e;
};

struct rp_episode {
	const char *dir;
	json_t *manifest;
	json_t *verdict; /* iopsample verdict's JSON, or {"refusal": why} */
	const char *name;
	struct rp_source *src;
	size_t nsrc;
};

struct reporter {
	const struct jschema_set *schemas;
	struct rp_episode *ep;
	size_t nep;
	json_t *compare; /* compare's pairs with their cells, or NULL */
	struct errbuf e;
};

/* ---- reading ----------------------------------------------------------------- */

/* The first row sets the shape (with every row's members of an object
 * whose members come and go: a mount made mid-episode); v gets room for a
 * row's leaves. */
static int learn_shape(struct rp_source *s, const char *file, const json_t *row, struct value **v,
		       struct errbuf *e)
{
	if (row_shape_learn(&s->shape, s->schemas, s->name, row, e) < 0)
		return -EINVAL;
	struct jsonl_reader r;
	if (s->shape.varying && jsonl_reader_open(&r, s->dirfd, file, e) == 0) {
		char *text;
		size_t len;
		while (jsonl_reader_next(&r, &text, &len, e) > 0) {
			json_t *each = json_loadb(text, len, 0, NULL);
			int rc = each ? row_shape_grow(&s->shape, each, e) : 0;
			json_decref(each);
			if (rc < 0) {
				jsonl_reader_close(&r);
				return rc;
			}
		}
		jsonl_reader_close(&r);
	}
	s->shape.keep_ratios = true;
	*v = calloc(s->shape.n + 1, sizeof(**v));
	return *v && series_init(&s->series, &s->shape, REPORT_BUCKETS) == 0
		       ? 0
		       : errbuf_set(e, ENOMEM, "out of memory");
}

/* One row onto the series. */
static int add_row(struct rp_source *s, const json_t *row, struct value *v, struct errbuf *e)
{
	const json_t *t = json_object_get(row, "t_mono_ns"), *iv = json_object_get(row, "interval_ns");
	if (!json_is_integer(t) || !json_is_integer(iv))
		return errbuf_set(e, EINVAL, "t_mono_ns or interval_ns is not an integer");
	if (row_shape_read(&s->shape, row, v, e) < 0)
		return -EINVAL;
	series_add(&s->series, json_integer_value(t), json_integer_value(iv), v);
	return 0;
}

/* A source's rows into its columns, in a thread of its own: parsing the
 * rows is most of a report's time, and the sources are independent (a
 * pipeline within a source, parser to builder, was slower: jansson's
 * objects freed by another thread than made them). The outcome is s->code,
 * with e saying what went wrong. */
static void *read_source(void *arg)
{
	struct rp_source *s = arg;
	const char *file = json_string_value(json_object_get(s->entry, "file"));
	if (!file)
		return NULL;
	struct jsonl_reader r;
	int rc = jsonl_reader_open(&r, s->dirfd, file, &s->e);
	if (rc == -ENOENT && s->incomplete)
		return NULL; /* stopped before the source wrote its file */
	if (rc < 0) {
		s->code = EX_NOINPUT;
		return NULL;
	}
	struct value *v = NULL;
	for (uint64_t line = 1;; line++) {
		char *text;
		size_t len;
		if ((rc = jsonl_reader_next(&r, &text, &len, &s->e)) <= 0) {
			s->code = rc < 0 ? EX_IOERR : 0;
			break;
		}
		json_error_t je;
		json_t *row = json_loadb(text, len, 0, &je);
		if (!json_is_object(row))
			rc = errbuf_set(&s->e, EINVAL, "%s", row ? "not a JSON object" : je.text);
		else if ((rc = s->rows ? 0 : learn_shape(s, file, row, &v, &s->e)) == 0)
			rc = add_row(s, row, v, &s->e);
		json_decref(row);
		if (rc < 0) {
			s->code = rc == -ENOMEM ? EX_SOFTWARE : EX_DATAERR;
			s->bad_line = line;
			break;
		}
		s->rows++;
	}
	if (!s->code && r.damage[0]) {
		if (!s->incomplete) {
			errbuf_set(&s->e, EINVAL, "%s: %s", file, r.damage);
			s->code = EX_DATAERR;
		} else {
			s->damage = "its file ends in a cut row (the episode was interrupted)";
		}
	}
	free(v);
	jsonl_reader_close(&r);
	return NULL;
}

/* The overview's verdict: the same windows as `iopsample verdict`, thinned
 * to the page's width where there are more (REPORT_BUCKETS). An episode it
 * cannot judge (no taskstats or cgroup) gets why instead. */
static int load_verdict(struct reporter *x, struct rp_episode *ep)
{
	struct verdict_options o = {.quiet_refusal = true};
	struct verdict_episode v;
	struct verdict_thin thin = {0};
	int code = verdict_episode_open(&v, ep->dir, x->schemas, &o);
	if (code && v.refusal[0]) {
		ep->verdict = json_pack("{s:s}", "refusal", v.refusal);
		verdict_episode_close(&v);
		return ep->verdict ? 0 : EX_SOFTWARE;
	}
	if (!code && verdict_thin_init(&thin, REPORT_BUCKETS) < 0)
		code = EX_SOFTWARE;
	const struct verdict_window *w;
	int r = 0;
	while (!code && (r = verdict_episode_next(&v, &w)) == 1)
		verdict_thin_add(&thin, w);
	code = code ? code : r;
	if (!code && !(ep->verdict = verdict_thin_json(&thin, &v)))
		code = EX_SOFTWARE;
	if (thin.b)
		verdict_thin_free(&thin);
	verdict_episode_close(&v);
	return code;
}

static int load_episode(struct reporter *x, struct rp_episode *ep)
{
	int dirfd;
	int code = manifest_load(ep->dir, x->schemas, &dirfd, &ep->manifest);
	if (code)
		return code;
	ep->name = json_string_value(json_object_get(ep->manifest, "episode"));
	bool incomplete = manifest_incomplete(ep->manifest);
	struct manifest_source *listed = NULL;
	size_t n = 0;
	code = manifest_sources(ep->dir, ep->manifest, x->schemas, &listed, &n);
	ep->src = code ? NULL : calloc(n + 1, sizeof(*ep->src));
	if (!code && !ep->src)
		code = EX_SOFTWARE;
	for (size_t i = 0; !code && i < n; i++)
		ep->src[ep->nsrc++] = (struct rp_source){.name = listed[i].name, .entry = listed[i].entry,
							 .schemas = x->schemas, .dirfd = dirfd,
							 .incomplete = incomplete};
	free(listed);
	for (size_t i = 0; !code && i < ep->nsrc; i++) {
		struct rp_source *s = &ep->src[i];
		s->running = pthread_create(&s->thread, NULL, read_source, s) == 0;
		if (!s->running)
			read_source(s);
	}
	for (size_t i = 0; i < ep->nsrc; i++) {
		struct rp_source *s = &ep->src[i];
		if (s->running)
			pthread_join(s->thread, NULL);
		s->running = false;
		if (!code && s->code) {
			if (s->bad_line)
				log_error("%s/%s:%llu: %s", ep->dir, json_string_value(json_object_get(s->entry, "file")),
					  (unsigned long long)s->bad_line, s->e.msg);
			else
				log_error("%s/%s", ep->dir, s->e.msg);
			code = s->code;
		}
	}
	close(dirfd);
	if (!code)
		code = load_verdict(x, ep);
	return code;
}

/* ---- writing ----------------------------------------------------------------- */

static void put_json(FILE *f, const json_t *v)
{
	/* "\/" for every slash: no "</script>" can end the data early */
	json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY | JSON_ESCAPE_SLASH);
}

static void put_string(FILE *f, const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	put_json(f, j);
	json_decref(j);
}

static const char *kind_of(enum cell_rule rule)
{
	return rule == CELL_SUM ? "counter" : rule == CELL_MAX ? "gauge" : "value";
}

/* What the schema says of a top-level field for the pictures. */
static void put_field(FILE *f, const struct reporter *x, const struct rp_source *s,
		      const char *field, size_t first, size_t n)
{
	const json_t *prop = jschema_property(x->schemas, s->name, field);
	fputs("{\"name\":", f);
	put_string(f, field);
	fprintf(f, ",\"first\":%zu,\"n\":%zu,\"listed\":%s", first, n, prop ? "true" : "false");
	static const char *const notes[] = {"x-histogram", "x-compare", "x-main", "x-overview"};
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		const json_t *v = json_object_get(prop, notes[i]);
		if (!v)
			continue;
		fprintf(f, ",\"%s\":", notes[i] + 2);
		put_json(f, v);
	}
	fputc('}', f);
}

/* A leaf's top-level field: its name up to the first dot. */
static size_t field_len(const char *leaf)
{
	return strcspn(leaf, ".");
}

static void put_source(FILE *f, const struct reporter *x, const struct rp_source *s)
{
	const struct row_shape *sh = &s->shape;
	fputs("{\"name\":", f);
	put_string(f, s->name);
	fprintf(f, ",\"rows\":%llu,\"damage\":", (unsigned long long)s->rows);
	put_string(f, s->damage);
	if (s->series.cell)
		series_put_json(&s->series, f);
	else
		fputs(",\"t\":[],\"interval\":[],\"columns\":[]", f);
	fputs(",\"leaves\":[", f);
	for (size_t l = 0; l < sh->n; l++) {
		fputs(l ? ",{\"name\":" : "{\"name\":", f);
		put_string(f, sh->name[l]);
		fprintf(f, ",\"kind\":\"%s\",\"unit\":", kind_of(sh->leaf[l].rule));
		put_string(f, sh->unit[l]);
		fputc('}', f);
	}
	fputs("],\"fields\":[", f);
	for (size_t l = 0, nf = 0; l < sh->n;) {
		size_t len = field_len(sh->name[l]), end = l + 1;
		while (end < sh->n && field_len(sh->name[end]) == len &&
		       !strncmp(sh->name[end], sh->name[l], len))
			end++;
		char *field = strndup(sh->name[l], len);
		if (nf++)
			fputc(',', f);
		put_field(f, x, s, field ? field : "", l, end - l);
		free(field);
		l = end;
	}
	fputs("]}", f);
}

static void put_data(FILE *f, const struct reporter *x)
{
	fputs("{\"iopsample\":", f);
	put_string(f, IOPSAMPLE_VERSION);
	fputs(",\"episodes\":[", f);
	for (size_t e = 0; e < x->nep; e++) {
		const struct rp_episode *ep = &x->ep[e];
		fputs(e ? ",{\"dir\":" : "{\"dir\":", f);
		put_string(f, ep->dir);
		fputs(",\"manifest\":", f);
		put_json(f, ep->manifest);
		fputs(",\"verdict\":", f);
		put_json(f, ep->verdict);
		fputs(",\"sources\":[", f);
		for (size_t i = 0; i < ep->nsrc; i++) {
			if (i)
				fputc(',', f);
			put_source(f, x, &ep->src[i]);
		}
		fputs("]}", f);
	}
	fputs("]", f);
	if (x->compare) {
		fputs(",\"compare\":", f);
		put_json(f, x->compare);
	}
	fputs("}", f);
}

/* before, then s with HTML's special characters escaped */
static void put_html(FILE *f, const char *s, const char *before)
{
	fputs(before, f);
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void put_page(FILE *f, const struct reporter *x)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"iopsample " IOPSAMPLE_VERSION "\">\n<title>iopsample report",
	      f);
	for (size_t e = 0; e < x->nep; e++)
		put_html(f, x->ep[e].name, e ? ", " : ": ");
	fputs("</title>\n<!-- uPlot, inlined below:\n", f);
	fputs(report_uplot_license, f);
	fputs("-->\n<style>\n", f);
	fputs(report_uplot_css, f);
	fputs("\n</style>\n<style>\n", f);
	fputs(report_css, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"report\"><noscript>This report draws its charts "
	      "with JavaScript.</noscript></div>\n<script type=\"application/json\" id=\"iopsample-data\">",
	      f);
	put_data(f, x);
	fputs("</script>\n<script>\n", f);
	fputs(report_uplot_js, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(report_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
}

/* ---- the command ------------------------------------------------------------- */

static void reporter_free(struct reporter *x)
{
	for (size_t e = 0; e < x->nep; e++) {
		struct rp_episode *ep = &x->ep[e];
		for (size_t i = 0; i < ep->nsrc; i++) {
			struct rp_source *s = &ep->src[i];
			series_free(&s->series);
			row_shape_free(&s->shape);
		}
		free(ep->src);
		json_decref(ep->manifest);
		json_decref(ep->verdict);
	}
	free(x->ep);
	json_decref(x->compare);
}

static int report(struct reporter *x, char **dirs, size_t ndirs, const char *output)
{
	if (!(x->ep = calloc(ndirs, sizeof(*x->ep))))
		return EX_SOFTWARE;
	int code = 0;
	for (size_t e = 0; e < ndirs && !code; e++) {
		x->ep[x->nep].dir = dirs[e];
		code = load_episode(x, &x->ep[x->nep++]);
	}
	for (size_t a = 0; a < x->nep && !code; a++)
		for (size_t b = 0; b < a && !code; b++)
			if (!strcmp(x->ep[a].name, x->ep[b].name)) {
				log_error("episode %s twice: %s and %s", x->ep[a].name, x->ep[b].dir,
					  x->ep[a].dir);
				code = EX_USAGE;
			}
	if (code)
		return code;
	/* the deployable fields against their oracles, over export's cells:
	 * drawn when compare can make them */
	if (compare_for_report(dirs, ndirs, &x->compare) != 0) {
		json_decref(x->compare);
		x->compare = NULL;
	}
	struct outfile out;
	if (outfile_open(&out, output, &x->e) < 0) {
		log_error("-o %s", x->e.msg);
		return EX_CANTCREAT;
	}
	put_page(out.f, x);
	if (outfile_commit(&out, &x->e) < 0) {
		log_error("%s", x->e.msg);
		return EX_IOERR;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *output = NULL;
	char **dirs = argv + 1;
	size_t ndirs = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts(USAGE);
			return 0;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 == argc) {
				log_error("report: %s needs a file; " USAGE, argv[i]);
				return EX_USAGE;
			}
			output = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			log_error("report: unknown option %s; " USAGE, argv[i]);
			return EX_USAGE;
		} else {
			dirs[ndirs++] = argv[i]; /* options may come after the directories */
		}
	}
	if (!ndirs || !output) {
		log_error("report: %s; " USAGE, ndirs ? "no -o FILE.html" : "no episode directory");
		return EX_USAGE;
	}
	struct jschema_set *schemas = builtin_schemas_load();
	if (!schemas)
		return EX_SOFTWARE;
	struct reporter x = {.schemas = schemas};
	int code = report(&x, dirs, ndirs, output);
	reporter_free(&x);
	jschema_free(schemas);
	return code;
}
