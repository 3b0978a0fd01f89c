// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample check EPISODE.yaml: the config validated and printed as it
 * resolves, every default filled in; nothing runs. */
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "commands.h"
#include "episode_args.h"

int cmd_check(int argc, char **argv)
{
	struct episode_args o;
	struct config cfg;
	int code = episode_args_parse(argc, argv, &o);
	if (!code)
		code = episode_args_load(&o, &cfg);
	if (!code) {
		json_t *j = config_to_json(&cfg);
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		config_free(&cfg);
		if (fflush(stdout) != 0)
			code = EX_IOERR;
	}
	free((void *)o.args.set);
	return code;
}
