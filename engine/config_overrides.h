/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Overrides of a config: --set KEY=VALUE, a dotted path into the YAML
 * document (episode.duration=30s), set as if typed there, unquoted, so the
 * typed walk checks its value like any other; mappings on the path that are
 * missing are made. The nodes an override made are remembered in the
 * context, and an error at one of them names the override, not the file. */
#ifndef IOPSAMPLE_CONFIG_OVERRIDES_H
#define IOPSAMPLE_CONFIG_OVERRIDES_H

#include "config_yaml.h"

/* Applies kv ("KEY=VALUE", restored as it was) to c's document; label names
 * it in messages ("--set episode.duration=30s"). 0 or -errno with the
 * message in c->err. */
int config_override(struct cfg_ctx *c, char *kv, const char *label);

#endif
