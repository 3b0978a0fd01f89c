/* What decides a syscall_io count, in one place for both backends: the
 * ptrace tracer (C, user space) and the eBPF program (C compiled for the
 * kernel), so the two cannot disagree on a bucket edge or a restart.
 *
 * Plain C with no includes: it must compile for -target bpf. */
#ifndef IOPSAMPLE_SIO_RULES_H
#define IOPSAMPLE_SIO_RULES_H

/* Bucket 0 holds calls that returned 0 bytes; bucket i (1..30) those that
 * returned [2^(i-1), 2^i) bytes; bucket 31 those that returned 2^30 or more. */
#define SIO_HIST_BUCKETS 32
/* Counted syscalls at most (io_syscalls.c has 17). */
#define SIO_MAX_SYSCALLS 32

/* The kernel's internal restart codes (-ERESTARTSYS ... -ERESTART_RESTARTBLOCK,
 * include/linux/errno.h): never seen by the program, the call runs again. */
#define SIO_ERESTARTSYS 512
#define SIO_ERESTART_RESTARTBLOCK 516
/* The kernel's IS_ERR_VALUE: -4095 .. -1 are errors. */
#define SIO_MAX_ERRNO 4095

/* floor(log2(v)) for v > 0, branch-free: the BPF target has no clz. */
static inline unsigned sio_log2(unsigned long long v)
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

static inline unsigned sio_bucket(unsigned long long bytes)
{
	if (bytes == 0)
		return 0;
	unsigned b = sio_log2(bytes) + 1;
	return b < SIO_HIST_BUCKETS - 1 ? b : SIO_HIST_BUCKETS - 1;
}

/* A restart code is no result: the call counts when the restart returns. */
static inline int sio_restarting(long long rval)
{
	return rval <= -SIO_ERESTARTSYS && rval >= -SIO_ERESTART_RESTARTBLOCK;
}

/* A result the program sees as -1 with errno. */
static inline int sio_is_error(long long rval)
{
	return (unsigned long long)rval >= (unsigned long long)-SIO_MAX_ERRNO;
}

#endif
