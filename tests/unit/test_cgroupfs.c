// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The host's cgroup hierarchies from mountinfo and /proc/PID/cgroup, for
 * every shape of host: pure v2, hybrid (this project's CI), legacy v1 with
 * combined hierarchies, and a container that sees a subtree. */
#include <string.h>

#include "cgroupfs.h"
#include "testing.h"

/* this machine's, read off it: hybrid, the v2 mount without controllers,
 * the process in a v1 memory cgroup of the sandbox's */
static const char hybrid_mounts[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char hybrid_self[] = "9:name=systemd:/\n8:pids:/\n7:blkio:/\n3:cpuset:/\n"
				  "4:memory:/process_api/c5488e59\n2:cpuacct:/\n1:cpu:/\n0::/\n";

TEST(a_hybrid_host_has_v2_and_a_v1_hierarchy_per_controller)
{
	struct cgroupfs fs;
	EXPECT_EQ(cgroupfs_parse(hybrid_mounts, hybrid_self, &fs), 0);
	EXPECT_EQ(fs.n, 7); /* cpu, cpuacct, cpuset, memory, blkio, pids, unified; not systemd */
	const struct cgroupfs_hierarchy *cpuset = cgroupfs_v1(&fs, CG_CPUSET);
	EXPECT(cpuset != NULL);
	EXPECT_STR(cpuset->mount, "/sys/fs/cgroup/cpuset");
	const struct cgroupfs_hierarchy *v2 = cgroupfs_v2(&fs);
	EXPECT(v2 != NULL);
	EXPECT_STR(v2->mount, "/sys/fs/cgroup/unified");
	EXPECT_STR(v2->self, "/");
	const struct cgroupfs_hierarchy *mem = cgroupfs_v1(&fs, CG_MEMORY);
	EXPECT(mem != NULL);
	EXPECT_STR(mem->self, "/process_api/c5488e59");
	EXPECT_EQ(mem->hier_id, 4);
	char path[600];
	EXPECT_EQ(cgroupfs_path(mem, "iopsample-x-1", path, sizeof(path)), 0);
	EXPECT_STR(path, "/sys/fs/cgroup/memory/process_api/c5488e59/iopsample-x-1");
	EXPECT_EQ(cgroupfs_path(v2, "iopsample-x-1", path, sizeof(path)), 0);
	EXPECT_STR(path, "/sys/fs/cgroup/unified/iopsample-x-1");
	EXPECT(cgroupfs_v1(&fs, CG_IO) != NULL);
	EXPECT_STR(cgroupfs_v1(&fs, CG_IO)->mount, "/sys/fs/cgroup/blkio");
}

TEST(a_pure_v2_host_has_one_hierarchy)
{
	static const char mounts[] =
		"24 30 0:21 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
		"rw,nsdelegate,memory_recursiveprot\n"
		"30 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n";
	struct cgroupfs fs;
	EXPECT_EQ(cgroupfs_parse(mounts, "0::/user.slice/user-1000.slice/session-2.scope\n", &fs), 0);
	EXPECT_EQ(fs.n, 1);
	EXPECT_EQ(fs.h[0].version, 2);
	EXPECT_STR(fs.h[0].self, "/user.slice/user-1000.slice/session-2.scope");
	EXPECT(cgroupfs_v1(&fs, CG_MEMORY) == NULL);
}

TEST(a_combined_v1_hierarchy_serves_both_its_controllers)
{
	static const char mounts[] =
		"25 24 0:22 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
		"26 24 0:23 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
	struct cgroupfs fs;
	EXPECT_EQ(cgroupfs_parse(mounts, "5:memory:/a\n3:cpu,cpuacct:/b\n", &fs), 0);
	EXPECT_EQ(fs.n, 2);
	EXPECT(cgroupfs_v2(&fs) == NULL);
	EXPECT(cgroupfs_v1(&fs, CG_CPU) == cgroupfs_v1(&fs, CG_CPUACCT));
	EXPECT_STR(cgroupfs_v1(&fs, CG_CPUACCT)->self, "/b");
}

TEST(a_container_sees_its_subtree_from_its_root)
{
	/* the mount shows /docker/abc as its root; the process is below it */
	static const char mounts[] =
		"700 690 0:30 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n";
	struct cgroupfs fs;
	EXPECT_EQ(cgroupfs_parse(mounts, "0::/docker/abc/job\n", &fs), 0);
	EXPECT_EQ(fs.n, 1);
	EXPECT_STR(fs.h[0].self, "/job");
	/* a process outside the subtree the mount shows: not reachable */
	EXPECT_EQ(cgroupfs_parse(mounts, "0::/elsewhere\n", &fs), 0);
	EXPECT_EQ(fs.n, 0);
}

TEST(controller_names_of_both_versions)
{
	EXPECT_EQ(cgroupfs_controllers("cpuset cpu io memory hugetlb pids rdma\n", 2),
		  CG_CPUSET | CG_CPU | CG_IO | CG_MEMORY | CG_PIDS);
	EXPECT_EQ(cgroupfs_controllers("rw,cpu,cpuacct", 1), CG_CPU | CG_CPUACCT);
	EXPECT_EQ(cgroupfs_controllers("rw,blkio", 1), CG_IO);
	EXPECT_STR(cgroupfs_controller_name(CG_IO, 2), "io");
	EXPECT_STR(cgroupfs_controller_name(CG_IO, 1), "blkio");
	EXPECT(cgroupfs_controller_name(CG_CPUACCT, 2) == NULL);
	EXPECT_EQ(cgroup_role_controller(CGR_BLKIO), CG_IO);
}

TEST(this_process_is_somewhere)
{
	struct cgroupfs fs;
	EXPECT_EQ(cgroupfs_read(0, &fs), 0);
	if (fs.n == 0)
		SKIP("no cgroup hierarchy mounted here");
	for (size_t i = 0; i < fs.n; i++)
		EXPECT(fs.h[i].self[0] == '/');
}
