// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Signal names <-> numbers. glibc's sigabbrev_np() has the table; this adds the
 * forms kill(1) accepts (with or without "SIG", numbers, RTMIN+n). */
#define _GNU_SOURCE
#include "signames.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_number(const char *s)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	long v = strtol(s, &end, 10);
	return (*end || v > 1000) ? -1 : (int)v;
}

int signame_parse(const char *name)
{
	int n = parse_number(name);
	if (n >= 0)
		return (n >= 1 && n < NSIG) ? n : 0;
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (abbrev && strcasecmp(abbrev, name) == 0)
			return sig;
	}
	if (strncasecmp(name, "RTMIN", 5) == 0) {
		int off = name[5] == '\0' ? 0 : (name[5] == '+' ? parse_number(name + 6) : -1);
		if (off >= 0 && SIGRTMIN + off <= SIGRTMAX)
			return SIGRTMIN + off;
	}
	if (strcasecmp(name, "RTMAX") == 0)
		return SIGRTMAX;
	return 0;
}

const char *signame(int sig, char *buf, unsigned len)
{
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (sig > 0 && sig < NSIG && sigabbrev_np(sig))
		snprintf(buf, len, "SIG%s", sigabbrev_np(sig));
	else
		snprintf(buf, len, "SIG?%d", sig);
	return buf;
}
