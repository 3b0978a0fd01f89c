// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* reuse: a process of the target's tree that exits, and a parent that
 * stays, so a test can hand the dead child's pid to a stranger and check
 * that the stranger's I/O is not counted.
 *
 *   reuse --pid-file FILE [--tag T]
 *
 * The child writes 3 × 1000 bytes to /dev/null and exits; the parent reaps
 * it, writes the child's pid and a newline to FILE with one write(2), and
 * waits for SIGUSR1, then exits. Its whole tree's read/write syscalls are
 * 4 writes of 3000 + the size of FILE bytes, and no read. Linked
 * statically: no dynamic loader reads anything. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *pid_file = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pid-file"))
			pid_file = argv[i + 1];
		else if (strcmp(argv[i], "--tag"))
			return fprintf(stderr, "usage: reuse --pid-file FILE [--tag T]\n"), 64;
	}
	if (!pid_file)
		return fprintf(stderr, "usage: reuse --pid-file FILE [--tag T]\n"), 64;

	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);

	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		static char buf[1000];
		int fd = open("/dev/null", O_WRONLY);
		for (int i = 0; i < 3; i++)
			if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(2);
		_exit(0);
	}
	int status;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the child");

	char line[32];
	int len = snprintf(line, sizeof(line), "%d\n", (int)child);
	int fd = open(pid_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, line, (size_t)len) != len || close(fd) < 0)
		die(pid_file);

	int sig;
	return sigwait(&usr1, &sig) == 0 ? 0 : 2;
}
