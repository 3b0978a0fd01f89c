/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The running kernel's version, for what a source can do on it: a feature
 * that came in a release and that nothing cheaper tells apart. */
#ifndef IOPSAMPLE_KERNEL_VERSION_H
#define IOPSAMPLE_KERNEL_VERSION_H

#include <stdbool.h>

/* Whether the running kernel's release (uname(2)) is older than
 * major.minor; false when it cannot be read. */
bool kernel_older_than(unsigned major, unsigned minor);

/* Whether a release string ("6.1.0-13-amd64") is older than major.minor:
 * 1 or 0; -1 when it does not start with a version. */
int kernel_release_older(const char *release, unsigned major, unsigned minor);

#endif
