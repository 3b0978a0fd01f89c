/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The families syscall_io can count: syscalls that return the number of
 * bytes they moved (or, for recvmmsg and sendmmsg, the messages whose
 * lengths hold them), and the requests of Linux native AIO and io_uring,
 * whose completions do. One table says each one's number on this
 * architecture, which sides its bytes count on, and which of its arguments
 * are the descriptors whose kind (file, pipe, socket, ...) each side is. */
#ifndef IOPSAMPLE_IO_SYSCALLS_H
#define IOPSAMPLE_IO_SYSCALLS_H

#include <stddef.h>

#include "sio_rules.h"

struct io_syscall {
	const char *name;
	int nr;
	enum sio_sides sides;
	signed char fd_arg[2]; /* [enum io_dir]: the argument holding that side's fd, or -1 */
	unsigned char msgvec;  /* the bytes are the msg_len of the first rval mmsghdrs at arg 1 */
	enum sio_via via;
	int reap_nr[2]; /* SIO_VIA_AIO: the syscalls whose exits the ptrace tracer reads events at */
	/* [enum io_dir]: where that side's access starts (enum sio_pos), and
	 * the argument it reads (SIO_POS_ARG, _PTR) */
	unsigned char pos[2];
	signed char pos_arg[2];
};

extern const struct io_syscall io_syscalls[];
extern const size_t io_nsyscalls;

/* The calls Darshan's record of a file follows (sio_rules.h), whether the
 * rows count them or not: both backends see them. */
struct sio_followed {
	int nr;
	enum sio_track track;
};
extern const struct sio_followed sio_followed[];
extern const size_t sio_nfollowed;

/* The entry named name, or NULL. */
const struct io_syscall *io_syscall_find(const char *name);
/* The entry whose name is nearest to name (at most two letters added,
 * dropped, changed or swapped: a typo), or NULL. */
const struct io_syscall *io_syscall_nearest(const char *name);

#endif
