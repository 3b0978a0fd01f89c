/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The cgroup files the cgroup source reads, parsed from buffers (the
 * sampler preads each into one), so the tests feed them every kernel's
 * shape: flat-keyed files (cpu.stat, memory.stat of both versions), v2's
 * io.stat, v1's blkio.throttle files, the pressure files (a cgroup's
 * pressure files and the host's in /proc/pressure), single numbers and
 * cgroup.procs. */
#ifndef IOPSAMPLE_CG_FILES_H
#define IOPSAMPLE_CG_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of key in a flat-keyed file ("key value" per line); 0, or
 * -ENOENT when the file has no such key, -EINVAL when it is no number. */
int cg_keyed(const char *buf, const char *key, uint64_t *out);

/* A file holding one number ("4096\n"; "max" is -ERANGE). */
int cg_number(const char *buf, uint64_t *out);

/* The processes listed in a cgroup.procs: its lines. */
uint64_t cg_lines(const char *buf);

/* A pressure file's total= of its "some" and "full" lines, in
 * microseconds; *have_full false when the file has no full line (the
 * system's cpu.pressure before 5.13). 0 or -EINVAL. */
int cg_pressure(const char *buf, uint64_t *some_us, uint64_t *full_us, bool *have_full);

/* One device's block I/O, as either version counts it. */
struct cg_io {
	uint64_t read_bytes, write_bytes, read_ops, write_ops;
};

/* v2's io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N"
 * per device. Calls cb for each; 0, or -EINVAL at the first line that is
 * not one. */
int cg_io_stat(const char *buf, void (*cb)(void *arg, unsigned major, unsigned minor,
					    const struct cg_io *io),
	       void *arg);

/* v1's blkio.throttle.io_service_bytes (bytes) or io_serviced (ops):
 * "MAJ:MIN Read N", "... Write N", other operations and a last "Total N".
 * Calls cb for each device with the reads and writes filled in (bytes into
 * *_bytes, ops into *_ops, by the file's kind). 0 or -EINVAL. */
int cg_blkio_v1(const char *buf, bool bytes,
		void (*cb)(void *arg, unsigned major, unsigned minor, const struct cg_io *io),
		void *arg);

#endif
