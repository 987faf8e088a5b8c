/*
 * files/: the C library's calls that create, change or remove a file,
 * interposed (files.h says why and what for). Before the call reaches the
 * C library, the file's state is kept (keep.c) if this is the first time
 * the verification touches it, the program is the one touching it, and it
 * is not mpivet's nor the system's:
 *
 * - opens for writing (open, openat, their 64-bit and fortified forms,
 *   creat, fopen, freopen with a mode that writes), truncate, mkdir,
 *   link and symlink (their new name), unlink, remove, rmdir, rename
 *   (both names);
 * - made by the program: a call from the MPI's own code (buffers/mpicode.c
 *   names its objects) counts only inside an MPI_File_ call (MPI-IO opens
 *   the program's files from there; otherwise it is the MPI's session
 *   directory or shared memory); calls from the layer itself never count;
 * - not under /proc, /sys or /dev, nor in mpivet's run directory.
 *
 * The cost is on those calls only, and once per file and rank: a rank
 * remembers the files it has seen (seen()), and a file kept by an earlier
 * run costs one failed O_EXCL open.
 */
#define _GNU_SOURCE
#include "files.h"
#include "../buffers/buffers.h"
#include "../record/conf.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int (*fs_real_open)(const char *, int, ...);
static char root[4096]; /* the run directory of the whole verification (the store's parent) */
static dev_t shared;    /* the store's file system, which every host shares */
static __thread int inside;

/* REAL(name) is the C library's name, looked up once. */
#define REAL(name)                                                                                                     \
	({                                                                                                             \
		static __typeof__(&name) real_;                                                                        \
		if (!real_)                                                                                            \
			real_ = (__typeof__(&name))dlsym(RTLD_NEXT, #name);                                            \
		real_;                                                                                                 \
	})

static void fs_log_opened(void)
{
	const char *d = mpivet_conf(MPIVET_CONF_FILES);
	fs_real_open = REAL(open);
	if (!d || !*d || !fs_real_open || strlen(d) >= sizeof root)
		return;
	snprintf(root, sizeof root, "%s", d);
	char *slash = strrchr(root, '/');
	if (slash && slash != root)
		*slash = 0;
	struct stat st;
	if (stat(d, &st) != 0 || gethostname(fs_host, sizeof fs_host - 1) != 0 || strpbrk(fs_host, " \n"))
		return;
	shared = st.st_dev;
	snprintf(fs_store, sizeof fs_store, "%s", d);
}

/* on_shared says whether the absolute path abs is on the store's file
 * system: that of its nearest ancestor that exists. */
static int on_shared(const char *abs)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", abs);
	struct stat st;
	while (stat(p, &st) != 0) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			return stat("/", &st) == 0 && st.st_dev == shared;
		*slash = 0;
	}
	return st.st_dev == shared;
}

/* normalize removes ".", ".." and repeated slashes from the absolute path
 * p, in place: one name per file, however the program spelt it. */
