/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An output file written whole or not at all.
 *
 * It is written under a temporary name beside PATH (".NAME.XXXXXX", with
 * the mode a new file would get) and renamed over PATH only when
 * outfile_commit succeeds: a failed command leaves no half file, and an
 * existing PATH as it was. "-" is stdout, written as it goes. */
#ifndef IOPSAMPLE_OUTFILE_H
#define IOPSAMPLE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "log.h"

struct outfile {
	FILE *f;
	bool is_stdout;
	char *path, *tmp;
};

/* 0, or -errno with e naming the path (a directory, an unwritable one). */
int outfile_open(struct outfile *o, const char *path, struct errbuf *e);
/* Flushes, syncs and puts the file in place: 0 or -errno with e. */
int outfile_commit(struct outfile *o, struct errbuf *e);
/* Removes what was written (stdout cannot be taken back). */
void outfile_abort(struct outfile *o);

#endif
