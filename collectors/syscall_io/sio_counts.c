// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The single-writer sequence counter. */
#include "sio_counts.h"

#include <sched.h>

/* Only the tracer thread writes: a load and a store, no locked instruction. */
static void bump(_Atomic uint64_t *v, uint64_t by)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + by,
			      memory_order_relaxed);
}

void sio_record(struct sio_counts *c, const struct sio_call *call)
{
	uint64_t s = atomic_load_explicit(&c->seq, memory_order_relaxed);
	atomic_store_explicit(&c->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	bump(call->is_error ? &c->errors[call->i] : &c->calls[call->i], 1);
	if (call->timed)
		bump(&c->time_ns[call->i], call->ns);
	else if (!call->request)
		bump(&c->untimed, 1);
	unsigned t = log2_bucket(call->ns);
	if (call->sides & SIO_SIDE_META) {
		if (call->timed)
			bump(&c->time_hist[IO_META][t], 1);
	} else if (!call->is_error) {
		bump(&c->bytes[call->i], call->bytes);
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			if (!(call->sides & (1u << d)))
				continue;
			bump(&c->hist[d][log2_bucket(call->bytes)], 1);
			if (call->kind[d] == SIO_KIND_FILE)
				bump(&c->file_hist[d][log2_bucket(call->bytes)], 1);
			bump(&c->kind_calls[d][call->kind[d]], 1);
			bump(&c->kind_bytes[d][call->kind[d]], call->bytes);
			if (call->timed) {
				bump(&c->time_hist[d][t], 1);
				bump(&c->side_time_ns[d], call->ns);
			}
		}
		for (int p = 0; p < SIO_PATTERNS; p++)
			if (call->pattern & 1u << p)
				bump(&c->pattern[p], 1);
		if (call->switch2)
			bump(&c->pattern[SIO_RW_SWITCHES], 1);
	}
	atomic_store_explicit(&c->seq, s + 2, memory_order_release);
}

static void copy(uint64_t *dst, const _Atomic uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = atomic_load_explicit(&src[i], memory_order_relaxed);
}

void sio_snapshot(const struct sio_counts *c, struct sio_totals *out)
{
	for (;;) {
		uint64_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
		if (s & 1) {
			sched_yield(); /* the writer is mid-update: a few instructions */
			continue;
		}
		copy(out->calls, c->calls, c->n);
		copy(out->bytes, c->bytes, c->n);
		copy(out->errors, c->errors, c->n);
		copy(out->time_ns, c->time_ns, c->n);
		copy(out->hist[0], c->hist[0], SIO_HIST_BUCKETS);
		copy(out->hist[1], c->hist[1], SIO_HIST_BUCKETS);
		for (int d = 0; d < SIO_TIME_HISTS; d++)
			copy(out->time_hist[d], c->time_hist[d], SIO_HIST_BUCKETS);
		copy(out->side_time_ns, c->side_time_ns, 2);
		copy(&out->untimed, &c->untimed, 1);
		copy(out->kind_calls[0], c->kind_calls[0], SIO_KINDS);
		copy(out->kind_calls[1], c->kind_calls[1], SIO_KINDS);
		copy(out->kind_bytes[0], c->kind_bytes[0], SIO_KINDS);
		copy(out->kind_bytes[1], c->kind_bytes[1], SIO_KINDS);
		copy(out->pattern, c->pattern, SIO_PATTERNS);
		copy(&out->file_hist[0][0], &c->file_hist[0][0], 2 * SIO_HIST_BUCKETS);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s)
			return;
	}
}
