/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ptrace tracer's side of the access pattern: Darshan's records
 * (sio_rules.h) of each traced process, kept in user space as the eBPF
 * programs keep them in maps. A process knows a descriptor from its own
 * open, or a dup of one it knows, until it closes it; each known
 * descriptor names the file it was opened on, and each file the process
 * opened has one record: Darshan's offset, where its last read and write
 * ended, its last kind, and its file system's block size.
 *
 * One table of all of them (open addressing, tombstones swept on growth),
 * written by the tracer thread alone. */
#ifndef IOPSAMPLE_SIO_RECORDS_H
#define IOPSAMPLE_SIO_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sio_rules.h"

/* A file: st_dev and st_ino. */
struct sio_file_id {
	uint64_t dev, ino;
};

struct sio_records {
	struct sio_rec_slot *slot;
	size_t cap;  /* 0 or a power of two */
	size_t used; /* live slots and tombstones */
};

/* Process tgid opened descriptor fd on file id, whose file system's block
 * size is blksize: the descriptor known, the file's record made or reset
 * (its last kind kept). 0 or -ENOMEM. */
int sio_records_open(struct sio_records *r, pid_t tgid, int fd, struct sio_file_id id, uint64_t blksize);
/* dup, dup2, dup3 made newfd of oldfd: known if oldfd is. 0 or -ENOMEM. */
int sio_records_dup(struct sio_records *r, pid_t tgid, int oldfd, int newfd);
/* lseek on fd returned off: the file's offset, if fd is known. */
void sio_records_seek(struct sio_records *r, pid_t tgid, int fd, int64_t off);
/* A close of fd, before it happens: its file's last bytes reset, fd no
 * longer known. */
void sio_records_close(struct sio_records *r, pid_t tgid, int fd);
/* An access through fd on side d (enum io_dir) of len bytes at start (or
 * SIO_AT_RECORD_OFFSET): what it adds to the pattern (1 << enum
 * sio_pattern, or-ed), 0 when fd is not known. */
unsigned sio_records_access(struct sio_records *r, pid_t tgid, int fd, int d, int64_t start, int64_t len);
/* Process tgid exec'd or ended: all it knew goes. */
void sio_records_forget(struct sio_records *r, pid_t tgid);
void sio_records_free(struct sio_records *r);

#endif
