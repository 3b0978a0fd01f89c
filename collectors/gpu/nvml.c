// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Opening NVML at run time: dlopen, the functions by name, nvmlInit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml.h"

/* Each function pointer of struct nvml and the symbol it is; the required
 * ones first. */
#define SYM(field, name) {offsetof(struct nvml, field), name}
static const struct {
	size_t at;
	const char *name;
} required[] = {
	SYM(Init_v2, "nvmlInit_v2"),
	SYM(Shutdown, "nvmlShutdown"),
	SYM(ErrorString, "nvmlErrorString"),
	SYM(DeviceGetCount_v2, "nvmlDeviceGetCount_v2"),
	SYM(DeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex_v2"),
	SYM(DeviceGetHandleByUUID, "nvmlDeviceGetHandleByUUID"),
	SYM(DeviceGetUUID, "nvmlDeviceGetUUID"),
	SYM(DeviceGetIndex, "nvmlDeviceGetIndex"),
}, optional[] = {
	SYM(SystemGetDriverVersion, "nvmlSystemGetDriverVersion"),
	SYM(SystemGetNVMLVersion, "nvmlSystemGetNVMLVersion"),
	SYM(DeviceGetName, "nvmlDeviceGetName"),
	SYM(DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration"),
	SYM(DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth"),
	SYM(DeviceGetFieldValues, "nvmlDeviceGetFieldValues"),
	SYM(DeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption"),
	SYM(DeviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates"),
	SYM(DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo"),
	SYM(DeviceGetComputeRunningProcesses_v3, "nvmlDeviceGetComputeRunningProcesses_v3"),
	SYM(DeviceGetGraphicsRunningProcesses_v3, "nvmlDeviceGetGraphicsRunningProcesses_v3"),
	SYM(DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage"),
	SYM(DeviceGetClockInfo, "nvmlDeviceGetClockInfo"),
	SYM(DeviceGetTemperature, "nvmlDeviceGetTemperature"),
	SYM(DeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons"),
};

static void **slot(struct nvml *n, size_t at)
{
	return (void **)((char *)n + at);
}

static int open_library(struct nvml *n, struct errbuf *why);

/* NVML may start threads of its own, which take the signal mask of the
 * thread that starts them: with every signal blocked, none of them ever
 * takes a signal meant for iopsample (which reads its own from a
 * signalfd, blocked in its thread). */
int nvml_open(struct nvml *n, struct errbuf *why)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = open_library(n, why);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int open_library(struct nvml *n, struct errbuf *why)
{
	memset(n, 0, sizeof(*n));
	const char *test = getenv(NVML_TEST_VARIABLE);
	n->test_double = test && *test;
	snprintf(n->path, sizeof(n->path), "%s", n->test_double ? test : NVML_LIBRARY);
	n->handle = dlopen(n->path, RTLD_NOW | RTLD_LOCAL);
	if (!n->handle)
		return errbuf_set(why, ENOENT, "no NVIDIA driver: %s", dlerror());
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!(*slot(n, required[i].at) = dlsym(n->handle, required[i].name))) {
			int r = errbuf_set(why, ENOSYS, "%s has no %s: a driver older than NVML 450",
					   n->path, required[i].name);
			nvml_close(n);
			return r;
		}
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		*slot(n, optional[i].at) = dlsym(n->handle, optional[i].name);
	/* the name before driver 535 */
	if (!n->DeviceGetCurrentClocksEventReasons)
		*(void **)&n->DeviceGetCurrentClocksEventReasons =
			dlsym(n->handle, "nvmlDeviceGetCurrentClocksThrottleReasons");

	nvmlReturn_t r = n->Init_v2();
	if (r != NVML_SUCCESS) {
		int err = r == NVML_ERROR_NO_PERMISSION ? EACCES : ENODEV;
		errbuf_set(why, err, "%s: nvmlInit: %s", n->path, nvml_error(n, r));
		n->Init_v2 = NULL; /* nothing to shut down */
		nvml_close(n);
		return -err;
	}
	return 0;
}

void nvml_close(struct nvml *n)
{
	if (n->handle) {
		if (n->Init_v2 && n->Shutdown)
			n->Shutdown();
		dlclose(n->handle);
	}
	n->handle = NULL;
}

const char *nvml_error(const struct nvml *n, nvmlReturn_t r)
{
	const char *s = n->ErrorString ? n->ErrorString(r) : NULL;
	return s ? s : "unknown NVML error";
}
