// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct taskstats by version; see ts_record.h. */
#include "ts_record.h"

#include <errno.h>
#include <linux/taskstats.h>
#include <string.h>

const char *const ts_field_names[TS_NFIELDS] = {
	"cpu_delay_ns",		 "cpu_delay_count",	  "blkio_delay_ns",	  "blkio_delay_count",
	"swapin_delay_ns",	 "swapin_delay_count",	  "freepages_delay_ns",	  "freepages_delay_count",
	"thrashing_delay_ns",	 "thrashing_delay_count", "compact_delay_ns",	  "compact_delay_count",
	"wpcopy_delay_ns",	 "wpcopy_delay_count",	  "irq_delay_ns",	  "irq_delay_count",
	"read_bytes",		 "write_bytes",		  "cancelled_write_bytes", "read_syscalls",
	"write_syscalls",	 "read_chars",		  "write_chars",	  "voluntary_ctxsw",
	"involuntary_ctxsw",	 "cpu_run_real_ns",
};

/* include/uapi/linux/taskstats.h up to version 14, which is also the head
 * of every version from 16 on. Written out here rather than taken from the
 * build host's header, which may be older than the kernel it runs on. */
struct ts_layout {
	uint16_t version;
	uint32_t ac_exitcode;
	uint8_t ac_flag;
	uint8_t ac_nice;
	uint64_t cpu_count __attribute__((aligned(8)));
	uint64_t cpu_delay_total;
	uint64_t blkio_count;
	uint64_t blkio_delay_total;
	uint64_t swapin_count;
	uint64_t swapin_delay_total;
	uint64_t cpu_run_real_total;
	uint64_t cpu_run_virtual_total;
	char ac_comm[32];
	uint8_t ac_sched __attribute__((aligned(8)));
	uint8_t ac_pad[3];
	uint32_t ac_uid __attribute__((aligned(8)));
	uint32_t ac_gid;
	uint32_t ac_pid;
	uint32_t ac_ppid;
	uint32_t ac_btime;
	uint64_t ac_etime __attribute__((aligned(8)));
	uint64_t ac_utime;
	uint64_t ac_stime;
	uint64_t ac_minflt;
	uint64_t ac_majflt;
	uint64_t coremem;
	uint64_t virtmem;
	uint64_t hiwater_rss;
	uint64_t hiwater_vm;
	uint64_t read_char;
	uint64_t write_char;
	uint64_t read_syscalls;
	uint64_t write_syscalls;
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t cancelled_write_bytes;
	uint64_t nvcsw;
	uint64_t nivcsw;
	uint64_t ac_utimescaled;
	uint64_t ac_stimescaled;
	uint64_t cpu_scaled_run_real_total;
	uint64_t freepages_count;
	uint64_t freepages_delay_total;
	uint64_t thrashing_count;
	uint64_t thrashing_delay_total;
	uint64_t ac_btime64;
	uint64_t compact_count;
	uint64_t compact_delay_total;
	uint32_t ac_tgid;
	uint64_t ac_tgetime __attribute__((aligned(8)));
	uint64_t ac_exe_dev;
	uint64_t ac_exe_inode;
	uint64_t wpcopy_count;
	uint64_t wpcopy_delay_total;
	uint64_t irq_count;
	uint64_t irq_delay_total;
};

/* The build host's header agrees wherever both define a field. */
#define SAME(f) _Static_assert(offsetof(struct ts_layout, f) == offsetof(struct taskstats, f), #f)
SAME(cpu_count);
SAME(ac_pid);
SAME(ac_ppid);
SAME(read_bytes);
SAME(nivcsw);
SAME(freepages_delay_total);
#if TASKSTATS_VERSION >= 11
SAME(compact_delay_total);
#endif
#if TASKSTATS_VERSION >= 13
SAME(ac_tgid);
SAME(wpcopy_delay_total);
#endif
#if TASKSTATS_VERSION >= 14
SAME(irq_delay_total);
#endif

