/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What decides a syscall_io count, in one place for both backends: the
 * ptrace tracer (C, user space) and the eBPF program (C compiled for the
 * kernel), so the two cannot disagree on a bucket edge or a restart.
 *
 * Plain C: it must compile for -target bpf. */
#ifndef IOPSAMPLE_SIO_RULES_H
#define IOPSAMPLE_SIO_RULES_H

#include "common/log2_hist.h"

/* The size histograms' buckets (log2_hist.h). */
#define SIO_HIST_BUCKETS LOG2_HIST_BUCKETS
/* Counted syscalls at most (io_syscalls.c has 21 and 2 request families,
 * and 38 metadata syscalls). */
#define SIO_MAX_SYSCALLS 64

/* A row's two sides: bytes into the caller's memory, and out of it; and
 * the metadata calls, which move none (their time histogram's index). */
enum io_dir { IO_READ, IO_WRITE, IO_META };

/* The sides a syscall's bytes count on (io_syscalls.c says why for each). */
enum sio_sides {
	SIO_SIDE_READ = 1 << IO_READ,
	SIO_SIDE_WRITE = 1 << IO_WRITE,
	SIO_SIDE_BOTH = SIO_SIDE_READ | SIO_SIDE_WRITE,
	SIO_SIDE_BY_MODE = 4, /* vmsplice: write when its fd is open for writing, else read */
	SIO_SIDE_BY_OP = 8,   /* aio, io_uring: each request's own (sio_aio_sides, sio_uring_sides) */
	SIO_SIDE_META = 16,   /* a metadata call: calls, errors and time, no bytes */
};

/* The time histograms' buckets: log2 of a call's nanoseconds, the size
 * histograms' edges. */
#define SIO_TIME_HISTS 3 /* [enum io_dir]: read, write, meta */

/* How a family's results reach syscall_io. */
enum sio_via {
	SIO_VIA_SYSCALL,  /* the syscall returns them */
	SIO_VIA_AIO,      /* each completed iocb (ptrace: io_getevents' events) */
	SIO_VIA_IO_URING, /* each completed request (eBPF only) */
};

/* io_uring's requests (include/uapi/linux/io_uring.h opcodes) whose result
 * is the bytes they moved, and the sides those count on, as for the
 * syscalls of the same names; 0 for any other request. */
static inline unsigned sio_uring_sides(unsigned op)
{
	switch (op) {
	case 1:  /* READV */
	case 4:  /* READ_FIXED */
	case 10: /* RECVMSG */
	case 22: /* READ */
	case 27: /* RECV */
	case 49: /* READ_MULTISHOT */
	case 60: /* READV_FIXED */
		return SIO_SIDE_READ;
	case 2:  /* WRITEV */
	case 5:  /* WRITE_FIXED */
	case 9:  /* SENDMSG */
	case 23: /* WRITE */
	case 26: /* SEND */
	case 61: /* WRITEV_FIXED */
		return SIO_SIDE_WRITE;
	case 30: /* SPLICE */
	case 33: /* TEE */
		return SIO_SIDE_BOTH;
	default:
		return 0;
	}
}

/* io_uring's requests that read or write a file at a position (their
 * kiocb's, which has moved past their bytes once they complete). */
static inline int sio_uring_positional(unsigned op)
{
	switch (op) {
	case 1: case 2: case 4: case 5: case 22: case 23: case 60: case 61:
		return 1; /* READV, WRITEV, READ_FIXED, WRITE_FIXED, READ, WRITE, R/W V_FIXED */
	default:
		return 0;
	}
}

/* Linux native AIO's read and write commands (include/uapi/linux/aio_abi.h
 * IOCB_CMD_*) and their sides; 0 for fsync, poll and noop. */
static inline unsigned sio_aio_sides(unsigned opcode)
{
	switch (opcode) {
	case 0: /* PREAD */
	case 7: /* PREADV */
		return SIO_SIDE_READ;
	case 1: /* PWRITE */
	case 8: /* PWRITEV */
		return SIO_SIDE_WRITE;
	default:
		return 0;
	}
}

