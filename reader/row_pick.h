/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A few leaves picked out of a row's text, fast: what a reader that needs
 * a handful of a row's numbers (the verdict) reads instead of the whole
 * tree. jsmn (Debian's libjsmn-dev) tokenizes the line without allocating
 * or building objects: about 2 µs a row against jansson's 11 to 19 µs
 * (docs/benchmarks.md, "verdict"), which decides whether a long episode's
 * verdict takes a second or five.
 *
 * A leaf is named as export names columns (row_shape.h): "nthreads",
 * "by_device.vda.util_pct". Keys are matched as written, so a key that
 * JSON escapes is never one of them. A leaf whose keys may hold dots (a
 * mount point: by_mount's) parts them with ROW_PICK_SEP instead. */
#ifndef IOPSAMPLE_ROW_PICK_H
#define IOPSAMPLE_ROW_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cells.h"
#include "log.h"

#define ROW_PICK_SEP '\x1f'

struct row_pick {
	size_t n;
	char ***path; /* per leaf, its keys, NULL-terminated */
	bool *optional; /* per leaf, or NULL: a row may lack it (null then); freed with p */
	void *tok;    /* jsmn's tokens, grown as rows need */
	unsigned ntok;
};

/* leaves[0..n): 0 or -ENOMEM. */
int row_pick_init(struct row_pick *p, const char *const *leaves, size_t n);
void row_pick_free(struct row_pick *p);

/* The row's leaves into out[0..n) (an integer, a real or null), its
 * t_mono_ns and final. 0, or -EINVAL with e saying what: not a JSON
 * object, a leaf missing (unless optional) or not a number. */
int row_pick_read(struct row_pick *p, const char *text, size_t len, struct value *out,
		  int64_t *t_mono, bool *final, struct errbuf *e);

#endif
