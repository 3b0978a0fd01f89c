// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Host facts from uname(2), sysconf(3) and /proc. */
#define _GNU_SOURCE
#include "host_info.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "procfs.h"

/* The value of a "key<blanks>: value" line, as in /proc/cpuinfo. */
static const char *find_field(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	for (const char *line = text; *line;) {
		const char *eol = strchrnul(line, '\n');
		if (!strncmp(line, key, klen)) {
			const char *p = line + klen + strspn(line + klen, " \t");
			if (*p == ':') {
				p += 1 + strspn(p + 1, " \t");
				*len = (size_t)(eol - p);
				return p;
			}
		}
		line = *eol ? eol + 1 : eol;
	}
	return NULL;
}

static json_t *cpu_model(void)
{
	static char buf[1 << 16];
	/* x86 says "model name"; other architectures use other keys, or none */
	static const char *const keys[] = {"model name", "Hardware", "cpu model", "Processor"};
	size_t len;
	if (procfs_read("/proc/cpuinfo", buf, sizeof(buf)) <= 0)
		return json_null();
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *v = find_field(buf, keys[k], &len);
		if (v)
			return json_stringn(v, len);
	}
	return json_null();
}

json_t *host_info_json(void)
{
	struct utsname u;
	char hostname[256] = "";
	int have_uname = uname(&u) == 0;
	gethostname(hostname, sizeof(hostname) - 1);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int paranoid = procfs_perf_event_paranoid();
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "hostname", hostname, "kernel_release",
			 have_uname ? json_string(u.release) : json_null(), "machine",
			 have_uname ? json_string(u.machine) : json_null(), "cpu_model", cpu_model(),
			 "cpu_count", ncpu > 0 ? json_integer(ncpu) : json_null(),
			 "perf_event_paranoid", paranoid >= -1 ? json_integer(paranoid) : json_null());
}
