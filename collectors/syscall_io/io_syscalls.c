/* Direction: bytes that arrive in the caller's memory are read, bytes that
 * leave it are written. sendfile, splice and copy_file_range move bytes
 * between two descriptors without passing through the caller; they count
 * as writes, like the write that would end such a copy (docs/data-model.md). */
#include "io_syscalls.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

const struct io_syscall io_syscalls[] = {
	{"read", SYS_read, IO_READ},
	{"write", SYS_write, IO_WRITE},
	{"pread64", SYS_pread64, IO_READ},
	{"pwrite64", SYS_pwrite64, IO_WRITE},
	{"readv", SYS_readv, IO_READ},
	{"writev", SYS_writev, IO_WRITE},
	{"preadv", SYS_preadv, IO_READ},
	{"pwritev", SYS_pwritev, IO_WRITE},
	{"preadv2", SYS_preadv2, IO_READ},
	{"pwritev2", SYS_pwritev2, IO_WRITE},
	{"sendfile", SYS_sendfile, IO_WRITE},
	{"splice", SYS_splice, IO_WRITE},
	{"copy_file_range", SYS_copy_file_range, IO_WRITE},
	{"sendto", SYS_sendto, IO_WRITE},
	{"recvfrom", SYS_recvfrom, IO_READ},
	{"sendmsg", SYS_sendmsg, IO_WRITE},
	{"recvmsg", SYS_recvmsg, IO_READ},
};
const size_t io_nsyscalls = sizeof(io_syscalls) / sizeof(io_syscalls[0]);

const struct io_syscall *io_syscall_find(const char *name)
{
	for (size_t i = 0; i < io_nsyscalls; i++)
		if (!strcmp(io_syscalls[i].name, name))
			return &io_syscalls[i];
	return NULL;
}

void io_syscall_names(char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < io_nsyscalls && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 io_syscalls[i].name);
}
