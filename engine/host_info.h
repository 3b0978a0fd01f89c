/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the manifest records about the machine an episode ran on. */
#ifndef IOPSAMPLE_HOST_INFO_H
#define IOPSAMPLE_HOST_INFO_H

#include <jansson.h>

/* {hostname, kernel_release, machine, cpu_model, cpu_count, perf_event_paranoid};
 * a fact the host does not expose is null. */
json_t *host_info_json(void);

#endif
