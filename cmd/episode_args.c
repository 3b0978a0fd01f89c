// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Parsing the arguments run and check share; see episode_args.h. */
#define _GNU_SOURCE
#include "episode_args.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "log.h"

int episode_args_parse(int argc, char **argv, struct episode_args *o)
{
	static const struct option longopts[] = {
		{"output-dir", required_argument, NULL, 'o'},
		{"name", required_argument, NULL, 'n'},
		{"set", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	const char **set = calloc((size_t)argc, sizeof(char *));
	memset(o, 0, sizeof(*o));
	o->args.set = set;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (c == 's') {
			if (!strchr(optarg, '=')) {
				log_error("--set %s: expected KEY=VALUE", optarg);
				return EX_USAGE;
			}
			set[o->args.nset++] = optarg;
			continue;
		}
		if (c == 'o') {
			o->args.output_dir = optarg;
			continue;
		}
		if (c == 'n') {
			o->args.name = optarg;
			continue;
		}
		if (c == 'q') {
			o->quiet = true;
			continue;
		}
		if (c == ':')
			log_error("%s needs a value", argv[optind - 1]);
		else
			log_error("%s: unknown option %s", argv[0], argv[optind - 1]);
		return EX_USAGE;
	}
	if (optind != argc - 1) {
		log_error("usage: iopsample %s EPISODE.yaml [options] (see iopsample --help)", argv[0]);
		return EX_USAGE;
	}
	o->file = argv[optind];
	return 0;
}

int episode_args_load(const struct episode_args *o, struct config *cfg)
{
	struct errbuf e;
	if (config_load_file(o->file, &o->args, cfg, &e) < 0) {
		log_error("%s", e.msg);
		return EX_CONFIG;
	}
	return 0;
}
