// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* See gpu_math.h. */
#include "gpu_math.h"

uint64_t gpu_wrap_delta(uint64_t prev, uint64_t now, unsigned bits)
{
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	return (now - prev) & mask;
}

uint64_t gpu_pcie_max_bytes_per_s(unsigned gen, unsigned width)
{
	/* GT/s per lane, PCIe 1.0 to 6.0 */
	static const uint64_t gts[] = {0, 2500000000, 5000000000, 8000000000, 16000000000,
				       32000000000, 64000000000};
	if (gen == 0 || gen >= sizeof(gts) / sizeof(gts[0]) || width == 0 || width > 32)
		return 0;
	return gts[gen] / 8 * width;
}

int64_t gpu_wrap_safe_ns(unsigned bits, uint64_t max_bytes_per_s)
{
	if (bits >= 64 || max_bytes_per_s == 0)
		return bits >= 64 ? INT64_MAX : 0;
	/* 2^bits bytes at the most the link moves, in ns */
	return (int64_t)((double)(UINT64_C(1) << bits) * 1e9 / (double)max_bytes_per_s);
}

bool gpu_in_tree(pid_t pid, pid_t target, pid_t keeper, pid_t observer, gpu_ppid_fn ppid_of,
		 void *arg)
{
	if (pid <= 0 || pid == keeper)
		return false;
	/* a chain longer than pid_max is a loop read while pids were reused */
	for (int depth = 0; pid > 1 && depth < 4194304; depth++) {
		if (observer && pid == observer)
			return false;
		if (pid == target || (keeper && pid == keeper))
			return true;
		pid = ppid_of(pid, arg);
	}
	return false;
}
