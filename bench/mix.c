/* mix: a syscall loop for the syscall_io benchmark.
 *
 *   mix ITERATIONS IO_EVERY
 *
 * Each iteration makes one syscall: a 4 KiB write(2) to /dev/null every
 * IO_EVERY-th time, getppid(2) otherwise. IO_EVERY 1 is all I/O; 10 makes
 * I/O 10% of the syscalls, the rest being what a tracer without a seccomp
 * filter still has to stop for. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mix ITERATIONS IO_EVERY\n");
		return 64;
	}
	long n = atol(argv[1]), every = atol(argv[2]);
	static char buf[4096];
	int fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || every < 1)
		return 1;
	for (long i = 0; i < n; i++) {
		if (i % every == 0) {
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				return 1;
		} else {
			syscall(SYS_getppid);
		}
	}
	return 0;
}
