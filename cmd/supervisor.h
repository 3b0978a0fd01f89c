/* Runs one episode from a loaded config and returns iopsample's exit status. */
#ifndef IOPSAMPLE_SUPERVISOR_H
#define IOPSAMPLE_SUPERVISOR_H

#include "config.h"

int supervisor_run(const struct config *cfg);

#endif
