// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* gpu: the GPUs the pipeline feeds, through NVML, on the episode's grid.
 * Deployable: NVML is what production GPU exporters (DCGM, nvidia-smi)
 * read. NVML is opened at run time (nvml.h): without a driver the source is
 * unavailable and says why.
 *
 * Each GPU selected gets its readings at every tick:
 *   - pcie_tx_bytes, pcie_rx_bytes: the change of NVML's PCIe byte counters
 *     (fields 197, 198), which are 32 bits wide and wrap. A change is taken
 *     modulo the counter's width, which is exact while the interval since
 *     the previous reading is shorter than the counter takes to wrap at the
 *     link's highest rate; a longer one is null (the manifest says the
 *     bound and how many rows);
 *   - energy_mj: the change of nvmlDeviceGetTotalEnergyConsumption, read at
 *     most every ENERGY_EVERY_NS (a reading costs milliseconds; see
 *     gpu_source.h) and for the final row: the row after a reading holds
 *     the change since the previous one, the rows between hold 0;
 *   - gauges at the tick: utilization (the driver's own window average),
 *     memory used, the tree's processes on the GPU and their memory, power,
 *     SM clock, temperature and the clock event (throttle) reasons.
 * The totals add the GPUs up (utilization and clock: their mean; the
 * temperature: the hottest; a throttle reason: how many GPUs have it), and
 * by_device has each GPU by its NVML index.
 *
 * A reading a GPU does not give at open is null in every row, with NVML's
 * reason in the manifest; a GPU lost mid-episode (NVML_ERROR_GPU_IS_LOST) is
 * null from then on, with a warning, and the episode goes on. The readings
 * are a thread's (gpu_reader.c): a row whose reading is late holds null
 * gauges, and its counters' change goes to the next. NVML is never loaded
 * into the process that probes: a child does it (gpu_probe). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "collector.h"
#include "fdutil.h"
#include "gpu_source.h"
#include "jsonl_writer.h"

#define GPU_SPEC_MAX NVML_DEVICE_UUID_V2_BUFFER_SIZE
/* How long a row waits for its reading: this share of the interval (the
 * next tick's row must not be late), and the last row at most FINAL_WAIT_NS. */
#define READ_WAIT_SHARE 0.8
#define FINAL_WAIT_NS (2 * NS_PER_S)
/* How long the probe's child may take: nvmlInit and a look at each GPU. */
#define PROBE_TIMEOUT_MS 30000

/* The config: devices as given (an index or a UUID), and the UUIDs of the
 * GPUs they resolved to, which probe settles for the sampler. */
struct gpu_config {
	bool chosen; /* devices given; else every GPU */
	size_t n;
	char spec[GPU_MAX_DEVICES][GPU_SPEC_MAX];
	size_t nuuid;
	char uuid[GPU_MAX_DEVICES][NVML_DEVICE_UUID_V2_BUFFER_SIZE];
};

/* ---- config ------------------------------------------------------------- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int add_device(void *arg, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct gpu_config *cfg = arg;
	if (!all_digits(name) && strncmp(name, "GPU-", 4) && strncmp(name, "MIG-", 4))
		return cfg_fail(c, item,
				"GPU \"%s\": give an NVML index (0, 1, ...) or a UUID (GPU-..., as nvidia-smi -L lists them)",
				name);
	if (strlen(name) >= GPU_SPEC_MAX)
		return cfg_fail(c, item, "GPU \"%.32s...\" is longer than a UUID", name);
	if (cfg->n == GPU_MAX_DEVICES)
		return cfg_fail(c, item, "more than %d GPUs", GPU_MAX_DEVICES);
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->spec[i], name))
			return cfg_fail(c, item, "GPU %s is listed twice", name);
	snprintf(cfg->spec[cfg->n++], GPU_SPEC_MAX, "%s", name);
	return 0;
}

static int gpu_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value)
{
	struct gpu_config *cfg = priv;
	if (strcmp(key, "devices"))
		return -ENOENT;
	cfg->n = 0;
	cfg->chosen = !cfg_is_null(value);
	return cfg->chosen ? cfg_each_name(c, value, key, "GPU", add_device, cfg) : 0;
}

static void gpu_describe(const void *priv, json_t *out)
{
	const struct gpu_config *cfg = priv;
	json_t *list = json_null();
	if (cfg->chosen) {
		list = json_array();
		for (size_t i = 0; i < cfg->n; i++)
			json_array_append_new(list, all_digits(cfg->spec[i])
							    ? json_integer(atoll(cfg->spec[i]))
							    : json_string(cfg->spec[i]));
	}
	json_object_set_new(out, "devices", list);
}

/* ---- one GPU ------------------------------------------------------------ */

/* The handles of the GPUs the config names (every GPU when it names none). */
static int resolve(struct nvml *nv, const struct gpu_config *cfg, nvmlDevice_t *h, size_t *n,
		   struct errbuf *why)
{
	unsigned count = 0;
	nvmlReturn_t r = nv->DeviceGetCount_v2(&count);
	if (r != NVML_SUCCESS)
		return errbuf_set(why, ENODEV, "nvmlDeviceGetCount: %s", nvml_error(nv, r));
	*n = 0;
	if (!cfg->chosen) {
		if (count == 0)
			return errbuf_set(why, ENODEV, "NVML (%s) sees no GPU", nv->path);
		for (unsigned i = 0; i < count && *n < GPU_MAX_DEVICES; i++) {
			if ((r = nv->DeviceGetHandleByIndex_v2(i, &h[*n])) != NVML_SUCCESS)
				return errbuf_set(why, ENODEV, "GPU %u: %s", i, nvml_error(nv, r));
			(*n)++;
		}
		return 0;
	}
	for (size_t i = 0; i < cfg->n; i++) {
		const char *s = cfg->spec[i];
		if (all_digits(s)) {
			unsigned long idx = strtoul(s, NULL, 10);
			if (idx >= count)
				return errbuf_set(why, ENODEV, "devices: no GPU %s (NVML sees %u)", s, count);
			r = nv->DeviceGetHandleByIndex_v2((unsigned)idx, &h[*n]);
		} else {
			r = nv->DeviceGetHandleByUUID(s, &h[*n]);
		}
		if (r != NVML_SUCCESS)
			return errbuf_set(why, ENODEV, "devices: GPU %s: %s", s, nvml_error(nv, r));
		for (size_t k = 0; k < *n; k++)
			if (h[k] == h[*n])
				return errbuf_set(why, EINVAL, "devices: GPU %s is named twice", s);
		(*n)++;
	}
	return 0;
}

/* What NVML is: the library, the driver's and NVML's versions. */
static json_t *nvml_json(const struct nvml *nv)
{
	char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
	char version[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = "";
	if (nv->SystemGetDriverVersion)
		nv->SystemGetDriverVersion(driver, sizeof(driver));
	if (nv->SystemGetNVMLVersion)
		nv->SystemGetNVMLVersion(version, sizeof(version));
	return json_pack("{s:s, s:b, s:s?, s:s?}", "library", nv->path, "test_double", nv->test_double,
			 "driver_version", *driver ? driver : NULL, "nvml_version", *version ? version : NULL);
}

/* ---- rows --------------------------------------------------------------- */

/* The fields' keys in obj, in order, null. */
static void put_fields(json_t *obj)
{
	for (int f = 0; f < NFIELDS; f++)
		json_object_set_new(obj, gpu_fields[f].name, json_null());
}

static void warn(struct gpu *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct gpu *g, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(g->warnings, json_string(msg));
}

/* d's values for this row: the reading's gauges when it came in time
 * (fresh), the counters' change since the previous row (under the
 * reader's mutex); what went wrong said once. */
static void settle(struct gpu *g, struct gpu_dev *d, bool fresh, int64_t now)
{
	double after = (double)(now - g->start_ns) / 1e9;
	gpu_lock(g);
	bool lost = d->lost;
	if (lost && !d->lost_warned) {
		d->lost_warned = true;
		warn(g, "GPU %s (%s) was lost after %.3f s (NVML_ERROR_GPU_IS_LOST): its fields are null from then on",
		     d->key, d->uuid, (double)(d->lost_ns - g->start_ns) / 1e9);
	}
	for (int i = 0; i < NREADINGS && !lost; i++) {
		nvmlReturn_t r = (fresh || i == R_ENERGY) ? d->failed[i] : NVML_SUCCESS;
		if (r == NVML_SUCCESS || d->warned[i])
			continue;
		d->warned[i] = true;
		warn(g, "GPU %s: %s failed after %.3f s (%s): its fields are null in that row", d->key,
		     gpu_reading_calls[i], after, nvml_error(&g->nvml, r));
	}
	if (fresh && !lost) {
		memcpy(d->row_known, d->known, sizeof(d->row_known));
		memcpy(d->row_v, d->v, sizeof(d->row_v));
		d->row_throttle_known = d->throttle_known;
		d->row_throttle = d->throttle;
	} else {
		memset(d->row_known, 0, sizeof(d->row_known));
		d->row_throttle_known = false;
	}
	/* PCIe: the change since the previous row, when this row's reading
	 * came (else the next row holds it) */
	bool pcie = fresh && !lost && d->failed[R_PCIE] == NVML_SUCCESS && !d->unsupported[R_PCIE][0];
	if (pcie && d->acc_ambiguous) {
		g->pcie_rows_nulled++;
		pcie = false;
	}
	if (pcie || d->acc_ambiguous) {
		d->row_v[F_PCIE_TX] = (int64_t)d->acc_pcie[0];
		d->row_v[F_PCIE_RX] = (int64_t)d->acc_pcie[1];
		d->acc_pcie[0] = d->acc_pcie[1] = 0;
		d->acc_ambiguous = false;
	}
	d->row_known[F_PCIE_TX] = d->row_known[F_PCIE_RX] = pcie;
	/* energy: the readings that ended since the previous row */
	d->row_known[F_ENERGY] = !lost && d->energy_ok;
	d->row_v[F_ENERGY] = (int64_t)d->acc_energy;
	d->acc_energy = 0;
	d->failed[R_ENERGY] = NVML_SUCCESS;
	gpu_unlock(g);
}

static void put_device(struct gpu_dev *d)
{
	for (int f = 0; f < NFIELDS; f++)
		jsonl_cell_int(d->obj, gpu_fields[f].name, d->row_known[f], d->row_v[f]);
	for (size_t k = 0; k < gpu_nreasons; k++)
		jsonl_cell_int(d->throttle_obj, gpu_reasons[k].name, d->row_throttle_known,
			       (d->row_throttle & gpu_reasons[k].bit) != 0);
}

/* What g holds besides NVML. */
static void gpu_free(struct gpu *g)
{
	free(g->procs);
	free(g->union_pids);
	for (size_t i = 0; i < g->n; i++)
		free(g->dev[i].tree_pids);
	free(g);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* tree_processes' total: the tree's processes on any GPU of the row, a
 * process on several counted once; -1 when no GPU's is known. (A row's
 * known reading is done: the reader writes no pid list until the next.) */
static int64_t tree_processes(struct gpu *g)
{
	size_t n = 0, known = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->dev[i].row_known[F_TREE_PROCS])
			known++, n += g->dev[i].ntree_pids;
	if (!known)
		return -1;
	if (n > g->union_cap) {
		pid_t *p = realloc(g->union_pids, n * sizeof(*p));
		if (!p)
			return -1;
		g->union_pids = p;
		g->union_cap = n;
	}
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->dev[i].row_known[F_TREE_PROCS])
			for (unsigned j = 0; j < g->dev[i].ntree_pids; j++)
				g->union_pids[k++] = g->dev[i].tree_pids[j];
	if (k > 1) /* no list at all: qsort's pointer may not be NULL */
		qsort(g->union_pids, k, sizeof(pid_t), cmp_pid);
	int64_t distinct = 0;
	for (size_t j = 0; j < k; j++)
		distinct += j == 0 || g->union_pids[j] != g->union_pids[j - 1];
	return distinct;
}

