// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* slowdisk: a slow disk for block_io's and diskstats' tests, made of a
 * FUSE filesystem (libfuse3) that holds one file, "disk", whose every read
 * is answered after a delay. A loop device over that file is a block device
 * whose requests stay in flight for as long as the test wants, with no
 * module (dm-delay, null_blk) this host may not have.
 *
 *   slowdisk MOUNTPOINT BYTES DELAY_MS
 *       mounts, serves until SIGTERM or SIGINT (then unmounts), and prints
 *       on exit {"reads": N, "read_bytes": N}: the reads it answered.
 *       The mount is there once MOUNTPOINT/disk's size is BYTES.
 *
 * The file is opened with direct_io, so no FUSE page cache stands between
 * the loop device and the delay: each read the loop device's worker makes
 * is one request here. Single-threaded: reads are answered one after
 * another, each DELAY_MS after the previous. Its bytes read as zeros;
 * writes are refused. Exits 2 with a message on a bad argument or mount. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const name = "/disk";
static off_t size;
static struct timespec delay;
static unsigned long long reads, read_bytes;

static int sd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, name)) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = size;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int sd_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, name))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY && (fi->flags & O_ACCMODE) != O_RDWR)
		return -EACCES;
	fi->direct_io = 1;
	return 0;
}

static int sd_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	if (off >= size)
		return 0;
	if ((off_t)n > size - off)
		n = (size_t)(size - off);
	while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
		;
	memset(buf, 0, n);
	reads++;
	read_bytes += n;
	return (int)n;
}

static int sd_write(const char *path, const char *buf, size_t n, off_t off,
		    struct fuse_file_info *fi)
{
	(void)path, (void)buf, (void)n, (void)off, (void)fi;
	return -EROFS;
}

static const struct fuse_operations ops = {
	.getattr = sd_getattr,
	.open = sd_open,
	.read = sd_read,
	.write = sd_write,
};

int main(int argc, char **argv)
{
	char *end;
	long long bytes = argc == 4 ? strtoll(argv[2], &end, 10) : 0;
	long ms = argc == 4 ? strtol(argv[3], NULL, 10) : -1;
	if (argc != 4 || *end || bytes <= 0 || bytes % 512 || ms < 0) {
		fprintf(stderr, "usage: slowdisk MOUNTPOINT BYTES (a multiple of 512) DELAY_MS\n");
		return 2;
	}
	size = (off_t)bytes;
	delay = (struct timespec){ms / 1000, ms % 1000 * 1000000};
	/* single-threaded (fuse_loop): one read answered at a time */
	char *args[] = {argv[0], "-o", "fsname=slowdisk", NULL};
	struct fuse_args fa = FUSE_ARGS_INIT(3, args);
	struct fuse *f = fuse_new(&fa, &ops, sizeof(ops), NULL);
	if (!f || fuse_mount(f, argv[1]) < 0) {
		fprintf(stderr, "slowdisk: %s: cannot mount\n", argv[1]);
		return 2;
	}
	struct fuse_session *se = fuse_get_session(f);
	if (fuse_set_signal_handlers(se) < 0) {
		fprintf(stderr, "slowdisk: signal handlers\n");
		return 2;
	}
	/* 0, or the signal that ended it: both a normal end */
	int r = fuse_loop(f);
	fuse_remove_signal_handlers(se);
	fuse_unmount(f);
	fuse_destroy(f);
	if (r < 0) {
		fprintf(stderr, "slowdisk: %s: %s\n", argv[1], strerror(-r));
		return 2;
	}
	printf("{\"reads\": %llu, \"read_bytes\": %llu}\n", reads, read_bytes);
	return 0;
}
