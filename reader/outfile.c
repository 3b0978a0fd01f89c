// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An output file written whole or not at all: see outfile.h. */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	*o = (struct outfile){0};
}

/* A temporary file beside o->path, with the mode a new file would get. */
static int open_beside(struct outfile *o, struct errbuf *e)
{
	char *copy = strdup(o->path);
	if (!copy || asprintf(&o->tmp, "%s/.%s.XXXXXX", dirname(copy), basename(o->path)) < 0) {
		free(copy);
		o->tmp = NULL;
		return errbuf_set(e, ENOMEM, "out of memory");
	}
	free(copy);
	int fd = mkstemp(o->tmp);
	if (fd < 0)
		return errbuf_set(e, errno, "%s: %s", o->path, strerror(errno));
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		return errbuf_set(e, err, "%s: %s", o->tmp, strerror(err));
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, struct errbuf *e)
{
	*o = (struct outfile){0};
	struct stat st;
	int r = 0;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = true;
	} else if (!(o->path = strdup(path))) {
		r = errbuf_set(e, ENOMEM, "out of memory");
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		r = errbuf_set(e, EISDIR, "%s: %s", path, strerror(EISDIR));
	} else {
		r = open_beside(o, e);
	}
	if (r < 0) {
		outfile_free(o);
		return r;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

int outfile_commit(struct outfile *o, struct errbuf *e)
{
	int err = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (!o->is_stdout) {
		if (!err && fsync(fileno(o->f)) < 0)
			err = errno;
		if (fclose(o->f) != 0 && !err)
			err = errno;
		if (!err && rename(o->tmp, o->path) < 0)
			err = errno;
		if (err)
			unlink(o->tmp);
	}
	if (err)
		errbuf_set(e, err, "%s: %s", o->is_stdout ? "stdout" : o->path, strerror(err));
	outfile_free(o);
	return -err;
}

void outfile_abort(struct outfile *o)
{
	if (!o->is_stdout) {
		fclose(o->f);
		unlink(o->tmp);
	} else {
		fflush(o->f);
	}
	outfile_free(o);
}
