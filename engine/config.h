/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The episode config: YAML file (plus --set overrides) into typed structs.
 *
 * Everything that can be checked without running anything is checked here, so
 * a config that loads can only fail at run time for reasons of the host. */
#ifndef IOPSAMPLE_CONFIG_H
#define IOPSAMPLE_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"
#include "duration.h"
#include "jsonl_writer.h"
#include "log.h"

#define CONFIG_MAX_BYTES (1 << 20)
/* what messages call a config read from standard input (path "-") */
#define CONFIG_STDIN_NAME "<stdin>"
#define CONFIG_NAME_MAX 128
#define CONFIG_LABEL_KEY_MAX 128
#define CONFIG_LABEL_VALUE_MAX 1024
#define INTERVAL_MIN_NS NS_PER_MS
#define INTERVAL_MAX_NS (3600 * NS_PER_S)
#define INTERVAL_DEFAULT_NS (100 * NS_PER_MS)

enum out_mode { OUT_FILE, OUT_INHERIT, OUT_NULL };

struct kv {
	char *key;
	char *value;
};

struct kv_list {
	struct kv *items;
	size_t n;
};

struct config {
	char *path;        /* the file as named on the command line */
	char *dir;         /* its folder, absolute: relative paths resolve here */
	char *text;        /* the file's bytes, copied to episode.yaml */
	size_t text_len;
	char **overrides;  /* "KEY=VALUE" as given with --set, --name */
	size_t noverrides;

	struct {
		char *name;
		char *output_dir;    /* absolute */
		int64_t duration_ns; /* 0: until the target exits */
		int stop_signal;
		int64_t grace_ns;
		struct kv_list labels;
		bool cgroup_off; /* episode.cgroup: off (default auto) */
	} episode;

	struct {
		char **argv;  /* NULL-terminated; a string command is /bin/sh -c STRING */
		bool shell;   /* the command was a string */
		char *cwd;    /* absolute */
		struct kv_list env;
		enum out_mode stdout_mode, stderr_mode;
		pid_t pid;    /* > 0: attach to this running process instead */
	} target;

	struct source_config *sources;
	size_t nsources;

	struct {
		enum compression compression;
		int zstd_level;
	} output;
};

/* What the command line adds to the file. */
struct config_args {
	const char *const *set; /* KEY=VALUE, dotted path into the YAML */
	size_t nset;
	const char *name;       /* --name */
	const char *output_dir; /* --output-dir: relative to the current directory */
};

/* 0, or a negative errno with err->msg a one-line message:
 * "FILE:LINE:COL: what is wrong" for a config error (-EINVAL), or naming the
 * file when it cannot be read. Path "-" reads standard input, whose
 * relative paths resolve against the current directory. */
int config_load_file(const char *path, const struct config_args *args, struct config *cfg,
		     struct errbuf *err);
/* The same from memory: dir stands for the file's folder. */
int config_load_buffer(const char *name, const char *text, size_t len, const char *dir,
		       const struct config_args *args, struct config *cfg, struct errbuf *err);
void config_free(struct config *cfg);

/* A source as the config would have it with no keys of its own: the
 * defaults. sc->priv is malloc'd (free it); -ENOMEM. */
int source_config_init(struct source_config *sc, const struct collector_ops *ops);

/* The resolved config, in the file's own shape with every default filled in:
 * it loads back as an equivalent config. */
json_t *config_to_json(const struct config *cfg);

#endif
