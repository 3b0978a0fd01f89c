/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
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
	uint64_t time_ns[SIO_MAX_SYSCALLS]; /* every call's, failed ones too */
	uint64_t hist[2][SIO_HIST_BUCKETS]; /* [enum io_dir][bucket] */
	/* [enum io_dir][log2 ns]: a side's successful calls; IO_META every
	 * metadata call */
	uint64_t time_hist[SIO_TIME_HISTS][SIO_HIST_BUCKETS];
	uint64_t side_time_ns[2];          /* [enum io_dir]: its calls' time */
	uint64_t untimed;                  /* calls whose entry was not seen */
	uint64_t kind_calls[2][SIO_KINDS]; /* [enum io_dir][enum sio_kind] */
	uint64_t kind_bytes[2][SIO_KINDS];
	uint64_t pattern[SIO_PATTERNS];    /* [enum sio_pattern] */
	uint64_t file_hist[2][SIO_HIST_BUCKETS]; /* [enum io_dir]: regular files' calls alone, by size */
};

/* A side's calls and bytes (enum io_dir): every call that counts on a side
 * is in one bucket of its histogram and one kind, so these are sums, not
 * counters of their own (one update less per side of a call). */
static inline uint64_t sio_side_calls(const struct sio_totals *t, int d)
{
	uint64_t n = 0;
	for (int b = 0; b < SIO_HIST_BUCKETS; b++)
		n += t->hist[d][b];
	return n;
}

static inline uint64_t sio_side_bytes(const struct sio_totals *t, int d)
{
	uint64_t n = 0;
	for (int k = 0; k < SIO_KINDS; k++)
		n += t->kind_bytes[d][k];
	return n;
}

struct sio_counts {
	_Atomic uint64_t seq;
	size_t n; /* counted syscalls, in config order */
	_Atomic uint64_t calls[SIO_MAX_SYSCALLS];
	_Atomic uint64_t bytes[SIO_MAX_SYSCALLS];
	_Atomic uint64_t errors[SIO_MAX_SYSCALLS];
	_Atomic uint64_t time_ns[SIO_MAX_SYSCALLS];
	_Atomic uint64_t hist[2][SIO_HIST_BUCKETS];
	_Atomic uint64_t time_hist[SIO_TIME_HISTS][SIO_HIST_BUCKETS];
	_Atomic uint64_t side_time_ns[2];
	_Atomic uint64_t untimed;
	_Atomic uint64_t kind_calls[2][SIO_KINDS];
	_Atomic uint64_t kind_bytes[2][SIO_KINDS];
	_Atomic uint64_t pattern[SIO_PATTERNS];
	_Atomic uint64_t file_hist[2][SIO_HIST_BUCKETS];
};

/* One returned call as the tracer saw it. */
struct sio_call {
	unsigned i;        /* its index in the configured set */
	bool is_error;
	uint64_t bytes;    /* what it moved (rval, or the messages' lengths) */
	unsigned sides;    /* enum sio_sides, SIO_SIDE_BY_MODE resolved */
	enum sio_kind kind[2]; /* [enum io_dir] */
	bool timed;        /* its entry was seen: ns is its time */
	bool request;      /* an aio or io_uring request: no call, no time */
	unsigned pattern;  /* what its accesses add to the access pattern (1 << enum sio_pattern) */
	bool switch2;      /* and a second switch (a zero-copy call's other file) */
	uint64_t ns;
};

/* The writer: a counted call returned. */
void sio_record(struct sio_counts *c, const struct sio_call *call);
/* The reader: a consistent copy of everything counted so far. */
void sio_snapshot(const struct sio_counts *c, struct sio_totals *out);

#endif
