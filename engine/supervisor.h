/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Runs one episode from a loaded config and returns iopsample's exit status.
 * The sources' probes may settle what the config left to the host in it. */
#ifndef IOPSAMPLE_SUPERVISOR_H
#define IOPSAMPLE_SUPERVISOR_H

#include "config.h"

int supervisor_run(struct config *cfg);

#endif
