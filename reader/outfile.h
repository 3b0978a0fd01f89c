/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The file a command writes for `-o PATH`, treated as the kind of thing
 * PATH names (docs/data-model.md, "Where -o writes"):
 *
 *   - a regular file, or a name not yet taken: written whole or not at all,
 *     under a temporary name beside it (".NAME.XXXXXX") renamed over it by
 *     outfile_commit; an existing file's mode (and owner, where the process
 *     may give it) is kept. Where its folder takes no new file but the file
 *     itself may be written, it is rewritten in place instead;
 *   - a symbolic link: followed, and what it points at treated as above;
 *   - a device, a FIFO, a socket, or a name in /proc for an open file
 *     (/dev/stdout, /proc/self/fd/N): written through, never replaced,
 *     never truncated;
 *   - "-": stdout, written as it goes. */
#ifndef IOPSAMPLE_OUTFILE_H
#define IOPSAMPLE_OUTFILE_H

#include <stdio.h>

#include "log.h"

enum outfile_kind {
	OUTFILE_STDOUT,	  /* "-" */
	OUTFILE_REPLACE,  /* tmp renamed over target at commit */
	OUTFILE_IN_PLACE, /* target rewritten from its start, cut at commit */
	OUTFILE_THROUGH,  /* written as it goes to what is there */
};

struct outfile {
	FILE *f;
	enum outfile_kind kind;
	char *path;   /* as the user named it, for messages */
	char *target; /* the regular file PATH's links end at (REPLACE, IN_PLACE) */
	char *tmp;    /* REPLACE's temporary name */
};

/* 0, or -errno with e naming the path and what is wrong: a directory, a
 * folder that does not exist (a dangling link's too), a read-only file
 * system, a file the process may not write. Nothing is changed then. */
int outfile_open(struct outfile *o, const char *path, struct errbuf *e);
/* Flushes and puts the output in place (a replaced file is synced with its
 * folder first): 0 or -errno with e. */
int outfile_commit(struct outfile *o, struct errbuf *e);
/* Takes back what can be: a replacement's temporary file is removed and
 * PATH stays as it was; what went through to a device, a FIFO or stdout is
 * gone already, and a file rewritten in place stays as far as it got. */
void outfile_abort(struct outfile *o);

#endif
