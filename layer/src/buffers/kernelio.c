/*
 * System calls on protected memory. The kernel does not fault on a page
 * the checker protects: a read(2) into it, or a write(2) from it, fails
 * with EFAULT instead. An access by the kernel on the program's behalf is
 * the program's access: the C library's entry points that make the kernel
 * load or store user memory (read, write, recv, send and their kin, and
 * stdio's fread and fwrite, which call the library's internal read and
 * write directly) are interposed here. Before the real function runs, each
 * page of its range that the checker has closed to the access gets what
 * the fault handler (faults.c, exposure.c) gives a fault of that access
 * there: the program's access to a pending buffer's bytes or to a watched
 * window's is recorded, with the call stack of the call (the program's
 * line that called read), and the page is opened (a pending buffer's until
 * the next MPI call, a window's for the rest of the stretch or epoch).
 *
 * Cost: one test of mpivet_bc_live while nothing is protected; none of
 * this while the thread is in an MPI call (the pages are open, or the
 * MPI's own call would find them as it does today) or in the layer
 * (mpivet_guard: its own log writes), nor in a signal handler that
 * interrupted the checker holding its lock.
 */
#define _GNU_SOURCE
#include "checker.h"

#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* page_closed says whether page, of the pending buffers' spans, is closed
 * to an access (write or not) now. */
static int page_closed(uintptr_t page, int write)
{
	int p = bc_want_prot(page);
	return write ? p != RW : p == PROT_NONE;
}

/* closed_region says whether a page of [lo, hi) is in the pending
 * buffers' spans and closed to an access (write or not) now: the spans'
 * pages in the range are looked at, not every page of the range. */
static int closed_region(uintptr_t lo, uintptr_t hi, int write)
{
	for (int i = 0; i < nspans; i++) {
		uintptr_t s = lo > spans[i].lo ? lo & ~(pagesz - 1) : spans[i].lo, e = hi < spans[i].hi ? hi : spans[i].hi;
		for (uintptr_t page = s; page < e; page += pagesz)
			if (page_closed(page, write))
				return 1;
	}
	return 0;
}

/* region_access records the program's access to bytes [lo, hi) of one
 * page, as faults.c's access_at does for one byte. */
static void region_access(uintptr_t lo, uintptr_t hi, int write, const uint64_t *pcs, int npcs)
{
	for (int i = 0; i < nregions; i++) {
		struct region *r = &regions[i];
		if (!r->active || (!r->recv && !write) || !bc_covers_range(r, lo, hi))
			continue;
		stats[F_HIT]++;
		if (write)
			r->hit_window = window_serial;
		if (npcs <= 0 || !bc_first_sighting(r, pcs[0]))
			continue;
		bc_record(r->recv ? (write ? WRITE_RECV : READ_RECV) : WRITE_SEND, lo > r->lo ? lo : r->lo, r, 0, pcs, npcs);
	}
}

/* open_regions does for each page of [lo, hi) closed to the access what
 * the fault handler does for the program's access there: records it and
 * leaves the page open until the next MPI call. */
static void open_regions(uintptr_t lo, uintptr_t hi, int write, const uint64_t *pcs, int npcs)
{
	for (int i = 0; i < nspans; i++) {
		uintptr_t s = lo > spans[i].lo ? lo & ~(pagesz - 1) : spans[i].lo, e = hi < spans[i].hi ? hi : spans[i].hi;
		for (uintptr_t page = s; page < e; page += pagesz) {
			if (!page_closed(page, write))
				continue;
			region_access(lo > page ? lo : page, page + pagesz < hi ? page + pagesz : hi, write, pcs, npcs);
			stats[F_OPENED]++;
			bc_prot(page, pagesz, RW, S_OPEN);
			if (nopened + nregions <= MAX_OPENED)
				bc_open_page(page);
			else
				bc_list_page(unsure, &nunsure, page); /* closed again at the next leave */
		}
	}
}

/* kernel_access prepares [buf, buf+n) for the kernel's access (write: a
 * store into it) by the call that returns to ret. */