/* The events of one io_getevents the eBPF backend walks. Its nr is bounded
 * only by the context's ring (up to fs.aio-max-nr), so with bpf_loop() the
 * walk goes as far as bpf_loop() does (BPF_MAX_LOOPS, 8M), more than any
 * ring; a kernel without bpf_loop() (before 5.17) walks a bounded loop the
 * verifier checks iteration by iteration, which stops at 1024, and
 * docs/data-model.md names that. (ptrace reads every event.) */
#define SIO_AIO_EVENTS_MAX (1 << 23)
#define SIO_AIO_EVENTS_UNROLLED 1024

/* by_kind: what a side's descriptor is, from its inode's type. */
enum sio_kind {
	SIO_KIND_FILE,
	SIO_KIND_BLOCKDEV,
	SIO_KIND_PIPE,
	SIO_KIND_SOCKET,
	SIO_KIND_CHARDEV,
	SIO_KIND_OTHER,   /* a directory, a symlink, an anonymous inode (eventfd, ...) */
	SIO_KIND_UNKNOWN, /* the descriptor was gone by the time it was looked at */
	SIO_KINDS
};

/* The kind of an inode of mode st_mode (the S_IFMT bits of stat(2)). */
static inline enum sio_kind sio_kind_of_mode(unsigned mode)
{
	switch (mode & 0170000) {
	case 0100000: return SIO_KIND_FILE;
	case 0060000: return SIO_KIND_BLOCKDEV;
	case 0010000: return SIO_KIND_PIPE;
	case 0140000: return SIO_KIND_SOCKET;
	case 0020000: return SIO_KIND_CHARDEV;
	default: return SIO_KIND_OTHER;
	}
}

/* recvmmsg and sendmmsg return a count of struct mmsghdr, each 64 bytes on
 * a 64-bit ABI with msg_len (the message's bytes) at offset 56. At most
 * UIO_MAXIOV (1024) of them a call. */
#define SIO_MMSGHDR_SIZE 64
#define SIO_MMSGHDR_LEN_OFFSET 56
#define SIO_MMSG_MAX 1024

/* ---- The access pattern, as Darshan's POSIX module counts it ------------
 * (darshan-runtime/lib/darshan-posix.c 3.5.0: POSIX_RECORD_OPEN, _READ,
 * _WRITE, the lseek wrappers), per process and file:
 *
 * - Darshan knows a descriptor from the process's own open (open, openat,
 *   creat) or dup (dup, dup2, dup3) of one it knows, until its close: a
 *   descriptor inherited across exec or fork, or got any other way
 *   (fcntl's F_DUPFD, a socket's SCM_RIGHTS), has no record, and its
 *   accesses count nothing. The record is the file's, shared by every
 *   descriptor the process knows of it.
 * - The record keeps one offset for every descriptor of the file. An open
 *   sets it, and where the last read and the last write ended, to byte 0;
 *   lseek sets it to the position it returns; every access moves it to
 *   where the access ended (start + bytes), pread's and pwrite's too. A
 *   close of any of its descriptors sets where the last read and the
 *   last write ended to byte 0 again (the offset stays).
 * - A read(), write(), readv() or writev() starts at that offset, not at
 *   the descriptor's own position (an O_APPEND write, another descriptor's
 *   read, a pread before it); pread64 and preadv at their offset, preadv2
 *   and pwritev2 at theirs as given, -1 included.
 * - An access is sequential when it starts after the last byte of the
 *   file's previous access of its kind, consecutive when it starts right
 *   after it (that byte + 1). So a first read at offset 0 is neither; at
 *   1, both; further on, sequential.
 * - An access of the other kind than the file's previous one is a switch,
 *   whenever that was: the kind is kept across opens.
 * - An access whose start is not a multiple of the file system's block
 *   size (statfs(2)'s f_bsize) is unaligned, reads and writes alike (each
 *   counted on its side; Darshan's FILE_NOT_ALIGNED is their sum); -1 is.
 *
 * Over the accesses of the bytes a call returned (0 at the end of a file is
 * an access too; a failed call is none). The calls Darshan does not wrap
 * (sendfile, splice, copy_file_range, Linux AIO, io_uring) count by the
 * same rules: at their explicit offset, else at the record's. */
