/* schema/<name>.schema.json compiled into iopsample (tools/embed-schemas writes
 * them into build/gen/schemas.c), so that validate checks against the
 * schemas of the version that wrote the episode, with no files to find. */
#ifndef IOPSAMPLE_SCHEMAS_H
#define IOPSAMPLE_SCHEMAS_H

#include <stddef.h>

#include "jschema.h"

extern const struct jschema_text schema_texts[];
extern const size_t schema_ntexts;

/* The set of them, or NULL after saying why (exit EX_SOFTWARE). */
struct jschema_set *schemas_load(void);

#endif
