/*
 * The log and the state page as the inline recording primitives of
 * record.h use them: the globals they read, growing the log ahead of the
 * writer, marking where it overflowed, a thread's slot of the state page;
 * and the registry of the services above the recorder, called back.
 * Below record.h (log.h says why), it writes its two records itself.
 */
#define _GNU_SOURCE
#include "log.h"
#include "fold.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__thread int mpivet_guard __attribute__((tls_model("initial-exec")));
int mpivet_on, mpivet_inited, mpivet_mt, mpivet_mt_guard, mpivet_zero_buffering;
char *mpivet_base;
uint64_t mpivet_pos, mpivet_cap, mpivet_ready;
uint64_t *mpivet_state;
__thread uint64_t *mpivet_slot __attribute__((tls_model("initial-exec")));
__thread uint64_t mpivet_call_pc __attribute__((tls_model("initial-exec")));
__thread unsigned mpivet_thread_no __attribute__((tls_model("initial-exec")));
void (*mpivet_commit_hook)(unsigned call, uint64_t off, uint64_t pc);
uint64_t (*mpivet_site_hook)(uint64_t pc);
uint64_t (*mpivet_fault_site_hook)(void);

/* The services registered by the layers above (see struct mpivet_service),
 * called back in the order they registered. */
#define MAX_SERVICES 8
static const struct mpivet_service *services[MAX_SERVICES];
static int nservices;

void mpivet_register(const struct mpivet_service *s)
{
	if (nservices < MAX_SERVICES)
		services[nservices++] = s;
}

/* mpivet_service_fault asks the services whether a signal is theirs. */
int mpivet_service_fault(int sig, void *siginfo, void *ucontext)
{
	for (int i = 0; i < nservices; i++)
		if (services[i]->fault && services[i]->fault(sig, siginfo, ucontext))
			return 1;
	return 0;
}

/* mpivet_services_log_opened tells the services the log is open. */
void mpivet_services_log_opened(void)
{
	for (int i = 0; i < nservices; i++)
		if (services[i]->log_opened)
			services[i]->log_opened();
}

/* mpivet_services_initialized tells the services MPI is initialised. */
void mpivet_services_initialized(int rank)
{
	for (int i = 0; i < nservices; i++)
		if (services[i]->initialized)
			services[i]->initialized(rank);
}

/* put_header commits the record at off, as mpivet_commit does (no hook
 * sees a meta record). */
static void put_header(uint64_t off, uint64_t nwords, unsigned id, unsigned kind)
{
	__atomic_store_n((uint64_t *)(mpivet_base + off), mpivet_header(nwords, id, kind), __ATOMIC_RELEASE);
}

static int next_slot;

/* mpivet_threads_calling says how many threads have called MPI so far. */
int mpivet_threads_calling(void) { return __atomic_load_n(&next_slot, __ATOMIC_SEQ_CST); }

/* mpivet_new_slot gives the calling thread its slot of the state page.
 * Under MPI_THREAD_MULTIPLE, the second thread to call MPI clears
 * mpivet_mt_guard: from then on the services whose tables are made for one
 * thread (divergence, collective signatures, one-sided values) stand
 * aside, and those made for threads (the clock protocol, whose tables take
 * a lock: clocks/core.c) go on. */
uint64_t *mpivet_new_slot(void)
{
	int i = __atomic_fetch_add(&next_slot, 1, __ATOMIC_SEQ_CST);
	if (i > 0)
		__atomic_store_n(&mpivet_mt_guard, 0, __ATOMIC_SEQ_CST);
	mpivet_thread_no = i < 255 ? (unsigned)i : 255;
	mpivet_thread_slotted(i);
	if (i > 0)
		mpivet_thread_named();
	if (i >= MPIVET_STATE_SLOTS)
		i = MPIVET_STATE_SLOTS - 1;
	else if (i < MPIVET_STATE_SLOTS - 1) /* the last slot is shared: no one thread's */
		__atomic_store_n(&mpivet_state[MPIVET_STATE_THREADS + i], (uint64_t)gettid(), __ATOMIC_RELEASE);
	if (i > 0) /* a new thread calling MPI */
		for (int k = 0; k < nservices; k++)
			if (services[k]->thread)
				services[k]->thread();
	return mpivet_slot = &mpivet_state[i * MPIVET_STATE_WORDS];
}

