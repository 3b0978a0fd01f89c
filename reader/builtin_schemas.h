/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* schema/<name>.schema.json compiled into iopsample (tools/embed-schemas writes
 * them into build/gen/schemas.c), so that validate checks against the
 * schemas of the version that wrote the episode, with no files to find. */
#ifndef IOPSAMPLE_BUILTIN_SCHEMAS_H
#define IOPSAMPLE_BUILTIN_SCHEMAS_H

#include <stdbool.h>
#include <stddef.h>

#include "json_schema.h"

extern const struct jschema_text builtin_schema_texts[];
extern const size_t builtin_schema_ntexts;

/* The set of them, or NULL after saying why (exit EX_SOFTWARE). */
struct jschema_set *builtin_schemas_load(void);
/* Whether name is a source's: its row schema says so (its "source" is that
 * name), as envelope and manifest do not. */
bool builtin_schemas_is_source(const struct jschema_set *set, const char *name);

#endif
