// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample run EPISODE.yaml: the episode, from its config to its files. */
#include <stdlib.h>

#include "commands.h"
#include "episode_args.h"
#include "log.h"
#include "supervisor.h"

int cmd_run(int argc, char **argv)
{
	struct episode_args o;
	struct config cfg;
	int code = episode_args_parse(argc, argv, &o);
	if (!code)
		code = episode_args_load(&o, &cfg);
	if (!code) {
		log_set_quiet(o.quiet);
		code = supervisor_run(&cfg);
		config_free(&cfg);
	}
	free((void *)o.args.set);
	return code;
}
