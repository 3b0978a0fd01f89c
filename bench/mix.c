// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* mix: a syscall loop for the syscall_io benchmark.
 *
 *   mix ITERATIONS IO_EVERY [FILE]
 *
 * Each iteration makes one syscall: a 4 KiB write(2) to /dev/null every
 * IO_EVERY-th time, getppid(2) otherwise. IO_EVERY 1 is all I/O; 10 makes
 * I/O 10% of the syscalls, the rest being what a tracer without a seccomp
 * filter still has to stop for. With FILE, the writes go to that regular
 * file instead, in order through its first MiB and round again (a pwrite64
 * at the next 4 KiB), so that syscall_io follows its access pattern. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: mix ITERATIONS IO_EVERY [FILE]\n");
		return 64;
	}
	long n = atol(argv[1]), every = atol(argv[2]);
	static char buf[4096];
	const char *file = argc == 4 ? argv[3] : NULL;
	int fd = file ? open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_WRONLY);
	if (fd < 0 || every < 1)
		return 1;
	for (long i = 0; i < n; i++) {
		if (i % every == 0) {
			ssize_t r = file ? pwrite(fd, buf, sizeof(buf), (off_t)(i / every % 256) * 4096)
					 : write(fd, buf, sizeof(buf));
			if (r != sizeof(buf))
				return 1;
		} else {
			syscall(SYS_getppid);
		}
	}
	return 0;
}
