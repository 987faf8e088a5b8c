/*
 * The store of files/ (files.h says what it holds): the one rank that
 * claims a file keeps its state, the others wait until it is kept. Plain
 * system calls on the store, through the C library's own open (the
 * layer's interposers must not see the store).
 */
#define _GNU_SOURCE
#include "files.h"
#include "../record/log.h" /* mpivet_cannot_write */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char fs_store[4096];
char fs_host[256];

/* How long a rank waits for a rank on another host to keep a file (one
 * on its own host it waits for as long as that rank lives: copying a large
 * file takes its time). A rank killed while keeping a file leaves no
 * .done: the driver clears its claim between runs. */
#define WAIT_NS (600LL * 1000000000LL)

static void store_path(char *out, size_t cap, uint64_t id, const char *suffix)
{
	snprintf(out, cap, "%s/%016llx%s", fs_store, (unsigned long long)id, suffix);
}

/* copy copies the regular file src to the new file dst of the store (0600:
 * the manifest keeps the file's mode), in the kernel where it can
 * (copy_file_range: a reflink on file systems that share extents): 0, -1
 * if src cannot be read, or the error writing dst. */
static int copy(const char *src, const char *dst)
{
	int in = fs_real_open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = fs_real_open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		int e = errno;
		close(in);
		return e;
	}
	int e = 0;
	for (;;) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (n == 0)
			break;
		if (n > 0)
			continue;
		if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) {
			e = errno;
			break;
		}
		char buf[1 << 16]; /* a file system without it: read and write */
		ssize_t r, w = 0;
		while ((r = read(in, buf, sizeof buf)) > 0 && (w = write(out, buf, (size_t)r)) == r)
			;
		e = r < 0 ? -1 : r > 0 ? (w < 0 ? errno : ENOSPC) : 0;
		break;
	}
	close(in);
	if (close(out) != 0 && e == 0)
		e = errno;
	return e;
}

/* state keeps what abs is now in the store (its content or link target)
 * and says what kind of entry it is; st receives its status. */
static const char *state(const char *abs, uint64_t id, int follow, struct stat *st)
{
	char kept[4200];
	store_path(kept, sizeof kept, id, "");
	if ((follow ? stat(abs, st) : lstat(abs, st)) != 0) {
		memset(st, 0, sizeof *st);
		return errno == ENOENT ? "absent" : "untracked";
	}
	if (S_ISDIR(st->st_mode))
		return "dir";
	if (S_ISREG(st->st_mode)) {
		int e = copy(abs, kept);
		if (e > 0)
			mpivet_cannot_write(kept, e); /* the store's fault, not the file's */
		return e == 0 ? "file" : "untracked";
	}
	if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(abs, target, sizeof target);
		int fd = n > 0 ? fs_real_open(kept, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
		ssize_t w = fd >= 0 ? write(fd, target, (size_t)n) : -1;
		int e = n <= 0 ? 0 : w < 0 ? errno : w != n ? ENOSPC : 0;
		if ((fd >= 0 && close(fd) != 0 && !e) || (fd < 0 && n > 0))
			e = errno;
		if (e)
			mpivet_cannot_write(kept, e);
		return n > 0 && !e ? "link" : "untracked";
	}
	return "untracked"; /* a device, a fifo, a socket: not the program's results */
}

/* claimer reads who claimed the file: "HOST PID" in its claim. */
static pid_t claimer(uint64_t id, int *here)
{
	char path[4200], text[320] = "";
	store_path(path, sizeof path, id, ".claim");
	int fd = fs_real_open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = 0;
	char *sp = strrchr(text, ' ');
	if (!sp)
		return 0;
	*sp = 0;
	*here = strcmp(text, fs_host) == 0;
	return (pid_t)atoi(sp + 1);
}

/* wait_kept waits until the rank that claimed the file has kept it, or
 * has died (on this host), or for WAIT_NS (another host's). */
static void wait_kept(uint64_t id)
{
	char done[4200];
	store_path(done, sizeof done, id, ".done");
	struct timespec pause = {0, 1000000};
	int here = 0;
	pid_t pid = 0;
	for (long long waited = 0; access(done, F_OK) != 0; waited += pause.tv_nsec) {
		if (waited % 1000000000LL == 0) /* once a second: who, and alive? */
			pid = claimer(id, &here);
		if ((pid > 0 && here && kill(pid, 0) != 0 && errno == ESRCH) || (!(pid > 0 && here) && waited >= WAIT_NS))
			return;
		nanosleep(&pause, NULL);
	}
}

void fs_keep(const char *abs, uint64_t id, int follow, int untracked)
{
	if (strchr(abs, '\n'))
		return; /* the manifest has one line per file */
	char path[4200];
	store_path(path, sizeof path, id, ".claim");
	int claim = fs_real_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (claim < 0) {
		if (errno == EEXIST)
			wait_kept(id);
		return;
	}
	dprintf(claim, "%s %d", fs_host, (int)getpid());
	struct stat st;
	const char *kind = state(abs, id, follow, &st);
	if (untracked)
		kind = "untracked";
	char line[4400];
	int n = snprintf(line, sizeof line, "%s %016llx %o %lld %lld.%09ld %s %s\n", kind, (unsigned long long)id,
			 (unsigned)(st.st_mode & 07777), (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 (long)st.st_mtim.tv_nsec, fs_host, abs);
	snprintf(path, sizeof path, "%s/manifest", fs_store);
	int m = fs_real_open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	ssize_t w = m >= 0 && n > 0 && n < (int)sizeof line ? write(m, line, (size_t)n) : n;
	if (m < 0 || w != n)
		mpivet_cannot_write(path, m < 0 || w < 0 ? errno : ENOSPC);
	if (m >= 0)
		close(m);
	/* done, noted or not: the other ranks go on */
	store_path(path, sizeof path, id, ".done");
	int d = fs_real_open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (d >= 0)
		close(d);
	close(claim);
}
