/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A workload's report, written to a file through mmap: for the workloads
 * that count their own reads and writes, so that reporting adds none. */
#ifndef IOPSAMPLE_WORKLOADS_MMAP_REPORT_H
#define IOPSAMPLE_WORKLOADS_MMAP_REPORT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes text (n bytes) to path, or exits 2 with why. */
static void mmap_report(const char *path, const char *text, size_t n)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char *m = fd < 0 || ftruncate(fd, (off_t)n) < 0
			  ? MAP_FAILED
			  : mmap(NULL, n, PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	memcpy(m, text, n);
	munmap(m, n);
	close(fd);
}

#endif
