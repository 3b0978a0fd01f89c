/* syscall_io's counters: written by the tracer thread at every syscall exit,
 * read by the sampler at every tick.
 *
 * One writer, one reader, no lock: a sequence counter (odd while an update is
 * in progress) lets the reader take a snapshot in which every syscall is
 * either wholly counted or not at all, so a row's histograms always add up to
 * its calls. The writer never waits; the reader retries the rare torn copy. */
#ifndef IOPSAMPLE_SIO_COUNTS_H
#define IOPSAMPLE_SIO_COUNTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io_syscalls.h"
#include "sio_rules.h"

struct sio_totals {
	uint64_t calls[SIO_MAX_SYSCALLS]; /* successful calls */
	uint64_t bytes[SIO_MAX_SYSCALLS]; /* bytes they returned */
	uint64_t errors[SIO_MAX_SYSCALLS];
	uint64_t hist[2][SIO_HIST_BUCKETS]; /* [enum io_dir][bucket] */
};

struct sio_counts {
	_Atomic uint64_t seq;
	size_t n;                          /* counted syscalls, in config order */
	enum io_dir dir[SIO_MAX_SYSCALLS];
	_Atomic uint64_t calls[SIO_MAX_SYSCALLS];
	_Atomic uint64_t bytes[SIO_MAX_SYSCALLS];
	_Atomic uint64_t errors[SIO_MAX_SYSCALLS];
	_Atomic uint64_t hist[2][SIO_HIST_BUCKETS];
};

/* The writer: syscall i (an index into the configured set) returned rval. */
void sio_record(struct sio_counts *c, unsigned i, int64_t rval, bool is_error);
/* The reader: a consistent copy of everything counted so far. */
void sio_snapshot(const struct sio_counts *c, struct sio_totals *out);

#endif
