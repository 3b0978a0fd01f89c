// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The running kernel's version; see kernel_version.h. */
#include "kernel_version.h"

#include <stdio.h>
#include <sys/utsname.h>

int kernel_release_older(const char *release, unsigned major, unsigned minor)
{
	unsigned have_major, have_minor;
	if (!release || sscanf(release, "%u.%u", &have_major, &have_minor) != 2)
		return -1;
	return have_major < major || (have_major == major && have_minor < minor);
}

bool kernel_older_than(unsigned major, unsigned minor)
{
	struct utsname u;
	return uname(&u) == 0 && kernel_release_older(u.release, major, minor) == 1;
}