#define AT(f) offsetof(struct ts_layout, f)
static const size_t field_at[TS_NFIELDS] = {
	[TS_CPU_DELAY] = AT(cpu_delay_total),
	[TS_CPU_COUNT] = AT(cpu_count),
	[TS_BLKIO_DELAY] = AT(blkio_delay_total),
	[TS_BLKIO_COUNT] = AT(blkio_count),
	[TS_SWAPIN_DELAY] = AT(swapin_delay_total),
	[TS_SWAPIN_COUNT] = AT(swapin_count),
	[TS_FREEPAGES_DELAY] = AT(freepages_delay_total),
	[TS_FREEPAGES_COUNT] = AT(freepages_count),
	[TS_THRASHING_DELAY] = AT(thrashing_delay_total),
	[TS_THRASHING_COUNT] = AT(thrashing_count),
	[TS_COMPACT_DELAY] = AT(compact_delay_total),
	[TS_COMPACT_COUNT] = AT(compact_count),
	[TS_WPCOPY_DELAY] = AT(wpcopy_delay_total),
	[TS_WPCOPY_COUNT] = AT(wpcopy_count),
	[TS_IRQ_DELAY] = AT(irq_delay_total),
	[TS_IRQ_COUNT] = AT(irq_count),
	[TS_READ_BYTES] = AT(read_bytes),
	[TS_WRITE_BYTES] = AT(write_bytes),
	[TS_CANCELLED_WRITE_BYTES] = AT(cancelled_write_bytes),
	[TS_READ_SYSCALLS] = AT(read_syscalls),
	[TS_WRITE_SYSCALLS] = AT(write_syscalls),
	[TS_READ_CHARS] = AT(read_char),
	[TS_WRITE_CHARS] = AT(write_char),
	[TS_VOLUNTARY_CTXSW] = AT(nvcsw),
	[TS_INVOLUNTARY_CTXSW] = AT(nivcsw),
	/* the scheduler's runtime (sum_exec_runtime), to the nanosecond: what
	 * getrusage and perf's task-clock report. cpu_run_real_total is
	 * utime + stime, which a kernel with tick-based CPU accounting samples
	 * a tick at a time (a parallel build: 2.6 to 10.6 % below wait4's) */
	[TS_CPU_RUN_REAL] = AT(cpu_run_virtual_total),
};

/* Version 15's offset of a field of the common layout: 16 bytes (max, min)
 * after each delay total before it. */
static size_t v15_at(size_t at)
{
	static const size_t totals[] = {
		AT(cpu_delay_total),	   AT(blkio_delay_total),     AT(swapin_delay_total),
		AT(freepages_delay_total), AT(thrashing_delay_total), AT(compact_delay_total),
		AT(wpcopy_delay_total),	   AT(irq_delay_total),
	};
	size_t shift = 0;
	for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		if (totals[i] < at)
			shift += 16;
	return at + shift;
}

static bool get(const unsigned char *p, size_t len, size_t at, size_t size, bool v15, void *out)
{
	if (v15)
		at = v15_at(at);
	if (at + size > len)
		return false;
	memcpy(out, p + at, size);
	return true;
}

/* The struct whole, as this file knows it (no version 15): every field at
 * its place, no bound to check. A tick decodes one per thread. */
static void decode_whole(const unsigned char *p, unsigned version, struct ts_record *out)
{
	uint32_t id;
	uint64_t us;
	out->version = version;
	for (int f = 0; f < TS_NFIELDS; f++)
		memcpy(&out->v[f], p + field_at[f], sizeof(out->v[f]));
	out->present = TS_ALL;
	memcpy(&id, p + AT(ac_pid), sizeof(id));
	out->tid = (pid_t)id;
	memcpy(&id, p + AT(ac_ppid), sizeof(id));
	out->ppid = (pid_t)id;
	memcpy(&id, p + AT(ac_tgid), sizeof(id));
	out->tgid = (pid_t)id;
	memcpy(&us, p + AT(ac_etime), sizeof(us));
	out->age_ns = us * 1000;
}

int ts_decode(const void *payload, size_t len, struct ts_record *out)
{
	const unsigned char *p = payload;
	uint16_t version;
	uint32_t id;
	uint64_t us;
	if (len < AT(ac_etime) + sizeof(us))
		return -EPROTO;
	memcpy(&version, p, sizeof(version));
	bool v15 = version == 15;
	if (!v15 && version >= 12 && len >= sizeof(struct ts_layout)) {
		decode_whole(p, version, out);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->version = version;
	for (int f = 0; f < TS_NFIELDS; f++)
		if (get(p, len, field_at[f], sizeof(uint64_t), v15, &out->v[f]))
			out->present |= TS_BIT(f);
	if (get(p, len, AT(ac_pid), sizeof(id), v15, &id))
		out->tid = (pid_t)id;
	if (get(p, len, AT(ac_ppid), sizeof(id), v15, &id))
		out->ppid = (pid_t)id;
	if (get(p, len, AT(ac_etime), sizeof(us), v15, &us))
		out->age_ns = us * 1000;
	if (version >= 12 && get(p, len, AT(ac_tgid), sizeof(id), v15, &id))
		out->tgid = (pid_t)id;
	return 0;
}
