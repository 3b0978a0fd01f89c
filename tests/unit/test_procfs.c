// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc parsers on fixture files (tests/fixtures/proc) and on this process. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "procfs_files.h"
#include "testing.h"

TEST(io_every_field)
{
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io(test_fixture("io-full"), &c), 0);
	EXPECT_EQ(c.v[IO_RCHAR], 6976);
	EXPECT_EQ(c.v[IO_WCHAR], 12);
	EXPECT_EQ(c.v[IO_SYSCR], 10);
	EXPECT_EQ(c.v[IO_SYSCW], 1);
	EXPECT_EQ(c.v[IO_READ_BYTES], 45056);
	EXPECT_EQ(c.v[IO_WRITE_BYTES], 4096);
	EXPECT_EQ(c.v[IO_CANCELLED_WRITE_BYTES], 0);
	EXPECT_EQ(c.present, (1u << IO_NFIELDS) - 1);
}

TEST(io_without_block_accounting_marks_fields_absent)
{
	/* a kernel with TASK_XACCT but not TASK_IO_ACCOUNTING has no byte
	 * counters: those must read as absent (null), never as 0 */
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io(test_fixture("io-no-block-accounting"), &c), 0);
	EXPECT_EQ(c.v[IO_RCHAR], 323);
	EXPECT_EQ(c.present, (1u << IO_RCHAR) | (1u << IO_WCHAR) | (1u << IO_SYSCR) | (1u << IO_SYSCW));
}

TEST(io_full_64_bit_range)
{
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io(test_fixture("io-max"), &c), 0);
	EXPECT(c.v[IO_RCHAR] == UINT64_MAX);
}

TEST(io_rejects_garbage)
{
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io("", &c), -EINVAL);
	EXPECT_EQ(procfs_parse_io("hello world\n", &c), -EINVAL);
	EXPECT_EQ(procfs_parse_io("rchar: lots\n", &c), -EINVAL);
}

TEST(stat_with_parentheses_in_comm)
{
	struct proc_stat st;
	EXPECT_EQ(procfs_parse_stat(test_fixture("stat-odd-comm"), &st), 0);
	EXPECT_EQ(st.state, 'S');
	EXPECT_EQ(st.ppid, 17);
	EXPECT_EQ(st.pgrp, 4242);
	EXPECT_EQ(st.num_threads, 3);
	EXPECT_EQ(st.flags, 4194560);
	EXPECT(!(st.flags & PROCFS_PF_EXITING));
	EXPECT_EQ(st.starttime, 987654);
}

TEST(stat_zombie)
{
	struct proc_stat st;
	EXPECT_EQ(procfs_parse_stat(test_fixture("stat-zombie"), &st), 0);
	EXPECT_EQ(st.state, 'Z');
	EXPECT_EQ(st.ppid, 1);
	EXPECT(st.flags & PROCFS_PF_EXITING); /* a zombie keeps it */
	EXPECT_EQ(st.starttime, 555);
}

TEST(stat_rejects_truncation)
{
	struct proc_stat st;
	EXPECT_EQ(procfs_parse_stat("12 (x) S 1", &st), -EINVAL);
	EXPECT_EQ(procfs_parse_stat("no parens", &st), -EINVAL);
}

TEST(reads_this_process)
{
	struct proc_stat st;
	struct proc_io_counters c;
	EXPECT_EQ(procfs_read_stat(getpid(), &st), 0);
	EXPECT_EQ(st.ppid, getppid());
	EXPECT_EQ(procfs_read_io(getpid(), &c), 0);
	EXPECT(c.v[IO_SYSCR] > 0);
}

TEST(children_of_this_process)
{
	pid_t kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	struct pid_list l = {0};
	EXPECT_EQ(procfs_children(getpid(), 1, &l), 0);
	int found = 0;
	for (size_t i = 0; i < l.n; i++)
		found |= l.v[i] == kid;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	pid_list_free(&l);
	EXPECT(found);
}

