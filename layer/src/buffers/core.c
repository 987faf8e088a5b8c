/*
 * buffers/: the nonblocking-buffer checker (buffers.h is what the wrappers
 * see, checker.h what its files share). It owns the rule that the program
 * may not touch a pending operation's buffer, which no other part of the
 * layer checks, and it is the one part that changes the program's memory
 * (page protection) and handles its faults.
 *
 * Between the start of a nonblocking or persistent operation (MPI_Isend,
 * MPI_Irecv, MPI_Start, nonblocking collectives, ...) and the Wait or Test
 * that completes it, the program may not write a send buffer, nor read or
 * write a receive buffer (MPI-3.1 §3.7.2; reading a send buffer is legal
 * since MPI 2.2). SyncChecker (seed 004) finds such accesses with binary
 * instrumentation; this works on unmodified binaries with page protection:
 *
 *  - While an operation is pending, the pages its buffer covers are
 *    protected: PROT_NONE for a receive buffer, PROT_READ for a send buffer
 *    (so reads of a send buffer cost nothing: only the access type that can be
 *    wrong is checked, the seed's AT optimisation).
 *  - An access to a protected page faults. The handler decides whether the
 *    address lies in the bytes the operation's datatype covers (a vector type
 *    leaves gaps; the rest of the page is other data) and whether the access
 *    is the program's own; if so it records the access with its call stack.
 *    Either way it opens the page and single-steps the one instruction (the
 *    x86 trap flag), and the trap handler closes the page again.
 *  - The MPI library must be free to touch the buffers: every wrapper opens
 *    the protected pages on entry and closes them on return (in a
 *    multithreaded rank, when the last thread leaves MPI). The kernel, too,
 *    copies into receive buffers for the library (shared-memory single copy,
 *    sockets); it would fail on a protected page instead of faulting. Calls
 *    that only start point-to-point operations may leave the pages of small
 *    ones closed (see lazy_host), and on return only pages whose protection
 *    changes are touched.
 *  - Nothing is done when no operation is pending (mpivet_bc_live is 0), the
 *    seed's ER optimisation; only the pages of pending buffers are protected,
 *    its MR optimisation.
 *
 * Two pending operations whose buffers overlap where one of them receives are
 * recorded when the second starts.
 *
 * The Go side (checks/bufferreuse) names the completion call, if any, from
 * the log: a record here only says which operation (the log offset of the
 * call that started it) and which access.
 *
 * The files, from the bottom up: core.c (this: the checker's state, its
 * lock and its memory), cost.c (statistics, what the checker costs and its
 * budgets), typemap.c (datatypes as byte maps), mpicode.c (which code is
 * the MPI's, the call stack of an access), windows.c (pages left open
 * between two MPI calls, demotions for false sharing), exposure.c (the
 * target's own loads and stores of its one-sided window during exposure
 * epochs, with the same fault handler and budget: its pages are not
 * pending buffers), pages.c (protecting and opening pages around MPI
 * calls), operations.c (pending operations and their buffers), faults.c
 * (the fault and trap handlers, threads), kernelio.c (system calls that
 * make the kernel load or store protected memory), hooks.c (what each MPI call
 * means to the checker), setup.c (set-up through the recorder).
 */
#define _GNU_SOURCE
#include "checker.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>

int mpivet_bc_on, mpivet_bc_live;
__thread int mpivet_bc_entered __attribute__((tls_model("initial-exec")));

uintptr_t pagesz = 4096;

/* The lock (checker.h) */
int lk;
int asym;
volatile int fast_in;
volatile int slow_want;
TLS int fast_thread;
TLS int holding;

/* bc_choose_lock makes the lock asymmetric, with the calling thread (the one
 * that initialised MPI) as its fast side, when no other thread may call MPI.
 * It runs once MPI is initialised, before any buffer is protected, when no
 * other thread can hold the lock. */
void bc_choose_lock(void)
{
	int level = MPI_THREAD_MULTIPLE;
	if (PMPI_Query_thread(&level) != MPI_SUCCESS || level > MPI_THREAD_FUNNELED || asym)
		return;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
		return; /* an old kernel, or a sandbox that forbids it */
	fast_thread = 1;
	asym = 1;
}

/* ---- Memory of the checker ---- */

/* What the fault handler reads lives in pages of its own, never in the
 * program's heap: malloc could place it next to a pending buffer, in a page
 * that is protected, and the handler would fault on its own data. */
void *bc_xalloc(size_t n)
{
	size_t *p = mmap(NULL, n + 16, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	p[0] = n + 16;
	return p + 2;
}

void bc_xfree(void *q)
{
	if (q) {
		size_t *p = (size_t *)q - 2;
		munmap(p, p[0]);
	}
}

void *bc_xrealloc(void *q, size_t n)
{
	void *r = bc_xalloc(n);
	if (r && q) {
		size_t old = ((size_t *)q)[-2] - 16;
		memcpy(r, q, old < n ? old : n);
	}
	if (r)
		bc_xfree(q);
	return r;
}

/* ---- The checker's state (checker.h) ---- */

struct region *regions;
int nregions, capregions;
struct span *spans, *old_spans;
int nspans, capspans, cap_old;
int lazy_host;
int64_t peer_copy_min;
const char *peer_copy_from = "default";
int peer_writes;
uintptr_t mpi_pages[MAX_LISTED];
int nmpi_pages;
uintptr_t unsure[MAX_LISTED];
int nunsure;
int all_open;
int all_unsure;
int dirty;
int unprotected;
int in_mpi;
int threads_made;
uint64_t req_null;
uint64_t window_pc;
uint64_t window_serial = 1;
struct opened opened[MAX_OPENED];
int nopened;

int bc_listed(const uintptr_t *l, int n, uintptr_t page)
{
	for (int i = 0; i < n; i++)
		if (l[i] == page)
			return 1;
	return 0;
}

void bc_list_page(uintptr_t *l, int *n, uintptr_t page)
{
	if (bc_listed(l, *n, page))
		return;
	if (*n < MAX_LISTED)
		l[(*n)++] = page;
	else
		all_unsure = 1;
}
