/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The running kernel's version, for what a source can do on it: a feature
 * that came in a release and that nothing cheaper tells apart. */
#ifndef IOPSAMPLE_KERNEL_VERSION_H
#define IOPSAMPLE_KERNEL_VERSION_H

#include <stdbool.h>

/* Whether the running kernel's release (uname(2)) is older than
 * major.minor; false when it cannot be read. */
bool kernel_older_than(unsigned major, unsigned minor);

#endif