TEST(a_vanished_process_reads_as_gone)
{
	pid_t kid = fork();
	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	struct proc_io_counters c;
	struct proc_stat st;
	EXPECT(procfs_read_io(kid, &c) < 0);
	EXPECT(procfs_read_stat(kid, &st) < 0);
}

/* The hand parser against sscanf, on every process of this host. */
TEST(stat_as_sscanf_reads_every_process)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int compared = 0;
	while ((de = readdir(d))) {
		char path[300], buf[1024];
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (procfs_read(path, buf, sizeof(buf)) <= 0)
			continue;
		char state;
		int ppid, pgrp;
		unsigned flags;
		long nthreads;
		unsigned long long start;
		EXPECT_EQ(sscanf(strrchr(buf, ')') + 1,
				 " %c %d %d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld %*d %llu",
				 &state, &ppid, &pgrp, &flags, &nthreads, &start),
			  6);
		struct proc_stat st;
		EXPECT_EQ(procfs_parse_stat(buf, &st), 0);
		EXPECT_EQ(st.state, state);
		EXPECT_EQ(st.ppid, ppid);
		EXPECT_EQ(st.pgrp, pgrp);
		EXPECT_EQ(st.flags, flags);
		EXPECT_EQ(st.num_threads, nthreads);
		EXPECT_EQ(st.starttime, start);
		compared++;
	}
	closedir(d);
	EXPECT(compared > 10);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A child that exits when *release is closed. */
static pid_t waiting_child(int *release)
{
	int pipefd[2];
	EXPECT_EQ(pipe(pipefd), 0);
	pid_t kid = fork();
	if (kid == 0) {
		char c;
		close(pipefd[1]);
		(void)!read(pipefd[0], &c, 1); /* until the parent says */
		_exit(0);
	}
	close(pipefd[0]);
	*release = pipefd[1];
	return kid;
}

/* Kept files read what a fresh open reads, say a reaped process is gone
 * (closing its files), and the sweep closes those not read. */
TEST(kept_files_follow_their_process)
{
	int release;
	pid_t kid = waiting_child(&release);
	int before = open_fds();
	struct procfs_files f;
	procfs_files_init(&f);
	struct proc_stat st, fresh;
	struct proc_io_counters io;
	struct pid_list kids = {0};
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(procfs_files_stat(&f, kid, &st), 0);
		EXPECT_EQ(procfs_read_stat(kid, &fresh), 0);
		EXPECT_EQ(st.starttime, fresh.starttime);
		EXPECT_EQ(st.ppid, getpid());
		EXPECT_EQ(procfs_files_io(&f, kid, &io, NULL, NULL), 0);
		EXPECT_EQ(procfs_files_io(&f, getpid(), &io, NULL, NULL), 0);
		kids.n = 0;
		EXPECT_EQ(procfs_files_children(&f, getpid(), 1, &kids), 0);
		EXPECT_EQ(kids.n, 1u);
		EXPECT_EQ(kids.v[0], kid);
	}
	EXPECT_EQ(f.nfds, 4u);
	EXPECT_EQ(open_fds(), before + 4);

	close(release);
	waitpid(kid, NULL, 0);
	EXPECT(procfs_files_stat(&f, kid, &st) < 0);
	EXPECT_EQ(f.nfds, 2u); /* the reaped process's files went */
	kids.n = 0;
	EXPECT_EQ(procfs_files_children(&f, getpid(), 1, &kids), 0);
	EXPECT_EQ(kids.n, 0u);

	procfs_files_sweep(&f);
	procfs_files_sweep(&f); /* nothing read in between */
	EXPECT_EQ(f.nfds, 0u);
	EXPECT_EQ(f.n, 0u);
	EXPECT_EQ(open_fds(), before - 1); /* less the pipe's end closed */
	procfs_files_free(&f);
	pid_list_free(&kids);
}

/* A watched process's stat is known from the io read's own look-up until
 * its pidfd says it exited; the poll says how many it noted. */
