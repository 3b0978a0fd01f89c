// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* One GPU's readings through NVML: what each call gives, and the
 * counters' changes (gpu_source.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "gpu_math.h"
#include "gpu_source.h"
#include "procfs.h"

/* The reader's mutex guards what it shares with the sampler, once it runs. */
void gpu_lock(struct gpu *g)
{
	if (g->running)
		pthread_mutex_lock(&g->mu);
}

void gpu_unlock(struct gpu *g)
{
	if (g->running)
		pthread_mutex_unlock(&g->mu);
}

const struct gpu_field gpu_fields[NFIELDS] = {
	[F_PCIE_TX] = {"pcie_tx_bytes", R_PCIE, SUM},
	[F_PCIE_RX] = {"pcie_rx_bytes", R_PCIE, SUM},
	[F_ENERGY] = {"energy_mj", R_ENERGY, SUM},
	[F_GPU_UTIL] = {"gpu_util_pct", R_UTIL, MEAN},
	[F_MEM_UTIL] = {"mem_util_pct", R_UTIL, MEAN},
	[F_MEM_USED] = {"mem_used_bytes", R_MEMORY, SUM},
	[F_TREE_MEM] = {"tree_mem_bytes", R_PROCESSES, SUM},
	[F_TREE_PROCS] = {"tree_processes", R_PROCESSES, DISTINCT},
	[F_POWER] = {"power_mw", R_POWER, SUM},
	[F_SM_CLOCK] = {"sm_clock_mhz", R_CLOCK, MEAN},
	[F_TEMP] = {"temperature_c", R_TEMP, MAX},
};
/* the call each reading is, for the manifest's reasons */
const char *const gpu_reading_calls[NREADINGS] = {
	"nvmlDeviceGetFieldValues(PCIE_COUNT_TX_BYTES, PCIE_COUNT_RX_BYTES)",
	"nvmlDeviceGetTotalEnergyConsumption",
	"nvmlDeviceGetUtilizationRates",
	"nvmlDeviceGetMemoryInfo",
	"nvmlDeviceGetComputeRunningProcesses_v3",
	"nvmlDeviceGetPowerUsage",
	"nvmlDeviceGetClockInfo(SM)",
	"nvmlDeviceGetTemperature(GPU)",
	"nvmlDeviceGetCurrentClocksEventReasons"};

/* throttle_reasons' keys and NVML's bits for them */
const struct gpu_reason gpu_reasons[] = {
	{"gpu_idle", NVML_CLOCKS_EVENT_GPU_IDLE},
	{"applications_clocks", NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS},
	{"sw_power_cap", NVML_CLOCKS_EVENT_SW_POWER_CAP},
	{"hw_slowdown", NVML_CLOCKS_EVENT_HW_SLOWDOWN},
	{"sync_boost", NVML_CLOCKS_EVENT_SYNC_BOOST},
	{"sw_thermal", NVML_CLOCKS_EVENT_SW_THERMAL},
	{"hw_thermal", NVML_CLOCKS_EVENT_HW_THERMAL},
	{"hw_power_brake", NVML_CLOCKS_EVENT_HW_POWER_BRAKE},
	{"display_clocks", NVML_CLOCKS_EVENT_DISPLAY_CLOCKS},
};
const size_t gpu_nreasons = sizeof(gpu_reasons) / sizeof(gpu_reasons[0]);

/* A process's parent as /proc shows it; 0 when it shows no such process. */
static pid_t ppid_of(pid_t pid, void *arg)
{
	(void)arg;
	struct proc_stat st;
	return procfs_read_stat(pid, &st) < 0 ? 0 : st.ppid;
}

/* Whether pid is the tree's, as the previous reading found it (a pid
 * listed at two readings in a row is the same process: it could only be
 * reused after leaving the list), else from /proc. A pid /proc does not
 * show has exited since NVML listed it, or is of a pid namespace this
 * /proc does not see: only a nested namespace has those, and a pid that
 * stays listed is no exited process. */
static bool in_tree(struct gpu *g, pid_t pid)
{
	for (size_t i = 0; i < g->nseen; i++)
		if (g->seen[i].pid == pid) {
			g->seen[i].listed = true;
			if (g->seen[i].hidden && g->nested_pidns) {
				gpu_lock(g);
				g->unmatched = pid;
				gpu_unlock(g);
			}
			return g->seen[i].in;
		}
	bool in = gpu_in_tree(pid, g->target, g->keeper, g->observer, ppid_of, NULL);
	bool hidden = !in && pid != 1 && ppid_of(pid, NULL) == 0;
	if (g->nseen < sizeof(g->seen) / sizeof(g->seen[0]))
		g->seen[g->nseen++] = (struct gpu_seen){pid, in, true, hidden};
	return in;
}

