/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An episode's manifest.json read back: what summary, validate, export,
 * report and schema need of an episode directory before its rows. */
#ifndef IOPSAMPLE_MANIFEST_READ_H
#define IOPSAMPLE_MANIFEST_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct jschema_set;

/* Reads dirfd's manifest.json, whole before parsing: jansson's
 * json_loadfd reads a byte per read(2). 0; -errno when it cannot be opened
 * or read; -EINVAL when it is not JSON, with je saying where. */
int manifest_read(int dirfd, size_t flags, json_t **out, json_error_t *je);
/* Opens the episode directory dir (*dirfd) and reads its manifest
 * (manifest_read), checked against the manifest's schema. 0, or a sysexits
 * code after one line on stderr naming what is wrong, with *dirfd closed
 * (-1): 66 when dir cannot be opened or has no manifest to read (not an
 * episode), 65 when the manifest is not JSON or not what the schema says. */
int manifest_load(const char *dir, const struct jschema_set *schemas, int *dirfd, json_t **out);
/* Its status is running or killed (iopsample was killed) or failed: the
 * episode's files may end inside a row. */
bool manifest_incomplete(const json_t *m);

/* A source the manifest lists. */
struct manifest_source {
	const char *name;
	const json_t *entry; /* its entry in the manifest's "sources" */
};
/* The sources manifest m of episode directory dir lists, in its order, in
 * *out (free it). 0, or 65 after one line on stderr when one is not a
 * source this iopsample knows (it has no row schema for it). */
int manifest_sources(const char *dir, const json_t *m, const struct jschema_set *schemas,
		     struct manifest_source **out, size_t *n);

#endif