TEST(a_watched_stat_is_known_until_its_process_exits)
{
	int release;
	pid_t kid = waiting_child(&release);
	struct procfs_files f;
	procfs_files_init(&f);
	struct proc_stat st = {0}, kept = {0};
	struct proc_io_counters io;
	bool known = true;
	EXPECT_EQ(procfs_files_io(&f, kid, &io, &st, &known), 0);
	EXPECT(!known); /* no stat read yet */
	EXPECT_EQ(procfs_files_stat(&f, kid, &kept), 0);
	EXPECT_EQ(procfs_files_io(&f, kid, &io, &st, &known), 0);
	EXPECT(!known); /* not watched */
	if (procfs_files_watch(&f, kid) == -ENOSYS) { /* a kernel before 5.3 */
		close(release);
		waitpid(kid, NULL, 0);
		procfs_files_free(&f);
		return;
	}
	EXPECT_EQ(procfs_files_poll(&f), 0);
	EXPECT_EQ(procfs_files_io(&f, kid, &io, &st, &known), 0);
	EXPECT(known && st.starttime == kept.starttime && st.ppid == getpid());
	close(release);
	siginfo_t si;
	EXPECT_EQ(waitid(P_PID, (id_t)kid, &si, WEXITED | WNOWAIT), 0); /* a zombie, not reaped */
	EXPECT_EQ(procfs_files_poll(&f), 1);
	EXPECT_EQ(procfs_files_poll(&f), 0); /* said once */
	EXPECT(!procfs_files_known_stat(&f, kid, &st));
	known = true;
	procfs_files_io(&f, kid, &io, &st, &known); /* a zombie's io: read or not, by kernel */
	EXPECT(!known);
	waitpid(kid, NULL, 0);
	procfs_files_free(&f);
}

/* A list longer than the page a seq_file hands out at a time. */
TEST(a_list_is_read_whole)
{
	enum { N = 1200 };
	pid_t kid[N];
	for (int i = 0; i < N; i++)
		if ((kid[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	struct procfs_files f;
	procfs_files_init(&f);
	struct pid_list l = {0};
	EXPECT_EQ(procfs_files_children(&f, getpid(), 1, &l), 0);
	EXPECT_EQ(l.n, (size_t)N);
	EXPECT(strlen(f.buf) > 4096);
	for (int i = 0; i < N; i++)
		kill(kid[i], SIGKILL);
	for (int i = 0; i < N; i++)
		waitpid(kid[i], NULL, 0);
	procfs_files_free(&f);
	pid_list_free(&l);
}

TEST(lists_parse_either_separator)
{
	struct pid_list l = {0};
	EXPECT_EQ(pid_list_parse("12 13 \n", &l), 0);
	EXPECT_EQ(pid_list_parse("4194304\n7\n", &l), 0);
	EXPECT_EQ(pid_list_parse("", &l), 0);
	EXPECT_EQ(l.n, 4u);
	EXPECT_EQ(l.v[0], 12);
	EXPECT_EQ(l.v[1], 13);
	EXPECT_EQ(l.v[2], 4194304);
	EXPECT_EQ(l.v[3], 7);
	pid_list_free(&l);
}

/* The usual layout has a fast path; any other goes to the general parser,
 * and both read the same numbers. */
TEST(io_in_another_order_reads_the_same)
{
	struct proc_io_counters fast, general;
	EXPECT_EQ(procfs_parse_io("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\n"
				  "write_bytes: 6\ncancelled_write_bytes: 7\n", &fast), 0);
	EXPECT_EQ(procfs_parse_io("wchar: 2\nrchar: 1\nsyscr: 3\nsyscw: 4\nread_bytes: 5\n"
				  "write_bytes: 6\ncancelled_write_bytes: 7\n", &general), 0);
	EXPECT_EQ(fast.present, general.present);
	for (int i = 0; i < IO_NFIELDS; i++) {
		EXPECT_EQ(fast.v[i], (uint64_t)i + 1);
		EXPECT_EQ(general.v[i], (uint64_t)i + 1);
	}
	EXPECT_EQ(procfs_parse_io("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\n"
				  "write_bytes: 6\ncancelled_write_bytes: x\n", &fast), -EINVAL);
}
