/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The part of NVML (the NVIDIA Management Library, libnvidia-ml.so.1, which
 * ships with the driver) the gpu source calls, declared here as NVML's own
 * nvml.h declares it, so that building iopsample needs no NVIDIA package and
 * the binary runs where no driver is: the library is opened at run time
 * (dlopen), as nvtop and DCGM's exporters open it.
 *
 * Only the types, constants and functions used are here, with NVML's names
 * and layouts (the ABI of driver 450 and later: nvmlInit_v2, the _v2 index
 * calls, nvmlProcessInfo_t of the _v3 process queries). */
#ifndef IOPSAMPLE_NVML_H
#define IOPSAMPLE_NVML_H

#include <stdbool.h>

#include "log.h"

typedef enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80

/* nvmlDeviceGetFieldValues: one request and its answer. */
typedef enum {
	NVML_VALUE_TYPE_DOUBLE = 0,
	NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	NVML_VALUE_TYPE_SIGNED_INT = 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
} nvmlValueType_t;

typedef union {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;

typedef struct {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	nvmlValueType_t valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;

/* Bytes the GPU sent and received over PCIe, protocol overhead included:
 * counters of 32 bits (NVML 12.x), which wrap. */
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES 197
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES 198

typedef struct {
	unsigned int gpu;    /* percent of the sample period a kernel ran */
	unsigned int memory; /* percent of it the memory was read or written */
} nvmlUtilization_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

/* The _v3 process queries' entry. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* NVML_VALUE_NOT_AVAILABLE: unknown */
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

#define NVML_CLOCK_SM 1
#define NVML_TEMPERATURE_GPU 0

/* nvmlDeviceGetCurrentClocksEventReasons' bits (ThrottleReasons before
 * driver 535). */
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x1ULL
#define NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS 0x2ULL
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ULL
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ULL
#define NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ULL
#define NVML_CLOCKS_EVENT_SW_THERMAL 0x20ULL
#define NVML_CLOCKS_EVENT_HW_THERMAL 0x40ULL
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ULL
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCKS 0x100ULL

typedef nvmlReturn_t (*nvml_procs_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);

/* The library, opened. A function the library lacks is NULL (the calls
 * that need it say NVML_ERROR_FUNCTION_NOT_FOUND), except the first group,
 * without which nvml_open fails. */
struct nvml {
	void *handle;
	char path[256]; /* what was opened */
	bool test_double; /* path came from IOPSAMPLE_TEST_NVML */

	nvmlReturn_t (*Init_v2)(void);
	nvmlReturn_t (*Shutdown)(void);
	const char *(*ErrorString)(nvmlReturn_t);
	nvmlReturn_t (*DeviceGetCount_v2)(unsigned int *);
	nvmlReturn_t (*DeviceGetHandleByIndex_v2)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetHandleByUUID)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*DeviceGetIndex)(nvmlDevice_t, unsigned int *);

	nvmlReturn_t (*SystemGetDriverVersion)(char *, unsigned int);
	nvmlReturn_t (*SystemGetNVMLVersion)(char *, unsigned int);
	nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetFieldValues)(nvmlDevice_t, int, nvmlFieldValue_t *);
	nvmlReturn_t (*DeviceGetTotalEnergyConsumption)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
	nvml_procs_fn DeviceGetComputeRunningProcesses_v3;
	nvml_procs_fn DeviceGetGraphicsRunningProcesses_v3;
	nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*DeviceGetTemperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*DeviceGetCurrentClocksEventReasons)(nvmlDevice_t, unsigned long long *);
};

/* The library NVML is looked for as, and the variable that only tests set
 * to open another in its place (tests/fixtures/fake_nvml.c). */
#define NVML_LIBRARY "libnvidia-ml.so.1"
#define NVML_TEST_VARIABLE "IOPSAMPLE_TEST_NVML"

/* Opens the library and initialises NVML. 0, or a negative errno with why
 * naming the library and what failed (no library: -ENOENT; the driver
 * refused: -ENODEV; no permission: -EACCES). */
int nvml_open(struct nvml *n, struct errbuf *why);
/* Shuts NVML down and closes the library; n may be one nvml_open failed. */
void nvml_close(struct nvml *n);

/* "NVML_ERROR_NOT_SUPPORTED" style text of r, as the library words it. */
const char *nvml_error(const struct nvml *n, nvmlReturn_t r);

#endif
