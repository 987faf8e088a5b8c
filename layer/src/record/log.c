/*
 * The log and the state page as the inline recording primitives of
 * record.h use them: the globals they read, growing the log ahead of the
 * writer, marking where it overflowed, a thread's slot of the state page;
 * and the registry of the services above the recorder, called back.
 */
#define _GNU_SOURCE
#include "record.h"
#include "internal.h"

#include <sys/mman.h>

__thread int mpivet_guard __attribute__((tls_model("initial-exec")));
int mpivet_on, mpivet_inited, mpivet_mt, mpivet_zero_buffering;
char *mpivet_base;
uint64_t mpivet_pos, mpivet_cap, mpivet_ready;
uint64_t *mpivet_state;
__thread uint64_t *mpivet_slot __attribute__((tls_model("initial-exec")));
__thread uint64_t mpivet_call_pc __attribute__((tls_model("initial-exec")));
void (*mpivet_commit_hook)(unsigned call, uint64_t off);
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

/* mpivet_service_fault asks the services whether a SIGSEGV is theirs. */
int mpivet_service_fault(void *siginfo, void *ucontext)
{
	for (int i = 0; i < nservices; i++)
		if (services[i]->fault && services[i]->fault(siginfo, ucontext))
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

/* mpivet_new_slot gives the calling thread its slot of the state page. */
uint64_t *mpivet_new_slot(void)
{
	static int next;
	int i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	if (i >= MPIVET_STATE_SLOTS)
		i = MPIVET_STATE_SLOTS - 1;
	if (i > 0) /* a new thread calling MPI */
		for (int k = 0; k < nservices; k++)
			if (services[k]->thread)
				services[k]->thread();
	return mpivet_slot = &mpivet_state[i * MPIVET_STATE_WORDS];
}

static int overflowed;

/* The log grows in chunks that are populated in one system call ahead of
 * the writer, instead of taking a page fault for every page. */
#define CHUNK (4ULL << 20)

/* mpivet_grow makes the log ready up to at least end; 0 if it is full. */
int mpivet_grow(uint64_t end)
{
	static int busy;
	if (end > mpivet_cap)
		return 0;
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		;
	uint64_t ready = __atomic_load_n(&mpivet_ready, __ATOMIC_RELAXED);
	while (ready < end) {
		uint64_t n = CHUNK;
		if (ready + n > mpivet_cap)
			n = mpivet_cap - ready;
#ifdef MADV_POPULATE_WRITE
		madvise(mpivet_base + ready, n, MADV_POPULATE_WRITE); /* best effort */
#endif
		ready += n;
	}
	__atomic_store_n(&mpivet_ready, ready, __ATOMIC_RELEASE);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	return 1;
}

/* mpivet_overflow marks the end of the records that fit: the first record
 * that did not fit (at offset at) becomes an overflow marker, which the
 * reserved tail always has room for. */
void mpivet_overflow(uint64_t at)
{
	if (at > mpivet_cap || __atomic_exchange_n(&overflowed, 1, __ATOMIC_RELAXED))
		return;
	mpivet_commit(at, 0, MPIVET_META_OVERFLOW, MPIVET_KIND_META);
}