bool gpu_pidns_nested(void)
{
	/* the host's pid namespace has a fixed inode (the kernel's
	 * PROC_PID_INIT_INO); NSpid in /proc/self/status cannot tell, as a
	 * nested namespace's own /proc shows only its own pids there */
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != 0xEFFFFFFCu;
}

/* Forgets the pids the last reading of every GPU did not list. */
static void forget_unlisted(struct gpu *g)
{
	size_t k = 0;
	for (size_t i = 0; i < g->nseen; i++)
		if (g->seen[i].listed) {
			g->seen[i].listed = false;
			g->seen[k++] = g->seen[i];
		}
	g->nseen = k;
}

/* The processes on d, compute and graphics (one process in both counted
 * once): how many are the tree's and their memory. */
static nvmlReturn_t read_processes(struct gpu *g, struct gpu_dev *d, bool *mem_known)
{
	const struct nvml *nv = &g->nvml;
	nvml_procs_fn fn[2] = {nv->DeviceGetComputeRunningProcesses_v3,
			       nv->DeviceGetGraphicsRunningProcesses_v3};
	if (!fn[0])
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	unsigned n = 0;
	for (int k = 0; k < 2; k++) {
		if (!fn[k])
			continue;
		nvmlReturn_t r;
		unsigned got;
		for (;;) {
			got = g->procs_cap - n;
			r = fn[k](d->h, &got, g->procs + n);
			if (r != NVML_ERROR_INSUFFICIENT_SIZE)
				break;
			/* got is how many there are now; leave room for more */
			unsigned cap = n + got + 16;
			nvmlProcessInfo_t *p = realloc(g->procs, cap * sizeof(*p));
			if (!p)
				return NVML_ERROR_UNKNOWN;
			g->procs = p;
			g->procs_cap = cap;
		}
		if (r == NVML_ERROR_NOT_SUPPORTED && k == 1)
			continue; /* no graphics on a compute GPU */
		if (r != NVML_SUCCESS)
			return r;
		n += got;
	}
	uint64_t mem = 0, count = 0;
	*mem_known = true;
	if (d->tree_pids_cap < n) {
		pid_t *p = realloc(d->tree_pids, n * sizeof(*p));
		if (!p)
			return NVML_ERROR_UNKNOWN;
		d->tree_pids = p;
		d->tree_pids_cap = n;
	}
	for (unsigned i = 0; i < n; i++) {
		bool again = false; /* the same process in both lists */
		for (unsigned k = 0; k < i && !again; k++)
			again = g->procs[k].pid == g->procs[i].pid;
		pid_t pid = (pid_t)g->procs[i].pid;
		if (again || !in_tree(g, pid))
			continue;
		d->tree_pids[count++] = pid;
		if (g->procs[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE)
			*mem_known = false;
		else
			mem += g->procs[i].usedGpuMemory;
	}
	d->ntree_pids = (unsigned)count;
	d->v[F_TREE_PROCS] = (int64_t)count;
	d->v[F_TREE_MEM] = (int64_t)mem;
	return NVML_SUCCESS;
}

/* The PCIe counters now; their width from NVML's value type. */
static nvmlReturn_t read_pcie(const struct nvml *nv, struct gpu_dev *d, uint64_t out[2])
{
	if (!nv->DeviceGetFieldValues)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlFieldValue_t fv[2] = {{.fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES},
				  {.fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES}};
	nvmlReturn_t r = nv->DeviceGetFieldValues(d->h, 2, fv);
	for (int k = 0; k < 2 && r == NVML_SUCCESS; k++) {
		r = fv[k].nvmlReturn;
		if (r != NVML_SUCCESS)
			break;
		switch (fv[k].valueType) {
		case NVML_VALUE_TYPE_UNSIGNED_INT:
			out[k] = fv[k].value.uiVal;
			d->pcie_bits = 32;
			break;
		case NVML_VALUE_TYPE_UNSIGNED_LONG:
		case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
			out[k] = fv[k].value.ullVal;
			d->pcie_bits = 64;
			break;
		default:
			return NVML_ERROR_NOT_SUPPORTED;
		}
	}
	return r;
}

/* A one-field gauge's reading, v, into d when r says it came. */
static nvmlReturn_t gauge(struct gpu_dev *d, enum field f, nvmlReturn_t r, unsigned v)
{
	if (r == NVML_SUCCESS) {
		d->known[f] = true;
		d->v[f] = v;
	}
	return r;
}

/* Takes reading which of d: a gauge into its values, a counter's change
 * into its acc_* (the first reading is the baseline). */
static nvmlReturn_t take(struct gpu *g, struct gpu_dev *d, enum reading which)
{
	const struct nvml *nv = &g->nvml;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	unsigned u = 0;
	switch (which) {
	case R_PCIE: {
		/* The driver samples the counters somewhere inside the call, which
		 * it may hold for a long time (a CUDA context being made): the two
		 * values compared were sampled at most from the previous call's
		 * start to this one's end apart, and that is the span judged. */
		uint64_t c[2];
		int64_t asked = clock_mono_ns();
		if ((r = read_pcie(nv, d, c)) != NVML_SUCCESS)
			break;
		int64_t answered = clock_mono_ns();
		if (d->pcie_ok) {
			gpu_lock(g);
			if (answered - d->pcie_ns >= d->pcie_safe_ns)
				d->acc_ambiguous = true;
			for (int k = 0; k < 2; k++)
				d->acc_pcie[k] += gpu_wrap_delta(d->pcie[k], c[k], d->pcie_bits);
			gpu_unlock(g);
		}
		d->pcie[0] = c[0];
		d->pcie[1] = c[1];
		d->pcie_ns = asked;
		d->pcie_ok = true;
		return r;
	}
	case R_ENERGY: {
		unsigned long long e = 0;
		if (!nv->DeviceGetTotalEnergyConsumption ||
		    (r = nv->DeviceGetTotalEnergyConsumption(d->h, &e)) != NVML_SUCCESS)
			break;
		gpu_lock(g);
		if (d->energy_ok)
			d->acc_energy += e >= d->energy ? e - d->energy : 0;
		d->energy_ok = true;
		gpu_unlock(g);
		d->energy = e;
		/* the next is due ENERGY_EVERY_NS after this one's end: counted
		 * from when the caller asked, a call that began late and the next
		 * on time came less than that apart (99.9 ms at 100 ms) */
		d->energy_ns = clock_mono_ns();
		return r;
	}
	case R_UTIL: {
		nvmlUtilization_t ut;
		if (!nv->DeviceGetUtilizationRates ||
		    (r = nv->DeviceGetUtilizationRates(d->h, &ut)) != NVML_SUCCESS)
			break;
		d->known[F_GPU_UTIL] = d->known[F_MEM_UTIL] = true;
		d->v[F_GPU_UTIL] = ut.gpu;
		d->v[F_MEM_UTIL] = ut.memory;
		return r;
	}
	case R_MEMORY: {
		nvmlMemory_t m;
		if (!nv->DeviceGetMemoryInfo || (r = nv->DeviceGetMemoryInfo(d->h, &m)) != NVML_SUCCESS)
			break;
		d->known[F_MEM_USED] = true;
		d->v[F_MEM_USED] = (int64_t)m.used;
		return r;
	}
	case R_PROCESSES: {
		bool mem_known;
		if ((r = read_processes(g, d, &mem_known)) != NVML_SUCCESS)
			break;
		d->known[F_TREE_PROCS] = true;
		d->known[F_TREE_MEM] = mem_known;
		return r;
	}
	case R_POWER:
		if (nv->DeviceGetPowerUsage)
			r = nv->DeviceGetPowerUsage(d->h, &u);
		return gauge(d, F_POWER, r, u);
	case R_CLOCK:
		if (nv->DeviceGetClockInfo)
			r = nv->DeviceGetClockInfo(d->h, NVML_CLOCK_SM, &u);
		return gauge(d, F_SM_CLOCK, r, u);
	case R_TEMP:
		if (nv->DeviceGetTemperature)
			r = nv->DeviceGetTemperature(d->h, NVML_TEMPERATURE_GPU, &u);
		return gauge(d, F_TEMP, r, u);
	case R_THROTTLE:
		if (!nv->DeviceGetCurrentClocksEventReasons ||
		    (r = nv->DeviceGetCurrentClocksEventReasons(d->h, &d->throttle)) != NVML_SUCCESS)
			break;
		d->throttle_known = true;
		return r;
	case NREADINGS:
		break;
	}
	return r;
}

void gpu_read_device(struct gpu *g, struct gpu_dev *d, int64_t now)
{
	memset(d->known, 0, sizeof(d->known));
	d->throttle_known = false;
	for (int i = 0; i < NREADINGS; i++) {
		if (i == R_ENERGY || d->unsupported[i][0])
			continue;
		nvmlReturn_t r = take(g, d, (enum reading)i);
		d->failed[i] = r;
		if (r == NVML_ERROR_GPU_IS_LOST) {
			gpu_lock(g);
			d->lost = true;
			d->lost_ns = now;
			gpu_unlock(g);
			memset(d->known, 0, sizeof(d->known));
			d->throttle_known = false;
			return;
		}
	}
}

void gpu_read_all(struct gpu *g, int64_t now)
{
	for (size_t i = 0; i < g->n; i++)
		if (!g->dev[i].lost)
			gpu_read_device(g, &g->dev[i], now);
	forget_unlisted(g);
}

void gpu_read_energy(struct gpu *g, struct gpu_dev *d, int64_t now, bool any_time)
{
	int64_t every = ENERGY_COST_SHARE * d->energy_cost_ns;
	if (every < ENERGY_EVERY_NS)
		every = ENERGY_EVERY_NS;
	if (d->lost || d->unsupported[R_ENERGY][0] ||
	    (!any_time && d->energy_ok && now - d->energy_ns < every))
		return;
	nvmlReturn_t r = take(g, d, R_ENERGY);
	d->energy_cost_ns = clock_mono_ns() - now;
	gpu_lock(g);
	d->failed[R_ENERGY] = r;
	if (r == NVML_ERROR_GPU_IS_LOST && !d->lost) {
		d->lost = true;
		d->lost_ns = now;
	}
	gpu_unlock(g);
}

/* What d is and which readings it gives: the first reading of each (the
 * counters' baselines), a reading refused recorded with NVML's reason. */
json_t *gpu_open_device(struct gpu *g, struct gpu_dev *d, nvmlDevice_t h)
{
	const struct nvml *nv = &g->nvml;
	d->h = h;
	if (nv->DeviceGetIndex(h, &d->index) != NVML_SUCCESS)
		d->index = (unsigned)(d - g->dev);
	snprintf(d->key, sizeof(d->key), "%u", d->index);
	nv->DeviceGetUUID(h, d->uuid, sizeof(d->uuid));
	if (!nv->DeviceGetName || nv->DeviceGetName(h, d->name, sizeof(d->name)) != NVML_SUCCESS)
		d->name[0] = '\0';
	if (!nv->DeviceGetMaxPcieLinkGeneration ||
	    nv->DeviceGetMaxPcieLinkGeneration(h, &d->pcie_gen) != NVML_SUCCESS)
		d->pcie_gen = 0;
	if (!nv->DeviceGetMaxPcieLinkWidth ||
	    nv->DeviceGetMaxPcieLinkWidth(h, &d->pcie_width) != NVML_SUCCESS)
		d->pcie_width = 0;
	d->pcie_bits = 32;

	json_t *null_fields = json_object();
	for (int i = 0; i < NREADINGS; i++) {
		nvmlReturn_t r = d->lost ? NVML_ERROR_GPU_IS_LOST : take(g, d, (enum reading)i);
		if (r == NVML_ERROR_GPU_IS_LOST)
			d->lost = true;
		if (r == NVML_SUCCESS)
			continue;
		snprintf(d->unsupported[i], sizeof(d->unsupported[i]), "%s: %s", gpu_reading_calls[i],
			 r == NVML_ERROR_FUNCTION_NOT_FOUND ? "not in this driver's NVML" : nvml_error(nv, r));
		for (int f = 0; f < NFIELDS; f++)
			if (gpu_fields[f].from == (enum reading)i)
				json_object_set_new(null_fields, gpu_fields[f].name,
						    json_string(d->unsupported[i]));
		if (i == R_THROTTLE)
			json_object_set_new(null_fields, "throttle_reasons", json_string(d->unsupported[i]));
	}
	/* the longest interval the PCIe counters can span: unknown link,
	 * PCIe 6.0 x16's */
	uint64_t rate = gpu_pcie_max_bytes_per_s(d->pcie_gen, d->pcie_width);
	d->pcie_safe_ns = gpu_wrap_safe_ns(d->pcie_bits, rate ? rate : gpu_pcie_max_bytes_per_s(6, 16));
	if (!d->unsupported[R_PCIE][0] && g->interval_ns >= d->pcie_safe_ns) {
		char msg[320];
		snprintf(msg, sizeof(msg),
			 "GPU %s: pcie_tx_bytes and pcie_rx_bytes are null in rows of %.0f ms or longer: "
			 "its %u-bit counters can wrap more than once in that time at the link's highest rate; "
			 "an interval under %.0f ms gives them",
			 d->key, (double)d->pcie_safe_ns / 1e6, d->pcie_bits, (double)d->pcie_safe_ns / 1e6);
		json_array_append_new(g->warnings, json_string(msg));
	}
	return json_pack("{s:i, s:s, s:s, s:o, s:o, s:i, s:I, s:o}", "index", d->index, "uuid", d->uuid,
			 "name", d->name, "pcie_max_gen", d->pcie_gen ? json_integer(d->pcie_gen) : json_null(),
			 "pcie_max_width", d->pcie_width ? json_integer(d->pcie_width) : json_null(),
			 "pcie_counter_bits", d->pcie_bits, "pcie_max_interval_ns",
			 (json_int_t)(d->pcie_safe_ns == INT64_MAX ? 0 : d->pcie_safe_ns), "null_fields",
			 null_fields);
}

