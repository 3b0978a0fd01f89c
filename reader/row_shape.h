/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The numbers a source's rows hold, as `iopsample export` names them.
 *
 * Every row field outside the envelope is a leaf, or holds leaves: an array's
 * elements are FIELD.K (histogram buckets: read_size_hist.0 ...), an
 * object's members FIELD.KEY, recursively (by_syscall.read.calls). The
 * shape is learned from a file's first row, and every later row must have
 * the same keys, array lengths and members, but in an object the schema
 * marks "x-keys": "varying" (net's by_mount: mounts come and go), whose
 * members are those row_shape_grow has seen, a row's absent ones null. A
 * member the schema types a string (a mount's point and file system:
 * names) is no leaf.
 *
 * How a leaf's values combine in a grid cell (cells.h) comes from the
 * source's schema, never from its name: the "x-cell" annotation ("sum",
 * "max", "min", "ratio", "mean") or "x-gauge": true ("max") of the leaf's
 * part of the schema, else of the nearest part that holds it (by_device's
 * members: additionalProperties, properties), else "sum" for an integer.
 * A leaf with none of these (a real number the schema says nothing about)
 * has no meaning in a cell, and the
 * shape is refused. CELL_RATIO leaves take their inputs from the episode's
 * manifest: sources.<name>.ratios.<field>.numerator and .denominator.
 * A leaf's unit is the schema's "x-unit", found the same way. */
#ifndef IOPSAMPLE_ROW_SHAPE_H
#define IOPSAMPLE_ROW_SHAPE_H

#include <jansson.h>
#include <stdbool.h>

#include "cells.h"
#include "json_schema.h"
#include "log.h"

struct shape_node;

struct row_shape {
	size_t n;               /* leaves */
	char **name;            /* "rchar", "read_size_hist.3", "by_syscall.read.calls" */
	size_t *rank;           /* its field's place in the schema: for the column order */
	struct cell_leaf *leaf; /* how it combines in a cell */
	const char **unit;      /* the schema's x-unit for it (or what holds it), or NULL */
	bool keep_ratios;       /* row_shape_read gives CELL_RATIO leaves as written */
	bool varying;           /* has an object whose members vary: row_shape_grow */
	const struct jschema_set *schemas;
	const char *source;
	struct shape_node *root;
	size_t row_keys; /* keys of a whole row, the envelope's included */
};

/* Learns the shape of source's rows from the first. 0 or -EINVAL with e
 * naming the field. */
int row_shape_learn(struct row_shape *s, const struct jschema_set *schemas, const char *source,
		    const json_t *row, struct errbuf *e);

/* The members of row's varying objects not seen before, learned (leaves
 * added at the end). 0 or -EINVAL/-ENOMEM with e. */
int row_shape_grow(struct row_shape *s, const json_t *row, struct errbuf *e);

/* For the leaf at keys (NULL-terminated) of source's rows, from the schema
 * alone: how it combines in a cell (as row_shape_learn would find it), and
 * whether it lies in an object whose members come and go (a row may lack
 * it). */
bool row_shape_leaf_varies(const struct jschema_set *schemas, const char *source, char *const *keys,
			   enum cell_rule *rule);

/* Wires CELL_RATIO leaves to their inputs as the manifest's
 * sources.<name>.ratios names them (NULL: none known, the ratio is null). */
void row_shape_ratios(struct row_shape *s, const json_t *ratios);

/* The row's leaves in shape order (a CELL_RATIO leaf null, as export
 * recomputes it, unless keep_ratios). 0, or -EINVAL when the row has another
 * shape, or a count that is not an integer >= 0, with e naming the field. */
int row_shape_read(const struct row_shape *s, const json_t *row, struct value *out,
		   struct errbuf *e);

void row_shape_free(struct row_shape *s);

#endif