static void put_totals(struct gpu *g)
{
	for (int f = 0; f < NFIELDS; f++) {
		int64_t sum = 0, max = 0;
		size_t n = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct gpu_dev *d = &g->dev[i];
			if (!d->row_known[f])
				continue;
			sum += d->row_v[f];
			max = n == 0 || d->row_v[f] > max ? d->row_v[f] : max;
			n++;
		}
		if (gpu_fields[f].total == MEAN)
			jsonl_cell_real(g->total, gpu_fields[f].name, n > 0,
					n ? (double)sum / (double)n : 0);
		else if (gpu_fields[f].total == DISTINCT && (sum = tree_processes(g)) >= 0)
			jsonl_cell_int(g->total, gpu_fields[f].name, true, sum);
		else if (gpu_fields[f].total == DISTINCT)
			jsonl_cell_int(g->total, gpu_fields[f].name, false, 0);
		else
			jsonl_cell_int(g->total, gpu_fields[f].name, n > 0,
				       gpu_fields[f].total == MAX ? max : sum);
	}
	for (size_t k = 0; k < gpu_nreasons; k++) {
		int64_t with = 0;
		size_t n = 0;
		for (size_t i = 0; i < g->n; i++)
			if (g->dev[i].row_throttle_known) {
				n++;
				with += (g->dev[i].row_throttle & gpu_reasons[k].bit) != 0;
			}
		jsonl_cell_int(g->total_throttle, gpu_reasons[k].name, n > 0, with);
	}
}

