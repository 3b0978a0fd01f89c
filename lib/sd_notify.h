/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The service manager's readiness protocol (sd_notify(3)): where
 * NOTIFY_SOCKET names a datagram socket (a path, or "@name" in the
 * abstract namespace), `iopsample run` says READY=1 once the episode is
 * under way and STOPPING=1 once it has begun to end. A harness, or a
 * systemd unit of Type=notify, waits for it rather than guessing. */
#ifndef IOPSAMPLE_SD_NOTIFY_H
#define IOPSAMPLE_SD_NOTIFY_H

/* Takes NOTIFY_SOCKET from the environment and removes it there, so that
 * no process iopsample starts (the target) inherits it. */
void sd_notify_init(void);
/* Sends state ("READY=1") where NOTIFY_SOCKET named; nothing without one.
 * 0, or a negative errno after saying on stderr what failed. */
int sd_notify_send(const char *state);

#endif
