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
	if (call->is_error) {
		bump(&c->errors[call->i], 1);
	} else {
		bump(&c->calls[call->i], 1);
		bump(&c->bytes[call->i], call->bytes);
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			if (!(call->sides & (1u << d)))
				continue;
			bump(&c->hist[d][log2_bucket(call->bytes)], 1);
			bump(&c->kind_bytes[d][call->kind[d]], call->bytes);
		}
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
		copy(out->hist[0], c->hist[0], SIO_HIST_BUCKETS);
		copy(out->hist[1], c->hist[1], SIO_HIST_BUCKETS);
		copy(out->kind_bytes[0], c->kind_bytes[0], SIO_KINDS);
		copy(out->kind_bytes[1], c->kind_bytes[1], SIO_KINDS);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s)
			return;
	}
}