static void fill_row(struct gpu *g)
{
	for (size_t i = 0; i < g->n; i++)
		put_device(&g->dev[i]);
	put_totals(g);
	json_integer_set(g->rows_nulled, (json_int_t)g->pcie_rows_nulled);
	json_integer_set(g->late_rows, (json_int_t)g->late);
}

/* ---- the source --------------------------------------------------------- */

/* The probe proper, in probe_in_child's child. */
static int probe_nvml(struct gpu_config *cfg, int64_t interval_ns, json_t *manifest,
		      struct errbuf *why)
{
	struct nvml nv;
	int r = nvml_open(&nv, why);
	json_object_set_new(manifest, "nvml", r < 0 ? json_pack("{s:s, s:b}", "library", nv.path,
								  "test_double", nv.test_double)
						    : nvml_json(&nv));
	if (r < 0)
		return r;
	nvmlDevice_t h[GPU_MAX_DEVICES];
	size_t n = 0;
	struct gpu *g = NULL;
	if ((r = resolve(&nv, cfg, h, &n, why)) == 0 && !(g = calloc(1, sizeof(*g))))
		r = errbuf_set(why, ENOMEM, "out of memory");
	if (r == 0) {
		/* what each GPU gives, as the sampler will find it */
		g->nvml = nv;
		g->interval_ns = interval_ns;
		g->warnings = json_array();
		g->n = n; /* what gpu_free frees */
		json_t *gpus = json_array();
		cfg->nuuid = n;
		for (size_t i = 0; i < n; i++) {
			json_array_append_new(gpus, gpu_open_device(g, &g->dev[i], h[i]));
			snprintf(cfg->uuid[i], sizeof(cfg->uuid[i]), "%s", g->dev[i].uuid);
		}
		json_object_set_new(manifest, "gpus", gpus);
		json_decref(g->warnings);
		gpu_free(g);
	}
	nvml_close(&nv);
	return r;
}

