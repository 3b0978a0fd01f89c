/* One-line messages on stderr, and errbuf formatting. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool quiet;

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
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w; /* nowhere left to report a failing stderr */
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
