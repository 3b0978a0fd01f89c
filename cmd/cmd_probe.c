/* iopsample probe: what this host lets each source collect, as JSON on
 * stdout. The host facts the manifest records, then every source's own
 * probe run with its default settings — the same check `run` makes before
 * an episode starts — with what it found: the probe is the one place that
 * knows how to test a source, so this command names none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "collector.h"
#include "commands.h"
#include "config.h"
#include "version.h"
#include "host_info.h"
#include "log.h"

static json_t *probe_source(const struct collector_ops *ops)
{
	struct source_config sc;
	struct errbuf why = {""};
	json_t *details = json_object();
	int r = source_config_init(&sc, ops) < 0 ? errbuf_set(&why, ENOMEM, "out of memory")
						  : ops->probe(&sc, details, &why);
	free(sc.priv);
	json_t *entry = json_pack("{s:s, s:o, s:b}", "status", r == 0 ? "ok" : "unavailable",
				  "error", r == 0 ? json_null() : json_string(why.msg),
				  "available_in_deployment", ops->available_in_deployment);
	json_object_update(entry, details);
	json_decref(details);
	return entry;
}

int cmd_probe(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		log_error("usage: iopsample probe (it takes no arguments)");
		return EX_USAGE;
	}
	json_t *sources = json_object();
	for (const struct collector_ops *const *o = collector_registry; *o; o++)
		json_object_set_new(sources, (*o)->name, probe_source(*o));
	json_t *out = json_pack("{s:s, s:o, s:o}", "iopsample_version", IOPSAMPLE_VERSION, "host",
				host_info_json(), "sources", sources);
	int r = json_dumpf(out, stdout, JSON_INDENT(2)) == 0 && putchar('\n') != EOF &&
		fflush(stdout) == 0;
	json_decref(out);
	if (!r) {
		log_error("stdout: %s", strerror(errno));
		return EX_IOERR;
	}
	return 0;
}