/* NVML is never loaded into the process that probes (the supervisor,
 * `iopsample probe`): what it leaves behind, threads that take signals
 * among them, would be there for the whole episode. A child probes and
 * says what it found through a pipe: the result, the manifest's details,
 * the UUIDs resolved. */
static int gpu_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
		     struct errbuf *why)
{
	(void)t;
	struct gpu_config *cfg = sc->priv;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return errbuf_set(why, errno, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return errbuf_set(why, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		struct errbuf e = {""};
		json_t *details = json_object();
		int r = probe_nvml(cfg, sc->interval_ns, details, &e);
		json_t *uuids = json_array();
		for (size_t i = 0; r == 0 && i < cfg->nuuid; i++)
			json_array_append_new(uuids, json_string(cfg->uuid[i]));
		json_t *answer = json_pack("{s:i, s:s, s:o, s:o}", "r", r, "why", e.msg, "details",
					   details, "uuids", uuids);
		char *out = json_dumps(answer, JSON_COMPACT);
		int code = out && write_all(p[1], out, strlen(out)) >= 0 ? 0 : 1;
		json_decref(answer);
		free(out);
		_exit(code);
	}
	close(p[1]);
	/* the child says everything in one write when it is done; a driver
	 * that hangs it does not hang the run */
	struct pollfd pf = {.fd = p[0], .events = POLLIN};
	int ready;
	while ((ready = poll(&pf, 1, PROBE_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (ready == 0)
		kill(pid, SIGKILL);
	size_t len;
	char *text = ready > 0 ? read_all(p[0], &len) : NULL;
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ready == 0)
		return errbuf_set(why, ETIMEDOUT, "probing NVML: no answer within %d s (a driver that hangs?)",
				  PROBE_TIMEOUT_MS / 1000);
	json_t *answer = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	int r;
	const char *msg;
	json_t *details, *uuids;
	if (json_unpack(answer, "{s:i, s:s, s:o, s:o}", "r", &r, "why", &msg, "details", &details,
			"uuids", &uuids) < 0) {
		r = WIFSIGNALED(status)
			    ? errbuf_set(why, EIO, "probing NVML: the probe was killed by signal %d",
					 WTERMSIG(status))
			    : errbuf_set(why, EIO, "probing NVML: the probe said nothing (exit status %d)",
					 WEXITSTATUS(status));
		json_decref(answer);
		return r;
	}
	json_object_update(manifest, details);
	cfg->nuuid = 0;
	size_t i;
	json_t *u;
	json_array_foreach(uuids, i, u)
		if (cfg->nuuid < GPU_MAX_DEVICES)
			snprintf(cfg->uuid[cfg->nuuid++], sizeof(cfg->uuid[0]), "%s", json_string_value(u));
	if (r < 0)
		errbuf_set(why, -r, "%s", msg);
	json_decref(answer);
	return r;
}

static void gpu_close(void *state)
{
	struct gpu *g = state;
	if (!g)
		return;
	gpu_reader_stop(g);
	if (g->running)
		return; /* the reader is stuck in the driver: left to the exit */
	nvml_close(&g->nvml);
	gpu_free(g);
}

static int gpu_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why)
{
	const struct gpu_config *cfg = sc->priv;
	struct gpu *g = calloc(1, sizeof(*g));
	if (!g)
		return errbuf_set(why, ENOMEM, "out of memory");
	g->target = t->pid;
	g->nested_pidns = gpu_pidns_nested();
	g->keeper = t->keeper;
	g->observer = t->observer;
	g->interval_ns = sc->interval_ns;
	g->start_ns = clock_mono_ns();
	int r = nvml_open(&g->nvml, why);
	if (r < 0) {
		free(g);
		return r;
	}
	json_object_set_new(manifest, "nvml", nvml_json(&g->nvml));
	json_object_set_new(manifest, "warnings", g->warnings = json_array());
	json_object_set_new(manifest, "pcie_rows_nulled", g->rows_nulled = json_integer(0));
	json_object_set_new(manifest, "late_rows", g->late_rows = json_integer(0));
	/* the GPUs the probe resolved, by UUID: the same ones whatever the
	 * indexes do meanwhile */
	nvmlDevice_t h[GPU_MAX_DEVICES];
	for (size_t i = 0; i < cfg->nuuid; i++) {
		nvmlReturn_t nr = g->nvml.DeviceGetHandleByUUID(cfg->uuid[i], &h[i]);
		if (nr != NVML_SUCCESS) {
			r = errbuf_set(why, ENODEV, "GPU %s: %s", cfg->uuid[i], nvml_error(&g->nvml, nr));
			gpu_close(g);
			return r;
		}
	}
	g->n = cfg->nuuid;
	json_t *gpus = json_array();
	for (size_t i = 0; i < g->n; i++)
		json_array_append_new(gpus, gpu_open_device(g, &g->dev[i], h[i]));
	json_object_set_new(manifest, "gpus", gpus);

	/* the row's keys: the totals, throttle_reasons, by_device; null
	 * until the first row */
	g->total = row;
	json_t *by = json_object();
	for (size_t i = 0; i < g->n; i++) {
		struct gpu_dev *d = &g->dev[i];
		d->obj = json_object();
		put_fields(d->obj);
		json_object_set_new(d->obj, "throttle_reasons", d->throttle_obj = json_object());
		json_object_set_new(by, d->key, d->obj);
	}
	put_fields(row);
	json_object_set_new(row, "throttle_reasons", g->total_throttle = json_object());
	fill_row(g);
	json_object_set_new(row, "by_device", by);
	*state = g;
	return 0;
}

/* The counters' baselines again, asked for with every source's: the
 * reader takes them first (an energy reading is milliseconds a GPU, and
 * the driver may hold any call), so that no source's start, and no row,
 * waits on NVML. */
static void gpu_begin(void *state)
{
	struct gpu *g = state;
	g->start_ns = clock_mono_ns();
	gpu_reader_start(g);
	if (!g->running) /* no thread: the sampler takes them */
		gpu_read_baseline(g);
}

static int gpu_sample(void *state, struct errbuf *why)
{
	(void)why;
	struct gpu *g = state;
	int64_t now = clock_mono_ns();
	bool fresh = gpu_reader_read(g, g->final ? now + FINAL_WAIT_NS
						 : now + (int64_t)(READ_WAIT_SHARE * (double)g->interval_ns));
	if (!fresh && g->late++ == 0)
		warn(g, "the GPUs' readings took longer than %.0f%% of the interval after %.3f s: "
			"late rows hold null gauges (late_rows counts them), their counters' change is in the next row",
		     READ_WAIT_SHARE * 100, (double)(now - g->start_ns) / 1e9);
	for (size_t i = 0; i < g->n; i++)
		settle(g, &g->dev[i], fresh, now);
	gpu_lock(g);
	pid_t unmatched = g->unmatched;
	gpu_unlock(g);
	if (unmatched && !g->unmatched_warned) {
		g->unmatched_warned = true;
		warn(g, "NVML lists pid %d, which this pid namespace's /proc does not show: the processes "
			"of another pid namespace (a container's) cannot be told the tree's, and are not counted",
		     (int)unmatched);
	}
	fill_row(g);
	return 0;
}

/* The last row's reading takes the energy too, and may wait longer. */
static void gpu_finish(void *state)
{
	struct gpu *g = state;
	gpu_lock(g);
	g->final = true;
	gpu_unlock(g);
}

const struct collector_ops gpu_ops = {
	.name = "gpu",
	.available_in_deployment = true,
	.priv_size = sizeof(struct gpu_config),
	.parse_key = gpu_parse_key,
	.describe = gpu_describe,
	.probe = gpu_probe,
	.open = gpu_open,
	.begin = gpu_begin,
	.sample = gpu_sample,
	.finish = gpu_finish,
	.close = gpu_close,
};
