/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The manifest's content (CONTRACT §4), composed from struct episode by
 * whoever writes it: episode.c writes what it is given and never composes,
 * so neither depends on the other's half. */
#ifndef IOPSAMPLE_MANIFEST_H
#define IOPSAMPLE_MANIFEST_H

#include <jansson.h>

#include "episode.h"

json_t *manifest_json(const struct episode *ep);

#endif
