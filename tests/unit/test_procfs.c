/* /proc parsers on fixture files (tests/fixtures/proc) and on this process. */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"
#include "testing.h"

static const char *fixture(const char *name)
{
	static char buf[4096];
	char path[512];
	snprintf(path, sizeof(path), "%s/fixtures/proc/%s", getenv("TESTS") ? getenv("TESTS") : "tests", name);
	if (procfs_read(path, buf, sizeof(buf)) < 0)
		FAILF("cannot read fixture %s", path);
	return buf;
}

TEST(io_every_field)
{
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io(fixture("io-full"), &c), 0);
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
	EXPECT_EQ(procfs_parse_io(fixture("io-no-block-accounting"), &c), 0);
	EXPECT_EQ(c.v[IO_RCHAR], 323);
	EXPECT_EQ(c.present, (1u << IO_RCHAR) | (1u << IO_WCHAR) | (1u << IO_SYSCR) | (1u << IO_SYSCW));
}

TEST(io_full_64_bit_range)
{
	struct proc_io_counters c;
	EXPECT_EQ(procfs_parse_io(fixture("io-max"), &c), 0);
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
	EXPECT_EQ(procfs_parse_stat(fixture("stat-odd-comm"), &st), 0);
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
	EXPECT_EQ(procfs_parse_stat(fixture("stat-zombie"), &st), 0);
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
