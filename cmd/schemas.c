/* The compiled-in schemas, loaded for a reading command. */
#include "schemas.h"

#include "log.h"

struct jschema_set *schemas_load(void)
{
	struct errbuf why;
	struct jschema_set *set = jschema_load(schema_texts, schema_ntexts, &why);
	if (!set)
		log_error("%s", why.msg); /* iopsample's own schema/: a build fault */
	return set;
}
