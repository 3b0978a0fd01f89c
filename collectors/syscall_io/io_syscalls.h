/* The syscalls syscall_io can count: each returns the number of bytes it
 * moved, so one table says its number on this architecture and which
 * direction its bytes go. */
#ifndef IOPSAMPLE_IO_SYSCALLS_H
#define IOPSAMPLE_IO_SYSCALLS_H

#include <stddef.h>

enum io_dir { IO_READ, IO_WRITE };

struct io_syscall {
	const char *name;
	int nr;
	enum io_dir dir;
};

extern const struct io_syscall io_syscalls[];
extern const size_t io_nsyscalls;

/* The entry named name, or NULL. */
const struct io_syscall *io_syscall_find(const char *name);
/* "read, write, ..." for error messages. */
void io_syscall_names(char *buf, size_t size);

#endif
