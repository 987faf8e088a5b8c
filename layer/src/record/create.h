/*
 * Creating a record file in the run directory: what the layer and the
 * supervisor write there (logs, state pages, exit and error records, timing
 * stamps). mpivet made the run directory private (0700, the user's own:
 * package rundir); a record file is still created anew, 0600, without ever
 * writing through a symbolic link left with its name: whatever has the name
 * is removed first (a link: the link, not what it points to), and the open
 * takes only the new file (O_EXCL, O_NOFOLLOW).
 */
#ifndef MPIVET_RECORD_CREATE_H
#define MPIVET_RECORD_CREATE_H

#include <fcntl.h>
#include <unistd.h>

/* mpivet_create creates path for writing (flags: O_WRONLY or O_RDWR, and
 * O_APPEND), 0600; -1 with errno if it cannot. */
static inline int mpivet_create(const char *path, int flags)
{
	unlink(path); /* nothing there: ENOENT, and the open below says the rest */
	return open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

#endif
