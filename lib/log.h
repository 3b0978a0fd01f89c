/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Messages to the user and errors carried back to a caller.
 *
 * Every message is one line on stderr that starts with "iopsample: ". Functions
 * that can fail return 0 or a negative errno and describe the failure in a
 * struct errbuf, so the caller decides how (and whether) to say it. */
#ifndef IOPSAMPLE_LOG_H
#define IOPSAMPLE_LOG_H

#include <stdbool.h>
#include <stddef.h>

struct errbuf {
	char msg[512];
};

/* Formats the message into e (when e is not NULL) and returns -err, so a
 * failing function can end with `return errbuf_set(e, errno, "...")`. */
int errbuf_set(struct errbuf *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void log_set_quiet(bool quiet);
/* Always printed. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress for a human; silenced by --quiet. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a status line would be seen: stderr is a terminal and not --quiet. */
bool log_status_wanted(void);
/* Shows line (without "iopsample: ") as the status line, redrawn in place
 * on the terminal; NULL clears it. Messages logged meanwhile go above it. */
void log_status(const char *line);

#endif
