// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* One-line messages on stderr, and errbuf formatting. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool quiet;
static char status[256]; /* the status line shown, "" for none */

#define CLEAR_LINE "\r\033[K"

void log_set_quiet(bool q)
{
	quiet = q;
}

int errbuf_set(struct errbuf *e, int err, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	/* err may come as errno (positive) or as a negative return value */
	if (err < 0)
		err = -err;
	return err ? -err : -EINVAL;
}

/* Format the whole line first so it reaches stderr in one write(2): lines from
 * the supervisor and its helper processes never interleave mid-line. */
static void vlog(const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "iopsample: ");
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	if (*status) { /* the message above the status line, drawn again below it */
		char all[sizeof(line) + sizeof(status) + 8];
		len = (size_t)snprintf(all, sizeof(all), CLEAR_LINE "%.*s%s", (int)len, line, status);
		ssize_t w = write(STDERR_FILENO, all, len < sizeof(all) ? len : sizeof(all) - 1);
		(void)w;
		return;
	}
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w; /* nowhere left to report a failing stderr */
}

bool log_status_wanted(void)
{
	return !quiet && isatty(STDERR_FILENO);
}

void log_status(const char *line)
{
	char out[sizeof(status) + 16];
	int n = snprintf(out, sizeof(out), CLEAR_LINE "%s", line ? line : "");
	snprintf(status, sizeof(status), "%s", line ? line : "");
	ssize_t w = write(STDERR_FILENO, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
	(void)w;
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
