// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A source's rows as columns for a page, thinned past twice max: see
 * series.h. */
#include "series.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

int series_init(struct series *s, const struct row_shape *shape, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->shape = shape;
	s->max = max ? max : 1;
	s->per = 1;
	size_t n = 2 * s->max;
	s->t_end = calloc(n, sizeof(*s->t_end));
	s->interval = calloc(n, sizeof(*s->interval));
	s->cell = calloc(n * (shape->n ? shape->n : 1), sizeof(*s->cell));
	if (!s->t_end || !s->interval || !s->cell) {
		series_free(s);
		return -ENOMEM;
	}
	return 0;
}

void series_free(struct series *s)
{
	free(s->t_end);
	free(s->interval);
	free(s->cell);
	memset(s, 0, sizeof(*s));
}

static double lower(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

static double higher(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

/* b's leaf into a's (b after a in time), by the leaf's rule. */
static void combine(struct series_cell *a, const struct series_cell *b, enum cell_rule rule)
{
	a->real = a->real || b->real;
	a->lo = isnan(b->lo) ? a->lo : lower(a->lo, b->lo);
	a->hi = isnan(b->hi) ? a->hi : higher(a->hi, b->hi);
	switch (rule) {
	case CELL_MAX:
		a->v = isnan(b->v) ? a->v : higher(a->v, b->v);
		break;
	case CELL_MIN:
		a->v = isnan(b->v) ? a->v : lower(a->v, b->v);
		break;
	case CELL_MEAN:
	case CELL_RATIO: /* (without its inputs: the mean of its rows' over time) */
		a->null = a->null || b->null;
		a->v += b->v;
		a->w += b->w;
		break;
	case CELL_SUM:
	default:
		a->null = a->null || b->null;
		a->v += b->v;
		break;
	}
}

/* Buckets twice as wide: each pair one (every bucket is full when it
 * comes to this). */
static void halve(struct series *s)
{
	size_t nl = s->shape->n;
	for (size_t j = 0; j < s->max; j++) {
		size_t a = 2 * j, b = 2 * j + 1;
		s->t_end[j] = s->t_end[b];
		s->interval[j] = s->interval[a] + s->interval[b];
		for (size_t l = 0; l < nl; l++) {
			struct series_cell c = s->cell[a * nl + l];
			combine(&c, &s->cell[b * nl + l], s->shape->leaf[l].rule);
			s->cell[j * nl + l] = c;
		}
	}
	memset(s->t_end + s->max, 0, s->max * sizeof(*s->t_end));
	memset(s->interval + s->max, 0, s->max * sizeof(*s->interval));
	memset(s->cell + s->max * nl, 0, s->max * nl * sizeof(*s->cell));
	s->per *= 2;
	s->n = s->max;
}

void series_add(struct series *s, int64_t t_end, int64_t interval, const struct value *v)
{
	size_t nl = s->shape->n, b = (size_t)(s->rows / s->per);
	if (b >= 2 * s->max) {
		halve(s);
		b = (size_t)(s->rows / s->per);
	}
	bool first = s->rows % s->per == 0;
	double secs = interval > 0 ? (double)interval / 1e9 : NAN;
	for (size_t l = 0; l < nl; l++) {
		enum cell_rule rule = s->shape->leaf[l].rule;
		double x = v[l].kind == VAL_INT ? (double)v[l].i : v[l].kind == VAL_REAL ? v[l].d : NAN;
		double drawn = rule == CELL_SUM ? x / secs : x;
		struct series_cell one = {.v = x, .lo = isfinite(drawn) ? drawn : NAN,
					  .hi = isfinite(drawn) ? drawn : NAN,
					  .null = isnan(x) && rule != CELL_MAX && rule != CELL_MIN,
					  .real = v[l].kind == VAL_REAL};
		if (rule == CELL_MEAN || rule == CELL_RATIO) {
			one.w = (double)(interval > 0 ? interval : 1);
			one.v = isnan(x) ? 0 : x * one.w;
		} else if (rule == CELL_SUM) {
			one.v = isnan(x) ? 0 : x;
		}
		struct series_cell *c = &s->cell[b * nl + l];
		if (first)
			*c = one;
		else
			combine(c, &one, rule);
	}
	s->t_end[b] = t_end;
	s->interval[b] = first ? interval : s->interval[b] + interval;
	s->n = b + 1;
	s->rows++;
}

/* A number as JSON: an integer exactly, a real as numfmt writes it; null. */
static void put_number(FILE *f, double v, bool real)
{
	char buf[NUMFMT_REAL];
	if (!isfinite(v))
		fputs("null", f);
	else if (!real && v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else {
		numfmt_real(buf, v);
		fputs(buf, f);
	}
}

static double value_of(const struct series_cell *c, enum cell_rule rule)
{
	if (c->null)
		return NAN;
	if (rule == CELL_MEAN || rule == CELL_RATIO)
		return c->w > 0 ? c->v / c->w : NAN;
	return c->v;
}

/* ,"name":[...] of one figure of every leaf's buckets */
static void put_columns(const struct series *s, FILE *f, const char *name, int which)
{
	size_t nl = s->shape->n;
	fprintf(f, ",\"%s\":[", name);
	for (size_t l = 0; l < nl; l++) {
		fputs(l ? ",[" : "[", f);
		for (size_t b = 0; b < s->n; b++) {
			const struct series_cell *c = &s->cell[b * nl + l];
			if (b)
				fputc(',', f);
			if (which)
				put_number(f, which < 0 ? c->lo : c->hi, true);
			else
				put_number(f, value_of(c, s->shape->leaf[l].rule),
					   c->real || (s->per > 1 && s->shape->leaf[l].rule == CELL_MEAN));
		}
		fputc(']', f);
	}
	fputc(']', f);
}

void series_put_json(const struct series *s, FILE *f)
{
	fputs(",\"t\":[", f);
	for (size_t b = 0; b < s->n; b++)
		fprintf(f, "%s%lld", b ? "," : "", (long long)s->t_end[b]);
	fputs("],\"interval\":[", f);
	for (size_t b = 0; b < s->n; b++)
		fprintf(f, "%s%lld", b ? "," : "", (long long)s->interval[b]);
	fputc(']', f);
	put_columns(s, f, "columns", 0);
	if (s->per > 1) {
		put_columns(s, f, "lo", -1);
		put_columns(s, f, "hi", 1);
		fprintf(f, ",\"thinned\":{\"rows\":%llu,\"per_bucket\":%zu,\"buckets\":%zu}",
			(unsigned long long)s->rows, s->per, s->n);
	}
}
