// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The running kernel's version; see kernel_version.h. */
#include "kernel_version.h"

#include <stdio.h>
#include <sys/utsname.h>

bool kernel_older_than(unsigned major, unsigned minor)
{
	struct utsname u;
	unsigned have_major, have_minor;
	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &have_major, &have_minor) != 2)
		return false;
	return have_major < major || (have_major == major && have_minor < minor);
}
