// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* outfile on each kind of thing `-o PATH` may name, in a scratch folder:
 * what it holds afterwards, its type, mode and owner, and what a failure
 * leaves. The commands' own test is tests/e2e/outfile.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "testing.h"

static char scratch[64];
static struct errbuf err;

static const char *in_scratch(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", scratch, name);
	return p;
}

static void remove_scratch(void)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (scratch[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", scratch);
	scratch[0] = '\0';
}

/* the last test's scratch folder, removed after main's tally */
__attribute__((destructor)) static void remove_last_scratch(void)
{
	remove_scratch();
}

static void fresh_scratch(void)
{
	remove_scratch();
	strcpy(scratch, "/tmp/iopsample-outfile.XXXXXX");
	if (!mkdtemp(scratch))
		FAILF("mkdtemp: %s", strerror(errno));
}

/* outfile_open, text written, outfile_commit: 0 or the failing -errno. */
static int write_via(const char *path, const char *text)
{
	struct outfile o;
	int r = outfile_open(&o, path, &err);
	if (r < 0)
		return r;
	fputs(text, o.f);
	return outfile_commit(&o, &err);
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) < 0)
		FAILF("%s: %s", path, strerror(errno));
	close(fd);
}

static const char *contents(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static mode_t type_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) < 0 ? 0 : st.st_mode & S_IFMT;
}

/* Entries of the scratch folder: a failed write leaves no temporary file. */
static int entries(const char *dir)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "exit $(ls -A %s | wc -l)", dir);
	int s = system(cmd);
	return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

