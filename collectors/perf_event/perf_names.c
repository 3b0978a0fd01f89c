// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Event names through libpfm4. */
#define _GNU_SOURCE
#include "perf_names.h"

#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int perf_names_init(struct errbuf *why)
{
	static int result = 1; /* 1: not tried yet */
	if (result == 1)
		result = pfm_initialize();
	if (result != PFM_SUCCESS)
		return errbuf_set(why, EIO, "libpfm4 cannot initialize: %s", pfm_strerror(result));
	return 0;
}

int perf_name_field(const char *event, char *out, size_t n)
{
	size_t len = strlen(event);
	if (len >= n)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)event[i];
		out[i] = isascii(c) && isalnum(c) ? (char)tolower(c) : '_';
	}
	out[len] = '\0';
	return 0;
}

int perf_name_encode(const char *event, bool user_only, struct perf_event_attr *attr,
		     char *pfm, size_t n, struct errbuf *why)
{
	int r = perf_names_init(why);
	if (r < 0)
		return r;
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg = {.attr = attr, .fstr = &fstr, .size = sizeof(arg)};
	memset(attr, 0, sizeof(*attr));
	r = pfm_get_os_event_encoding(event, user_only ? PFM_PLM3 : PFM_PLM0 | PFM_PLM3,
				      PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		free(fstr);
		return errbuf_set(why, r == PFM_ERR_NOTFOUND ? ENOENT : EINVAL, "libpfm4: %s",
				  pfm_strerror(r));
	}
	snprintf(pfm, n, "%s", fstr ? fstr : event);
	free(fstr);
	return 0;
}

size_t perf_names_pmus(struct perf_pmu *out, size_t max)
{
	size_t n = 0;
	int pmu;
	if (perf_names_init(NULL) < 0)
		return 0;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t info = {.size = sizeof(info)};
		if (n == max || pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		out[n++] = (struct perf_pmu){
			.name = info.name, .desc = info.desc, .core = info.type == PFM_PMU_TYPE_CORE};
	}
	return n;
}

int perf_names_each(int (*fn)(const struct perf_name_info *, void *), void *arg)
{
	int pmu;
	if (perf_names_init(NULL) < 0)
		return 0;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t pinfo = {.size = sizeof(pinfo)};
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t einfo = {.size = sizeof(einfo)};
			if (pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			struct perf_name_info ni = {.pmu = pinfo.name,
						    .event = einfo.name,
						    .equiv = einfo.equiv,
						    .desc = einfo.desc};
			int r = fn(&ni, arg);
			for (int a = 0; r == 0 && a < einfo.nattrs; a++) {
				pfm_event_attr_info_t ainfo = {.size = sizeof(ainfo)};
				if (pfm_get_event_attr_info(e, a, PFM_OS_PERF_EVENT_EXT, &ainfo) !=
					    PFM_SUCCESS ||
				    ainfo.type != PFM_ATTR_UMASK)
					continue;
				ni.umask = ainfo.name;
				ni.desc = ainfo.desc;
				r = fn(&ni, arg);
			}
			if (r)
				return r;
		}
	}
	return 0;
}
