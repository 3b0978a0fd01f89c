/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sources.taskstats as configured (source_config.priv), and what its probe
 * and prepare settled, for the sampler forked after them. */
#ifndef IOPSAMPLE_TS_CONFIG_H
#define IOPSAMPLE_TS_CONFIG_H

#include <stdbool.h>

#include "common/ebpf/ebpf_preload.h"
#include "log.h"

enum ts_backend_choice { TS_AUTO, TS_NETLINK, TS_BPF };

struct ts_config {
	enum ts_backend_choice backend;
	bool bpf; /* the threads are read by the task iterator */
	struct ebpf_preload preload; /* its programs, loaded by the probe */
	char backend_reason[sizeof(((struct errbuf *)0)->msg) + 64];
	bool no_sysctl; /* the kernel has no task_delayacct (before 5.14: on from boot) */
	bool found_on; /* task_delayacct read 1 before the episode */
	bool on;       /* ... and reads 1 for the target's tasks */
	char why_off[sizeof(((struct errbuf *)0)->msg)];
};

#endif
