/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The log2 histograms of every source, one rule for all (syscall_io's
 * returned sizes, block_io's request sizes and latencies), in C that
 * compiles for user space and for -target bpf alike.
 *
 * Bucket 0 holds the value 0; bucket i (1..30) the values in
 * [2^(i-1), 2^i); bucket 31 those of 2^30 or more. */
#ifndef IOPSAMPLE_LOG2_HIST_H
#define IOPSAMPLE_LOG2_HIST_H

#define LOG2_HIST_BUCKETS 32

/* floor(log2(v)) for v > 0, branch-free: the BPF target has no clz. */
static inline unsigned log2_floor(unsigned long long v)
{
	unsigned r = (unsigned)(v > 0xffffffffULL) << 5;
	v >>= r;
	unsigned s = (unsigned)(v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (unsigned)(v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (unsigned)(v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (unsigned)(v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (unsigned)(v >> 1);
}

static inline unsigned log2_bucket(unsigned long long v)
{
	if (v == 0)
		return 0;
	unsigned b = log2_floor(v) + 1;
	return b < LOG2_HIST_BUCKETS - 1 ? b : LOG2_HIST_BUCKETS - 1;
}

#ifdef __bpf__
/* log2_bucket for an eBPF program, as a global function: the verifier walks
 * its branches once, on its own, and its callers see one unknown number,
 * not a state per path through it. Two buckets inline in one update
 * (syscall_io's size and time, block_io's size and latency) multiplied
 * each other's paths: syscall_io's programs took 35 ms a load, not 2. */
__attribute__((noinline)) unsigned ebpf_log2_bucket(unsigned long long v)
{
	return log2_bucket(v);
}
#endif

#endif