static int overflowed;
int mpivet_log_fd = -1;
char mpivet_log_path[4400];
static uint64_t allocated; /* bytes of the log's file with blocks reserved */
static int write_errno;    /* why the log could not grow, when it could not */

int mpivet_reserve(int fd, uint64_t off, uint64_t n)
{
	int e;
	do
		e = posix_fallocate(fd, (off_t)off, (off_t)n);
	while (e == EINTR);
	return e;
}

void mpivet_cannot_write(const char *path, int err)
{
	static char said[4][64];
	static int nsaid;
	for (int i = 0; i < nsaid; i++)
		if (strncmp(said[i], path, sizeof said[i] - 1) == 0)
			return;
	if (nsaid < 4)
		snprintf(said[nsaid++], sizeof said[0], "%s", path);
	char line[4600];
	int n = snprintf(line, sizeof line, "mpivet: cannot write its records: %s: %s\n", path, strerror(err));
	if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		return;
}

/* reserve_log reserves the log's blocks up to end, and the end marker's
 * room past it; 0 if the file system refused (write_errno says why). */
static int reserve_log(uint64_t end)
{
	uint64_t to = end + MPIVET_LOG_TAIL;
	if (mpivet_log_fd < 0 || to <= allocated)
		return 1;
	if (to > mpivet_cap + MPIVET_LOG_TAIL)
		to = mpivet_cap + MPIVET_LOG_TAIL;
	int e = mpivet_reserve(mpivet_log_fd, allocated, to - allocated);
	if (e == EBADF) { /* the program closed it: grow unreserved */
		mpivet_log_fd = -1;
		return 1;
	}
	if (e) {
		write_errno = e;
		return 0;
	}
	allocated = to;
	return 1;
}

/* The log grows in chunks that are populated in one system call ahead of
 * the writer, instead of taking a page fault for every page. */
#define CHUNK (4ULL << 20)

/* mpivet_grow makes the log ready up to at least end; 0 if it is full: it
 * reached its size bound, or its file system has no room left for it (then
 * said on standard error, and in the end marker). */
int mpivet_grow(uint64_t end)
{
	static int busy;
	if (end > mpivet_cap || __atomic_load_n(&write_errno, __ATOMIC_RELAXED))
		return 0;
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		;
	uint64_t ready = __atomic_load_n(&mpivet_ready, __ATOMIC_RELAXED);
	while (ready < end) {
		uint64_t n = CHUNK;
		if (ready + n > mpivet_cap)
			n = mpivet_cap - ready;
		if (!reserve_log(ready + n)) {
			/* short of room: only what this record needs, page by page */
			uint64_t need = (end + 4095) & ~4095ULL;
			if (need > mpivet_cap)
				need = mpivet_cap;
			write_errno = 0;
			if (!reserve_log(need))
				break;
			n = need - ready;
		}
#ifdef MADV_POPULATE_WRITE
		madvise(mpivet_base + ready, n, MADV_POPULATE_WRITE); /* best effort */
#endif
		ready += n;
	}
	__atomic_store_n(&mpivet_ready, ready, __ATOMIC_RELEASE);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	if (ready < end)
		mpivet_cannot_write(mpivet_log_path, write_errno);
	return ready >= end;
}

/* mpivet_overflow marks the end of the records that fit: the first record
 * that did not fit (at offset at) becomes an end marker, which the
 * reserved tail always has room for. Its one word, when the file system
 * refused the log room, is the error (trace.Process.WriteErrno). */
void mpivet_overflow(uint64_t at)
{
	int e = __atomic_load_n(&write_errno, __ATOMIC_RELAXED);
	if (at > mpivet_cap || (mpivet_log_fd >= 0 && at + 16 > allocated) || __atomic_exchange_n(&overflowed, 1, __ATOMIC_RELAXED))
		return;
	if (e) {
		((uint64_t *)(mpivet_base + at))[1] = (uint64_t)e;
		put_header(at, 1, MPIVET_META_OVERFLOW, MPIVET_KIND_META);
	} else {
		put_header(at, 0, MPIVET_META_OVERFLOW, MPIVET_KIND_META);
	}
}