static void normalize(char *p)
{
	char *out = p, *in = p;
	while (*in) {
		while (*in == '/')
			in++;
		char *end = strchrnul(in, '/');
		size_t n = (size_t)(end - in);
		if (n == 1 && in[0] == '.') {
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else if (n > 0) {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in = end;
	}
	if (out == p)
		*out++ = '/';
	*out = 0;
}

/* absolute gives path, relative to dirfd, as a normalized absolute path. */
static int absolute(int dirfd, const char *path, char *out, size_t cap)
{
	char base[4096] = "";
	if (path[0] != '/') {
		if (dirfd == AT_FDCWD) {
			if (!getcwd(base, sizeof base))
				return -1;
		} else {
			char fd[64];
			snprintf(fd, sizeof fd, "/proc/self/fd/%d", dirfd);
			ssize_t n = readlink(fd, base, sizeof base - 1);
			if (n <= 0)
				return -1;
			base[n] = 0;
		}
	}
	if ((size_t)snprintf(out, cap, "%s/%s", base, path) >= cap)
		return -1;
	normalize(out);
	return 0;
}

static int under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return n > 0 && strncmp(p, dir, n) == 0 && (p[n] == 0 || p[n] == '/');
}

/* mpivets says whether the file at p is mpivet's or the system's. */
static int mpivets(const char *p)
{
	const char *conf = mpivet_conf_dir();
	return under(p, "/proc") || under(p, "/sys") || under(p, "/dev") || under(p, root) || (conf && under(p, conf));
}

/* in_mpi_io says whether this thread is inside an MPI_File_ call. */
static int in_mpi_io(void)
{
	void *pcs[64];
	int n = backtrace(pcs, 64);
	for (int i = 0; i < n; i++) {
		Dl_info d;
		const char *s = dladdr(pcs[i], &d) ? d.dli_sname : NULL;
		if (s && (strncasecmp(s, "MPI_File_", 9) == 0 || strncasecmp(s, "PMPI_File_", 10) == 0))
			return 1;
	}
	return 0;
}

/* programs says whether a call from pc is the program's: not the layer's,
 * and not the MPI's own unless MPI-IO made it. */
static int programs(const void *pc)
{
	Dl_info d;
	struct link_map *map = NULL;
	if (!dladdr1(pc, &d, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return 1;
	Dl_info self;
	if (dladdr((void *)programs, &self) && self.dli_fbase == d.dli_fbase)
		return 0;
	if (map->l_prev == NULL || !d.dli_fname) /* the executable itself */
		return 1;
	const char *base = strrchr(d.dli_fname, '/');
	return !bc_is_mpi_object(base ? base + 1 : d.dli_fname) || in_mpi_io();
}

/* seen says whether this rank has handled the file id already, and
 * remembers it: a table of ids, full once 4096 files were seen (the store
 * answers after that). */
static int seen(uint64_t id)
{
	static uint64_t ids[4096];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int found = 0;
	pthread_mutex_lock(&lock);
	for (unsigned i = (unsigned)id % 4096, k = 0; k < 4096; k++, i = (i + 1) % 4096) {
		if (ids[i] == id) {
			found = 1;
			break;
		}
		if (ids[i] == 0) {
			ids[i] = id;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

/* hash names the file abs in the store: by its path on the file system
 * every host shares, by its host and path elsewhere. */
static uint64_t hash(const char *abs)
{
	uint64_t h = 1469598103934665603ULL;
	if (!on_shared(abs))
		for (const char *s = fs_host; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	for (const char *s = abs; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ? h : 1;
}

/* note keeps the state of the file path (relative to dirfd) before a call
 * from pc changes it. */
static void note(int dirfd, const char *path, int follow, int untracked, const void *pc)
{
	if (!fs_store[0] || inside || !path || !*path)
		return;
	inside = 1;
	int saved = errno;
	char abs[4096];
	if (absolute(dirfd, path, abs, sizeof abs) == 0 && !mpivets(abs) && programs(pc)) {
		uint64_t id = hash(abs);
		if (!seen(id))
			fs_keep(abs, id, follow, untracked);
	}
	errno = saved;
	inside = 0;
}

static int writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) && (flags & O_TMPFILE) != O_TMPFILE; }

static int writes_mode(const char *mode) { return mode && strpbrk(mode, "wa+"); }

static int is_dir(int dirfd, const char *path)
{
	struct stat st;
	return path && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* rename moves a file and replaces another: both are kept. A directory
 * renamed whole is left alone (untracked) under both names: its files
 * would otherwise be removed with the new name and not come back. */
static void note_rename(int olddir, const char *old, int newdir, const char *new, const void *pc)
{
	int whole = is_dir(olddir, old);
	note(olddir, old, 0, whole, pc);
	note(newdir, new, 0, whole, pc);
}

#define CALLER __builtin_return_address(0)
#define MODE(flags)                                                                                                    \
	mode_t mode = 0;                                                                                               \
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                                                   \
		va_list ap;                                                                                            \
		va_start(ap, flags);                                                                                   \
		mode = va_arg(ap, mode_t);                                                                             \
		va_end(ap);                                                                                            \
	}

#define OPEN(name)                                                                                                     \
	int name(const char *path, int flags, ...)                                                                     \
	{                                                                                                              \
		MODE(flags)                                                                                            \
		if (writes(flags))                                                                                     \
			note(AT_FDCWD, path, !(flags & O_NOFOLLOW), 0, CALLER);                                        \
		return REAL(name)(path, flags, mode);                                                                  \
	}
#define OPENAT(name)                                                                                                   \
	int name(int dirfd, const char *path, int flags, ...)                                                          \
	{                                                                                                              \
		MODE(flags)                                                                                            \
		if (writes(flags))                                                                                     \
			note(dirfd, path, !(flags & O_NOFOLLOW), 0, CALLER);                                           \
		return REAL(name)(dirfd, path, flags, mode);                                                           \
	}
#define OPEN2(name)                                                                                                    \
	int name(const char *path, int flags)                                                                          \
	{                                                                                                              \
		if (writes(flags))                                                                                     \
			note(AT_FDCWD, path, !(flags & O_NOFOLLOW), 0, CALLER);                                        \
		return REAL(name)(path, flags);                                                                        \
	}
#define OPENAT2(name)                                                                                                  \
	int name(int dirfd, const char *path, int flags)                                                               \
	{                                                                                                              \
		if (writes(flags))                                                                                     \
			note(dirfd, path, !(flags & O_NOFOLLOW), 0, CALLER);                                           \
		return REAL(name)(dirfd, path, flags);                                                                 \
	}
#define PATHCALL(ret, name, follow, params, args)                                                                      \
	ret name params                                                                                                \
	{                                                                                                              \
		note(AT_FDCWD, path, follow, 0, CALLER);                                                               \
		return REAL(name) args;                                                                                \
	}
#define FOPEN(name, params, args)                                                                                      \
	FILE *name params                                                                                              \
	{                                                                                                              \
		if (writes_mode(mode))                                                                                 \
			note(AT_FDCWD, path, 1, 0, CALLER);                                                            \
		return REAL(name) args;                                                                                \
	}

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

OPEN(open)
OPEN(open64)
OPENAT(openat)
OPENAT(openat64)
OPEN2(__open_2)
OPEN2(__open64_2)
OPENAT2(__openat_2)
OPENAT2(__openat64_2)
PATHCALL(int, creat, 1, (const char *path, mode_t mode), (path, mode))
PATHCALL(int, creat64, 1, (const char *path, mode_t mode), (path, mode))
PATHCALL(int, truncate, 1, (const char *path, off_t length), (path, length))
PATHCALL(int, truncate64, 1, (const char *path, off64_t length), (path, length))
PATHCALL(int, mkdir, 0, (const char *path, mode_t mode), (path, mode))
PATHCALL(int, unlink, 0, (const char *path), (path))
PATHCALL(int, remove, 0, (const char *path), (path))
PATHCALL(int, rmdir, 0, (const char *path), (path))
FOPEN(fopen, (const char *path, const char *mode), (path, mode))
FOPEN(fopen64, (const char *path, const char *mode), (path, mode))
FOPEN(freopen, (const char *path, const char *mode, FILE *f), (path, mode, f))
FOPEN(freopen64, (const char *path, const char *mode, FILE *f), (path, mode, f))

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	note(dirfd, path, 0, 0, CALLER);
	return REAL(mkdirat)(dirfd, path, mode);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	note(dirfd, path, 0, 0, CALLER);
	return REAL(unlinkat)(dirfd, path, flags);
}

int link(const char *old, const char *path)
{
	note(AT_FDCWD, path, 0, 0, CALLER);
	return REAL(link)(old, path);
}

int linkat(int olddir, const char *old, int newdir, const char *path, int flags)
{
	note(newdir, path, 0, 0, CALLER);
	return REAL(linkat)(olddir, old, newdir, path, flags);
}

int symlink(const char *target, const char *path)
{
	note(AT_FDCWD, path, 0, 0, CALLER);
	return REAL(symlink)(target, path);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	note(dirfd, path, 0, 0, CALLER);
	return REAL(symlinkat)(target, dirfd, path);
}

int rename(const char *old, const char *new)
{
	note_rename(AT_FDCWD, old, AT_FDCWD, new, CALLER);
	return REAL(rename)(old, new);
}

int renameat(int olddir, const char *old, int newdir, const char *new)
{
	note_rename(olddir, old, newdir, new, CALLER);
	return REAL(renameat)(olddir, old, newdir, new);
}

int renameat2(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
	note_rename(olddir, old, newdir, new, CALLER);
	return REAL(renameat2)(olddir, old, newdir, new, flags);
}

static const struct mpivet_service service = {.log_opened = fs_log_opened};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void fs_register(void) { mpivet_register(&service); }
