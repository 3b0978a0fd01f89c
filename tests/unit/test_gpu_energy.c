// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* When the gpu source reads a GPU's energy (gpu_source.h): a reading costs
 * milliseconds, so the next is due ENERGY_EVERY_NS after the last one
 * ended, not after it was asked for. The driver's call here is a double
 * held 0.5 ms that notes when it began and ended; the times the source is
 * given are chosen around those. */
#include <time.h>

#include "clock.h"
#include "gpu/gpu_source.h"
#include "testing.h"

static int calls;
static int64_t began, ended;

static nvmlReturn_t held_energy(nvmlDevice_t h, unsigned long long *mj)
{
	(void)h;
	began = clock_mono_ns();
	struct timespec hold = {.tv_nsec = 500000};
	while (nanosleep(&hold, &hold) < 0)
		;
	*mj = 1000 + 10 * (unsigned long long)calls++;
	ended = clock_mono_ns();
	return NVML_SUCCESS;
}

TEST(an_energy_reading_is_due_a_full_interval_after_the_last_one_ended)
{
	static struct gpu g;
	g.nvml.DeviceGetTotalEnergyConsumption = held_energy;
	g.n = 1;
	struct gpu_dev *d = &g.dev[0];

	int64_t asked = clock_mono_ns();
	gpu_read_energy(&g, d, asked, false);
	EXPECT_EQ(calls, 1);
	EXPECT(began >= asked && ended - began >= 500000);

	/* a full interval after it was asked for, but less after it ended:
	 * not yet (counted from the ask, this read, 99.5 ms after the end) */
	gpu_read_energy(&g, d, asked + ENERGY_EVERY_NS, false);
	gpu_read_energy(&g, d, ended + ENERGY_EVERY_NS - 1, false);
	EXPECT_EQ(calls, 1);

	/* long after it (100 s: ENERGY_COST_SHARE times the cost, were it
	 * slowed to a second): read, and what it added is the change */
	int64_t first_end = ended;
	gpu_read_energy(&g, d, first_end + 1000 * ENERGY_EVERY_NS, false);
	EXPECT_EQ(calls, 2);
	EXPECT_EQ(d->acc_energy, 10);

	/* the last reading of an episode, whenever it comes */
	gpu_read_energy(&g, d, ended, true);
	EXPECT_EQ(calls, 3);
	EXPECT_EQ(d->acc_energy, 20);
}
