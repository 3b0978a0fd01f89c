// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The table of sources. The only place in iopsample that lists them. */
#include <string.h>

#include "collector.h"

extern const struct collector_ops proc_io_ops;
extern const struct collector_ops syscall_io_ops;
extern const struct collector_ops perf_event_ops;
extern const struct collector_ops block_io_ops;
extern const struct collector_ops diskstats_ops;
extern const struct collector_ops taskstats_ops;
extern const struct collector_ops cgroup_ops;
extern const struct collector_ops gpu_ops;
extern const struct collector_ops waits_ops;
extern const struct collector_ops offcpu_ops;
extern const struct collector_ops net_ops;

const struct collector_ops *const collector_registry[] = {
	&proc_io_ops,
	&syscall_io_ops,
	&perf_event_ops,
	&block_io_ops,
	&diskstats_ops,
	&taskstats_ops,
	&cgroup_ops,
	&gpu_ops,
	&waits_ops,
	&offcpu_ops,
	&net_ops,
	NULL,
};

const struct collector_ops *collector_find(const char *name)
{
	for (const struct collector_ops *const *o = collector_registry; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}
