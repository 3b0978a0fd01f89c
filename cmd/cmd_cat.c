// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample cat FILE...: the rows of .jsonl and .jsonl.zst files on stdout,
 * one per line, as far as each file can be read. A damaged or truncated
 * tail (a run that was killed) is reported on stderr after the rows before
 * it; only a file that gives nothing at all makes the exit status non-zero. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "jsonl_reader.h"
#include "log.h"

/* 0 when rows came (or the file is empty and whole), an exit status when not. */
static int cat_one(const char *path)
{
	struct jsonl_reader r;
	struct errbuf e;
	char *row;
	size_t len;
	int err = strcmp(path, "-") ? jsonl_reader_open(&r, AT_FDCWD, path, &e)
				    : jsonl_reader_fdopen(&r, STDIN_FILENO, &e);
	if (err < 0) {
		log_error("%s", e.msg);
		return err == -ENOENT || err == -EACCES ? EX_NOINPUT : EX_IOERR;
	}
	while ((err = jsonl_reader_next(&r, &row, &len, &e)) > 0) {
		row[len] = '\n';
		if (fwrite(row, 1, len + 1, stdout) != len + 1)
			break;
	}
	int status = 0;
	if (ferror(stdout) || fflush(stdout) == EOF) {
		log_error("stdout: %s", strerror(errno));
		status = EX_IOERR;
	} else if (err < 0) {
		log_error("%s: after row %llu: %s", path, (unsigned long long)r.rows, e.msg);
		status = r.rows ? 0 : EX_IOERR;
	} else if (r.damage[0]) {
		log_error("%s: after row %llu: %s", path, (unsigned long long)r.rows, r.damage);
		status = r.rows ? 0 : EX_DATAERR;
	}
	jsonl_reader_close(&r);
	return status;
}

int cmd_cat(int argc, char **argv)
{
	if (argc < 2) {
		log_error("usage: iopsample cat FILE... (- for stdin)");
		return EX_USAGE;
	}
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	int status = 0;
	for (int i = 1; i < argc; i++) {
		int s = cat_one(argv[i]);
		if (s && !status)
			status = s;
	}
	return status;
}
