/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The order of the counters in proc_io.bpf.c's sums: /proc/PID/io's, as
 * procfs.h numbers them (pio_bpf.c checks the two agree). */
#ifndef IOPSAMPLE_PIO_BPF_LAYOUT_H
#define IOPSAMPLE_PIO_BPF_LAYOUT_H

enum {
	PIO_RCHAR,
	PIO_WCHAR,
	PIO_SYSCR,
	PIO_SYSCW,
	PIO_READ_BYTES,
	PIO_WRITE_BYTES,
	PIO_CANCELLED_WRITE_BYTES,
	PIO_FIELDS
};

#endif
