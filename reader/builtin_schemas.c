// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The compiled-in schemas, loaded for a reading command. */
#include "builtin_schemas.h"

#include <string.h>

#include "log.h"

struct jschema_set *builtin_schemas_load(void)
{
	struct errbuf why;
	struct jschema_set *set = jschema_load(builtin_schema_texts, builtin_schema_ntexts, &why);
	if (!set)
		log_error("%s", why.msg); /* iopsample's own schema/: a build fault */
	return set;
}

bool builtin_schemas_is_source(const struct jschema_set *set, const char *name)
{
	const char *c = json_string_value(json_object_get(jschema_property(set, name, "source"), "const"));
	return c && !strcmp(c, name);
}
