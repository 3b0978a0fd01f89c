/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Signal names as users write them in a config ("SIGTERM", "TERM", "15"). */
#ifndef IOPSAMPLE_SIGNAMES_H
#define IOPSAMPLE_SIGNAMES_H

/* The signal number, or 0 when the name is not a signal. */
int signame_parse(const char *name);
/* "SIGTERM"; "SIGRTMIN+3" for real-time signals; "SIG?" when unknown. */
const char *signame(int sig, char *buf, unsigned len);

#endif
