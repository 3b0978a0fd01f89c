/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The arguments `iopsample run` and `iopsample check` share: the config
 * file, --output-dir, --name, --set KEY=VALUE..., --quiet. */
#ifndef IOPSAMPLE_EPISODE_ARGS_H
#define IOPSAMPLE_EPISODE_ARGS_H

#include <stdbool.h>

#include "config.h"

struct episode_args {
	struct config_args args;
	const char *file;
	bool quiet;
};

/* 0, or EX_USAGE after saying what is wrong; o->args.set is allocated. */
int episode_args_parse(int argc, char **argv, struct episode_args *o);
/* The config o names, with its overrides: 0, or EX_CONFIG after saying
 * where it is wrong. */
int episode_args_load(const struct episode_args *o, struct config *cfg);

#endif
