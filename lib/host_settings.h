/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Kernel settings an episode changes for its own duration, and puts back.
 *
 * A source that needs a sysctl (taskstats: kernel.task_delayacct = 1) asks
 * here through its prepare hook, in the supervisor, before the target's
 * first process exists. host_settings writes the setting, records what it found
 * in the manifest ("host_changes") and puts it back when the episode ends,
 * on every path:
 *
 *  - the supervisor calls host_settings_restore() on its way out (normal end,
 *    SIGTERM, a failed source, a crashed sampler);
 *  - a guardian process, forked with the first change, waits on a pipe
 *    from the supervisor: end of file without the supervisor's "restored"
 *    byte means the supervisor died (SIGKILL), and the guardian restores.
 *    It exists whether or not iopsample started the target (an attached
 *    episode has no keeper to do it).
 *
 * Episodes running side by side share a change: under /run/iopsample/
 * (tmpfs: it goes with the setting at a reboot) each setting has a state
 * file holding the value the first episode found, locked exclusively while
 * an episode reads or changes it, and a holders file on which each episode
 * that relies on the change keeps a shared lock. An episode that ends puts
 * the value back only when it is the last holder; one that finds a change
 * left by an episode that died without restoring it (the guardian killed
 * too) takes it over, and restores it at its end. */
#ifndef IOPSAMPLE_HOST_SETTINGS_H
#define IOPSAMPLE_HOST_SETTINGS_H

#include <jansson.h>

#include "log.h"

/* Makes the sysctl `name` (dotted, "kernel.task_delayacct") read `want` for
 * the rest of the episode, on behalf of the source `by`. 0 when it reads
 * want (as found, or changed here); -errno with why when it does not and
 * cannot be changed (not root, a read-only /proc/sys). */
int host_settings_sysctl(const char *name, const char *want, const char *by, struct errbuf *why);

/* The manifest's "host_changes": one object per setting asked for. */
json_t *host_settings_json(void);

/* Puts back every change this episode holds, when it is the last episode
 * holding it, and stops the guardian. Idempotent. */
void host_settings_restore(void);

#endif