TEST(a_new_file_gets_the_umasks_mode)
{
	fresh_scratch();
	mode_t old = umask(027);
	int r = write_via(in_scratch("new"), "hello\n");
	umask(old);
	EXPECT_EQ(r, 0);
	EXPECT_STR(contents(in_scratch("new")), "hello\n");
	struct stat st;
	EXPECT_EQ(stat(in_scratch("new"), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0640);
	EXPECT_EQ(entries(scratch), 1);
}

TEST(an_existing_file_is_replaced_keeping_its_mode)
{
	fresh_scratch();
	put_file(in_scratch("f"), "old and longer\n", 0600);
	struct stat before, after;
	EXPECT_EQ(stat(in_scratch("f"), &before), 0);
	EXPECT_EQ(write_via(in_scratch("f"), "new\n"), 0);
	EXPECT_STR(contents(in_scratch("f")), "new\n");
	EXPECT_EQ(stat(in_scratch("f"), &after), 0);
	EXPECT_EQ(after.st_mode & 07777, 0600);
	EXPECT(after.st_ino != before.st_ino); /* replaced whole, not rewritten */
	EXPECT_EQ(entries(scratch), 1);
}

TEST(an_existing_files_owner_is_kept_as_root)
{
	if (geteuid() != 0)
		SKIP("needs root to give a file away");
	fresh_scratch();
	put_file(in_scratch("f"), "x", 0640);
	EXPECT_EQ(chown(in_scratch("f"), 65534, 65534), 0);
	EXPECT_EQ(write_via(in_scratch("f"), "y"), 0);
	struct stat st;
	EXPECT_EQ(stat(in_scratch("f"), &st), 0);
	EXPECT_EQ(st.st_uid, 65534);
	EXPECT_EQ(st.st_gid, 65534);
	EXPECT_EQ(st.st_mode & 07777, 0640);
}

TEST(an_abort_leaves_the_file_as_it_was)
{
	fresh_scratch();
	put_file(in_scratch("f"), "kept\n", 0644);
	struct outfile o;
	EXPECT_EQ(outfile_open(&o, in_scratch("f"), &err), 0);
	fputs("half", o.f);
	outfile_abort(&o);
	EXPECT_STR(contents(in_scratch("f")), "kept\n");
	EXPECT_EQ(entries(scratch), 1);
}

TEST(a_link_is_followed_and_what_it_points_at_replaced_in_its_folder)
{
	fresh_scratch();
	EXPECT_EQ(mkdir(in_scratch("there"), 0755), 0);
	put_file(in_scratch("there/target"), "old\n", 0604);
	EXPECT_EQ(symlink("there/target", in_scratch("link")), 0);
	EXPECT_EQ(symlink("link", in_scratch("link2")), 0); /* a chain of two */
	EXPECT_EQ(write_via(in_scratch("link2"), "through\n"), 0);
	EXPECT_EQ(type_of(in_scratch("link")), S_IFLNK);
	EXPECT_EQ(type_of(in_scratch("link2")), S_IFLNK);
	EXPECT_STR(contents(in_scratch("there/target")), "through\n");
	struct stat st;
	EXPECT_EQ(stat(in_scratch("there/target"), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0604);
	EXPECT_EQ(entries(in_scratch("there")), 1);
}

TEST(a_dangling_link_makes_its_target)
{
	fresh_scratch();
	EXPECT_EQ(symlink("made", in_scratch("link")), 0);
	EXPECT_EQ(write_via(in_scratch("link"), "new\n"), 0);
	EXPECT_EQ(type_of(in_scratch("link")), S_IFLNK);
	EXPECT_STR(contents(in_scratch("made")), "new\n");
}

TEST(what_cannot_be_written_is_one_error_and_nothing_changed)
{
	fresh_scratch();
	EXPECT_EQ(mkdir(in_scratch("dir"), 0755), 0);
	EXPECT_EQ(symlink("/nonexistent-iopsample/x", in_scratch("dangling")), 0);
	EXPECT_EQ(symlink("loop", in_scratch("loop")), 0);
	struct {
		const char *name;
		int err;
		const char *says;
	} cases[] = {
		{"dir", -EISDIR, "dir: Is a directory"},
		{"dangling", -ENOENT, "dangling -> /nonexistent-iopsample/x: No such file"},
		{"loop", -ELOOP, "loop: Too many levels of symbolic links"},
		{"nofolder/x", -ENOENT, "nofolder/x: No such file"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(write_via(in_scratch(cases[i].name), "x"), cases[i].err);
		EXPECT_CONTAINS(err.msg, cases[i].says);
	}
	EXPECT_EQ(type_of(in_scratch("dir")), S_IFDIR);
	EXPECT_EQ(entries(scratch), 3); /* dir, dangling, loop: nothing made */
}

TEST(a_device_is_written_through_and_stays_a_device)
{
	if (geteuid() != 0)
		SKIP("needs root to make a device node");
	fresh_scratch();
	EXPECT_EQ(mknod(in_scratch("null"), S_IFCHR | 0666, makedev(1, 3)), 0);
	EXPECT_EQ(chmod(in_scratch("null"), 0666), 0); /* past the umask */
	EXPECT_EQ(write_via(in_scratch("null"), "gone\n"), 0);
	struct stat st;
	EXPECT_EQ(lstat(in_scratch("null"), &st), 0);
	EXPECT(S_ISCHR(st.st_mode));
	EXPECT_EQ(st.st_rdev, makedev(1, 3));
	EXPECT_EQ(st.st_mode & 07777, 0666);
	EXPECT_EQ(entries(scratch), 1);
}

TEST(a_fifo_is_written_through_to_its_reader)
{
	fresh_scratch();
	EXPECT_EQ(mkfifo(in_scratch("fifo"), 0600), 0);
	pid_t pid = fork();
	if (pid == 0) /* the writer */
		_exit(write_via(in_scratch("fifo"), "down the pipe\n") == 0 ? 0 : 1);
	int fd = open(in_scratch("fifo"), O_RDONLY);
	char buf[64] = {0};
	ssize_t got = 0, n;
	while (fd >= 0 && (n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(buf, "down the pipe\n");
	EXPECT_EQ(type_of(in_scratch("fifo")), S_IFIFO);
}

TEST(a_socket_is_connected_to_and_written_through)
{
	fresh_scratch();
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", in_scratch("sock"));
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	EXPECT(ls >= 0);
	EXPECT_EQ(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
	EXPECT_EQ(listen(ls, 1), 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(write_via(in_scratch("sock"), "over the socket\n") == 0 ? 0 : 1);
	int c = accept(ls, NULL, NULL);
	char buf[64] = {0};
	ssize_t got = 0, n;
	while (c >= 0 && (n = read(c, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(c);
	close(ls);
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(buf, "over the socket\n");
	EXPECT_EQ(type_of(in_scratch("sock")), S_IFSOCK);
}

/* /proc/self/fd/N and /dev/stdout are the process's own descriptor, shared:
 * appended to where it appends, never truncated, never replaced. */
TEST(an_own_descriptor_is_written_through_as_the_shell_gave_it)
{
	fresh_scratch();
	put_file(in_scratch("log"), "before\n", 0644);
	int fd = open(in_scratch("log"), O_WRONLY | O_APPEND);
	EXPECT(fd >= 0);
	struct stat before, after;
	EXPECT_EQ(fstat(fd, &before), 0);
	char name[64];
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	EXPECT_EQ(write_via(name, "appended\n"), 0);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	EXPECT_EQ(write_via(name, "again\n"), 0);
	close(fd);
	EXPECT_STR(contents(in_scratch("log")), "before\nappended\nagain\n");
	EXPECT_EQ(stat(in_scratch("log"), &after), 0);
	EXPECT_EQ(after.st_ino, before.st_ino);

	fd = open(in_scratch("log"), O_RDONLY);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	EXPECT_EQ(write_via(name, "x"), -EBADF);
	EXPECT_CONTAINS(err.msg, "open for reading only");
	close(fd);
}

/* A folder that takes no new file, holding a file its user may write (as
 * root no folder refuses: run as nobody in a child). */
TEST(a_file_in_a_folder_that_takes_no_new_file_is_rewritten_in_place)
{
	if (geteuid() != 0)
		SKIP("needs root to become another user");
	fresh_scratch();
	EXPECT_EQ(chmod(scratch, 0755), 0);
	EXPECT_EQ(mkdir(in_scratch("shut"), 0755), 0);
	put_file(in_scratch("shut/f"), "a longer old text\n", 0666);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(write_via(in_scratch("shut/f"), "short\n") == 0 ? 0 : 1);
	}
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(contents(in_scratch("shut/f")), "short\n");
	EXPECT_EQ(entries(in_scratch("shut")), 1);

	/* a file nobody may not write is refused, not replaced */
	put_file(in_scratch("ro"), "mine\n", 0644);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(write_via(in_scratch("ro"), "x") == -EACCES ? 0 : 1);
	}
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(contents(in_scratch("ro")), "mine\n");
}

TEST(stdout_is_written_as_it_goes)
{
	int p[2];
	EXPECT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		_exit(write_via("-", "to stdout\n") == 0 ? 0 : 1);
	}
	close(p[1]);
	char buf[64] = {0};
	ssize_t got = 0, n;
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(p[0]);
	int status;
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(buf, "to stdout\n");
}