enum sio_pattern {
	SIO_CONSEC_READS,
	SIO_SEQ_READS,
	SIO_CONSEC_WRITES,
	SIO_SEQ_WRITES,
	SIO_RW_SWITCHES,
	SIO_UNALIGNED_READS,
	SIO_UNALIGNED_WRITES,
	SIO_PATTERNS
};

/* A process's record of a file, made by its open. */
struct sio_fstate {
	long long last_byte[2]; /* [enum io_dir]: the last byte of its last access that way */
	long long offset;       /* Darshan's offset: where a read() or write() starts */
	unsigned char last;     /* 1 + the enum io_dir of its last access; 0: none yet */
};

/* The process opened the file (again). */
static inline void sio_pattern_open(struct sio_fstate *st)
{
	st->last_byte[IO_READ] = st->last_byte[IO_WRITE] = 0;
	st->offset = 0;
}

/* The process closed a descriptor of the file (Darshan's close wrapper:
 * the offset stays). */
static inline void sio_pattern_close(struct sio_fstate *st)
{
	st->last_byte[IO_READ] = st->last_byte[IO_WRITE] = 0;
}

/* What an access adds (1 << enum sio_pattern, or-ed), the record updated:
 * side d, start and len in bytes, blksize the file system's. */
static inline unsigned sio_pattern_step(struct sio_fstate *st, int d, long long start,
					long long len, unsigned long long blksize)
{
	unsigned add = 0, w = d == IO_WRITE;
	if (start > st->last_byte[d])
		add |= 1u << (w ? SIO_SEQ_WRITES : SIO_SEQ_READS);
	if (start == st->last_byte[d] + 1)
		add |= 1u << (w ? SIO_CONSEC_WRITES : SIO_CONSEC_READS);
	if (st->last && st->last != d + 1)
		add |= 1u << SIO_RW_SWITCHES;
	/* unsigned: BPF before v4 has no signed modulo; for a block size
	 * (a power of two) a remainder is 0 alike either way */
	if (blksize && (unsigned long long)start % blksize)
		add |= 1u << (w ? SIO_UNALIGNED_WRITES : SIO_UNALIGNED_READS);
	st->last_byte[d] = start + len - 1;
	st->offset = start + len;
	st->last = (unsigned char)(d + 1);
	return add;
}

/* Where an access starts when it starts at the record's offset (read,
 * write, readv, writev; a zero-copy side without an offset of its own):
 * no offset an access can be given. */
#define SIO_AT_RECORD_OFFSET (-0x7fffffffffffffffLL - 1)

/* The calls Darshan's record follows besides the accesses. */
enum sio_track {
	SIO_TRACK_NONE,
	SIO_TRACK_OPEN,  /* open, openat, openat2, creat: a record made, or reset */
	SIO_TRACK_DUP,   /* dup, dup2, dup3: the new descriptor names the old one's */
	SIO_TRACK_SEEK,  /* lseek: its offset set */
	SIO_TRACK_CLOSE, /* close: where the last read and write ended reset */
};

/* Where a side's access starts, for the syscalls that address a file
 * (io_syscall's pos): the record's offset, an offset argument as given, or
 * the loff_t an argument points to (after the call: less the bytes), the
 * record's offset when it is NULL. */
enum sio_pos {
	SIO_POS_NONE,   /* no file access (sockets, pipes), or not this side */
	SIO_POS_FPOS,   /* read, write, readv, writev; sendfile's output */
	SIO_POS_ARG,    /* pread64, pwrite64, preadv, pwritev, preadv2, pwritev2: the offset at pos_arg */
	SIO_POS_PTR,    /* sendfile's input, splice, copy_file_range: *(loff_t *)pos_arg */
};

/* The kernel's internal restart codes (-ERESTARTSYS ... -ERESTART_RESTARTBLOCK,
 * include/linux/errno.h): never seen by the program, the call runs again. */
#define SIO_ERESTARTSYS 512
#define SIO_ERESTART_RESTARTBLOCK 516
/* The kernel's IS_ERR_VALUE: -4095 .. -1 are errors. */
#define SIO_MAX_ERRNO 4095

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