static void kernel_access(uintptr_t buf, size_t n, int write, void *ret)
{
	if (mpivet_bc_polling && mpivet_guard) {
		/* the MPI's own system call in a poll that left the pages
		 * closed (buffers.h): the call is entered first, as any other */
		if (lock_in_handler()) {
			bc_poll_entered();
			unlock();
		}
		return;
	}
	if (!buf || !n || mpivet_guard || mpivet_bc_entered)
		return;
	int saved = errno;
	if (!lock_in_handler())
		return;
	uintptr_t lo = buf, hi = lo + n < lo ? UINTPTR_MAX : lo + n;
	int regions_closed = closed_region(lo, hi, write), window_closed = bc_exposure_closed(lo, hi, write);
	if (regions_closed || window_closed) {
		uint64_t t0 = tsc(), pcs[MAX_PCS];
		int npcs = bc_in_mpi_code((uintptr_t)ret) || !mpivet_bc_on ? -1 : bc_fault_stack((uintptr_t)ret, pcs);
		if (npcs > 0)
			pcs[0]--; /* the call instruction, not the one after it */
		if (regions_closed)
			open_regions(lo, hi, write, pcs, npcs);
		if (window_closed)
			bc_exposure_kernel(lo, hi, write, pcs, npcs);
		spend(t0);
	}
	unlock();
	errno = saved;
}

static void kernel_iov(const struct iovec *iov, int n, int write, void *ret)
{
	for (int i = 0; iov && i < n; i++)
		kernel_access((uintptr_t)iov[i].iov_base, iov[i].iov_len, write, ret);
}

static void kernel_msg(const struct msghdr *m, int write, void *ret)
{
	if (!m)
		return;
	kernel_access((uintptr_t)m->msg_name, m->msg_namelen, write, ret);
	kernel_iov(m->msg_iov, (int)m->msg_iovlen, write, ret);
	kernel_access((uintptr_t)m->msg_control, m->msg_controllen, write, ret);
}

/* glibc's fortified forms (-D_FORTIFY_SOURCE, the default of many
 * distributions' compilers at -O2): declared by its headers only then. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *restrict buf, size_t n, size_t buflen, int flags, struct sockaddr *restrict from,
		       socklen_t *restrict len);
size_t __fread_chk(void *restrict buf, size_t buflen, size_t size, size_t n, FILE *restrict f);
size_t __fread_unlocked_chk(void *restrict buf, size_t buflen, size_t size, size_t n, FILE *restrict f);

/* The real functions, found once the layer is loaded (a program's signal
 * handler may call write: no dlsym there). */
#define REAL(name) static __typeof__(&name) real_##name;
#define FIND(name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);
#define EACH(X) \
	X(read) X(pread) X(pread64) X(readv) X(preadv) X(preadv64) X(preadv2) X(preadv64v2) X(recv) X(recvfrom) \
	X(recvmsg) X(write) X(pwrite) X(pwrite64) X(writev) X(pwritev) X(pwritev64) X(pwritev2) X(pwritev64v2) \
	X(send) X(sendto) X(sendmsg) X(fread) X(fwrite) X(fread_unlocked) X(fwrite_unlocked) X(__read_chk) \
	X(__pread_chk) X(__pread64_chk) X(__recv_chk) X(__recvfrom_chk) X(__fread_chk) X(__fread_unlocked_chk) \
	X(process_vm_readv) X(process_vm_writev)
EACH(REAL)

__attribute__((constructor)) static void find_real(void)
{
	EACH(FIND)
}

/* CALL calls the real function, or fails with ENOSYS if there is none. */
#define CALL(name, fail, ...) \
	do { \
		if (!real_##name) \
			FIND(name) \
		if (!real_##name) \
			return errno = ENOSYS, fail; \
		return real_##name(__VA_ARGS__); \
	} while (0)

/* ON runs a preparation only while something is protected. */
#define ON(x) \
	do { \
		if (__builtin_expect(mpivet_bc_live, 0)) \
			x; \
	} while (0)
#define RET __builtin_return_address(0)

/* ---- Stores into the program's memory ---- */

/* Cross-memory attach: the kernel stores into the local iovecs (readv) or
 * loads from them (writev). The MPI's shared-memory transports copy large
 * messages so (Open MPI's vader, UCX's cma), in their own calls. */
ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal, const struct iovec *remote,
			 unsigned long nremote, unsigned long flags)
{
	ON(kernel_iov(local, nlocal > INT_MAX ? INT_MAX : (int)nlocal, 1, RET));
	CALL(process_vm_readv, -1, pid, local, nlocal, remote, nremote, flags);
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long nlocal, const struct iovec *remote,
			  unsigned long nremote, unsigned long flags)
{
	ON(kernel_iov(local, nlocal > INT_MAX ? INT_MAX : (int)nlocal, 0, RET));
	CALL(process_vm_writev, -1, pid, local, nlocal, remote, nremote, flags);
}

ssize_t read(int fd, void *buf, size_t n)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(read, -1, fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(pread, -1, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(pread64, -1, fd, buf, n, off);
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
	ON(kernel_iov(iov, n, 1, RET));
	CALL(readv, -1, fd, iov, n);
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	ON(kernel_iov(iov, n, 1, RET));
	CALL(preadv, -1, fd, iov, n, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int n, off64_t off)
{
	ON(kernel_iov(iov, n, 1, RET));
	CALL(preadv64, -1, fd, iov, n, off);
}

ssize_t preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	ON(kernel_iov(iov, n, 1, RET));
	CALL(preadv2, -1, fd, iov, n, off, flags);
}

ssize_t preadv64v2(int fd, const struct iovec *iov, int n, off64_t off, int flags)
{
	ON(kernel_iov(iov, n, 1, RET));
	CALL(preadv64v2, -1, fd, iov, n, off, flags);
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(recv, -1, fd, buf, n, flags);
}

ssize_t recvfrom(int fd, void *restrict buf, size_t n, int flags, struct sockaddr *restrict from, socklen_t *restrict len)
{
	ON((kernel_access((uintptr_t)buf, n, 1, RET), kernel_access((uintptr_t)from, from && len ? *len : 0, 1, RET)));
	CALL(recvfrom, -1, fd, buf, n, flags, from, len);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	ON(kernel_msg(m, 1, RET));
	CALL(recvmsg, -1, fd, m, flags);
}

size_t fread(void *restrict buf, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 1, RET));
	CALL(fread, 0, buf, size, n, f);
}

