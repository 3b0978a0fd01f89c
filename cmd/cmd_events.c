// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample events [PATTERN]: the perf event names libpfm4 knows on this host,
 * the names a perf_event source's events list takes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "perf_event/perf_counter.h"
#include "perf_event/perf_names.h"

struct listing {
	const char *pattern; /* NULL: everything */
	size_t shown;
};

/* A pattern with glob characters is a glob over the whole name, anything else
 * a substring; both ignore case. */
static bool matches(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
	return strcasestr(name, pattern) != NULL;
}

static int show(const struct perf_name_info *ni, void *arg)
{
	struct listing *l = arg;
	char name[512];
	snprintf(name, sizeof(name), "%s::%s%s%s", ni->pmu, ni->event, ni->umask ? ":" : "",
		 ni->umask ? ni->umask : "");
	if (!matches(l->pattern, name))
		return 0;
	l->shown++;
	if (ni->equiv && !ni->umask)
		printf("%-44s same as %s::%s\n", name, ni->pmu, ni->equiv);
	else
		printf("%-44s %s\n", name, ni->desc ? ni->desc : "");
	return ferror(stdout) ? -EIO : 0;
}

/* 0 when the kernel opens a hardware counter on this process (user space
 * only, as perf_event_paranoid 2 allows), or -errno. */
static int kernel_counts_hardware(void)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_HARDWARE,
				       .config = PERF_COUNT_HW_INSTRUCTIONS,
				       .exclude_kernel = 1,
				       .exclude_hv = 1,
				       .disabled = 1};
	int fd = perf_counter_open(&attr, 0, PERF_NO_GROUP);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static void header(void)
{
	struct perf_pmu pmus[64];
	size_t n = perf_names_pmus(pmus, 64);
	bool core = false;
	int err;
	printf("# libpfm4 detects %zu PMU%s on this host:", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		printf("%s %s (%s)", i ? "," : "", pmus[i].name, pmus[i].desc);
		core |= pmus[i].core;
	}
	printf("\n");
	if (!core) {
		printf("# No CPU PMU among them: hardware events go by perf's generic names (cycles,\n"
		       "# instructions, ...), and the kernel may not count them here (a virtual machine\n"
		       "# often has no PMU); iopsample run records such an event as null with the reason.\n");
	} else if ((err = kernel_counts_hardware()) < 0) {
		/* libpfm4 knows the CPU from cpuid; a VM may still give the
		 * kernel no PMU to count with */
		printf("# The kernel counts no hardware event here (perf_event_open of instructions:\n"
		       "# %s): a virtual machine often has no PMU. iopsample run records\n"
		       "# such an event as null with the reason.\n",
		       strerror(-err));
	}
	printf("# A name may end in modifiers (cycles:u counts user space only); its row field is\n"
	       "# the name lower-cased, other characters as _ (perf::page-faults -> perf__page_faults).\n");
}

int cmd_events(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		bool help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		fprintf(help ? stdout : stderr, "usage: iopsample events [PATTERN]\n"
			"  PATTERN: a substring, or a glob with * ? [...]; case is ignored\n");
		return help ? 0 : EX_USAGE;
	}
	struct errbuf why;
	if (perf_names_init(&why) < 0) {
		log_error("%s", why.msg);
		return EX_UNAVAILABLE;
	}
	struct listing l = {.pattern = argc == 2 ? argv[1] : NULL};
	header();
	int r = perf_names_each(show, &l);
	if (fflush(stdout) != 0 || r < 0) {
		if (errno != EPIPE)
			log_error("writing the list: %s", strerror(errno));
		return EX_IOERR;
	}
	if (l.shown == 0) {
		log_error("no perf event on this host matches \"%s\"", l.pattern);
		return 1;
	}
	return 0;
}