size_t(fread_unlocked)(void *restrict buf, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 1, RET));
	CALL(fread_unlocked, 0, buf, size, n, f);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(__read_chk, -1, fd, buf, n, buflen);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(__pread_chk, -1, fd, buf, n, off, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(__pread64_chk, -1, fd, buf, n, off, buflen);
}

ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	ON(kernel_access((uintptr_t)buf, n, 1, RET));
	CALL(__recv_chk, -1, fd, buf, n, buflen, flags);
}

ssize_t __recvfrom_chk(int fd, void *restrict buf, size_t n, size_t buflen, int flags, struct sockaddr *restrict from,
		       socklen_t *restrict len)
{
	ON((kernel_access((uintptr_t)buf, n, 1, RET), kernel_access((uintptr_t)from, from && len ? *len : 0, 1, RET)));
	CALL(__recvfrom_chk, -1, fd, buf, n, buflen, flags, from, len);
}

size_t __fread_chk(void *restrict buf, size_t buflen, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 1, RET));
	CALL(__fread_chk, 0, buf, buflen, size, n, f);
}

size_t __fread_unlocked_chk(void *restrict buf, size_t buflen, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 1, RET));
	CALL(__fread_unlocked_chk, 0, buf, buflen, size, n, f);
}

/* ---- Loads from the program's memory ---- */

ssize_t write(int fd, const void *buf, size_t n)
{
	ON(kernel_access((uintptr_t)buf, n, 0, RET));
	CALL(write, -1, fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ON(kernel_access((uintptr_t)buf, n, 0, RET));
	CALL(pwrite, -1, fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	ON(kernel_access((uintptr_t)buf, n, 0, RET));
	CALL(pwrite64, -1, fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	ON(kernel_iov(iov, n, 0, RET));
	CALL(writev, -1, fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	ON(kernel_iov(iov, n, 0, RET));
	CALL(pwritev, -1, fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
	ON(kernel_iov(iov, n, 0, RET));
	CALL(pwritev64, -1, fd, iov, n, off);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	ON(kernel_iov(iov, n, 0, RET));
	CALL(pwritev2, -1, fd, iov, n, off, flags);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off64_t off, int flags)
{
	ON(kernel_iov(iov, n, 0, RET));
	CALL(pwritev64v2, -1, fd, iov, n, off, flags);
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	ON(kernel_access((uintptr_t)buf, n, 0, RET));
	CALL(send, -1, fd, buf, n, flags);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len)
{
	ON((kernel_access((uintptr_t)buf, n, 0, RET), kernel_access((uintptr_t)to, len, 0, RET)));
	CALL(sendto, -1, fd, buf, n, flags, to, len);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	ON(kernel_msg(m, 0, RET));
	CALL(sendmsg, -1, fd, m, flags);
}

size_t fwrite(const void *restrict buf, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 0, RET));
	CALL(fwrite, 0, buf, size, n, f);
}

size_t(fwrite_unlocked)(const void *restrict buf, size_t size, size_t n, FILE *restrict f)
{
	ON(kernel_access((uintptr_t)buf, size * n, 0, RET));
	CALL(fwrite_unlocked, 0, buf, size, n, f);
}
