/*
 * What the files of the buffer checker share (buffers/core.c says what the
 * checker does, and which file does what). Not seen outside buffers/: the
 * wrappers see buffers.h. Everything declared here is hidden in the
 * library: none of it may take the place of a program's own symbol.
 */
#ifndef MPIVET_CHECKER_H
#define MPIVET_CHECKER_H

#include "buffers.h"
#include "../datatypes/walk.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <unistd.h>

#pragma GCC visibility push(hidden)

/* Access kinds recorded (checks/bufferreuse names them). */
enum { /* access kinds: generated/format.h (api.Access*) */
	WRITE_SEND = MPIVET_ACCESS_WRITE_SEND, READ_RECV = MPIVET_ACCESS_READ_RECV, WRITE_RECV = MPIVET_ACCESS_WRITE_RECV,
	OVERLAP = MPIVET_ACCESS_OVERLAP, WINDOW_WRITE_SEND = MPIVET_ACCESS_WINDOW_WRITE_SEND,
	WINDOW_WRITE_RECV = MPIVET_ACCESS_WINDOW_WRITE_RECV
};

#define RW (PROT_READ | PROT_WRITE)
#define TLS __thread __attribute__((tls_model("initial-exec")))

extern uintptr_t pagesz;

/* wider gives the more open of two protections. */
static inline int wider(int a, int b) { return a == RW || b == RW ? RW : (a | b); }

/* ---- The lock (core.c) ----
 *
 * One lock guards everything below; the hooks take it on every MPI call and
 * the fault handler on every fault, from whichever thread faults (a
 * program's worker thread, the MPI's progress thread). An atomic exchange
 * per hook was most of the checker's cost on small messages: it waits for
 * the stores before it to drain, and the log's stores miss the cache. So
 * in a rank where one thread calls MPI (MPI_THREAD_SINGLE or FUNNELED), the
 * lock is asymmetric (as in liburcu's and folly's): that thread, the fast
 * side, announces itself with a plain store and checks that no other thread
 * wants the lock, with no fence; another thread, the slow side, takes a
 * spin lock among its kind, says it wants the lock, and issues membarrier(2),
 * which runs a full fence on every CPU running the process. After it, the
 * fast side either sees the want or its announcement is visible, and the
 * slow side waits for it to leave. Faults on other threads are rare and
 * cost microseconds anyway. With MPI_THREAD_SERIALIZED or MULTIPLE, or
 * without membarrier, every thread takes the spin lock. Inline: the hooks
 * take it on every call. */
extern int lk;                 /* the spin lock */
extern int asym;               /* the lock is asymmetric */
extern volatile int fast_in;   /* the fast side holds the lock */
extern volatile int slow_want; /* a slow side wants or holds it */
extern TLS int fast_thread;    /* this thread is the fast side */
extern TLS int holding;        /* this thread holds the lock */

static inline void relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#endif
}

static inline void membarrier_all(void)
{
	syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/* holding is set before taking the lock and cleared after releasing it, so
 * that a fault anywhere in between sees it. */
static inline void lock(void)
{
	holding = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (asym && fast_thread) {
		for (;;) {
			fast_in = 1;
			__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the slow side's membarrier orders it */
			if (!__atomic_load_n(&slow_want, __ATOMIC_ACQUIRE))
				return;
			__atomic_store_n(&fast_in, 0, __ATOMIC_RELEASE);
			while (__atomic_load_n(&slow_want, __ATOMIC_ACQUIRE))
				relax();
		}
	}
	while (__atomic_exchange_n(&lk, 1, __ATOMIC_ACQUIRE))
		relax();
	if (asym) {
		__atomic_store_n(&slow_want, 1, __ATOMIC_SEQ_CST);
		membarrier_all();
		while (__atomic_load_n(&fast_in, __ATOMIC_ACQUIRE))
			relax();
	}
}

static inline void unlock(void)
{
	if (asym && fast_thread)
		__atomic_store_n(&fast_in, 0, __ATOMIC_RELEASE);
	else {
		if (asym)
			__atomic_store_n(&slow_want, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&lk, 0, __ATOMIC_RELEASE);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	holding = 0;
}

/* The signal handlers may interrupt this thread while it holds the lock: a
 * buffer on the stack shares its page with the layer's own stack frames.
 * They then work without taking it (the thread is in the layer, not the
 * program). */
static inline int lock_in_handler(void)
{
	if (holding)
		return 0;
	lock();
	return 1;
}

void bc_choose_lock(void);

/* ---- Memory of the checker (core.c) ---- */

void *bc_xalloc(size_t n);
void bc_xfree(void *q);
void *bc_xrealloc(void *q, size_t n);

/* ---- Statistics and cost (cost.c) ---- */

/* With MPIVET_BUFFERS_STATS=1 each rank prints, at exit, what the checker
 * did: mprotect calls by reason and faults by outcome (what its cost is made
 * of; see bench/). Counting costs nothing measurable. */
enum { S_ENTRY, S_ALL, S_LEAVE, S_START, S_DEMOTE, S_MPI, S_OPEN, S_STEP, S_UNSTEP, NPROT,
       F_MPI = NPROT, F_HIT, F_LOOP, F_DEMOTED, F_OPENED, F_STEPPED, F_STALE, C_LAZY, C_EAGER, X_UNCH, X_LAYER, X_STACK, NSTATS };
extern uint64_t stats[NSTATS];

/* The checker's cost (see watching): the time spent in its hooks and fault
 * handlers, measured with the time-stamp counter (a clock_gettime pair on
 * every hook would cost more than some of them), plus what that does not
 * see: fault delivery and what mprotect costs after it returns. */
extern uint64_t spent_ns;
extern double tsc_per_ns; /* 0: not calibrated, hooks are not timed */
extern uint64_t n_started, n_watched; /* operations, and those watched (see watching) */

static inline uint64_t tsc(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

/* since returns the nanoseconds since tsc() returned t0 (0 until
 * calibrated), at most SAMPLE_MAX_NS. The checker's hooks, mprotect calls
 * and single steps take microseconds; a longer sample is the rank being
 * descheduled in between (a loaded host, more ranks than cores), which the
 * checker did not cost the program and which would otherwise spend the
 * watching budget and the stepping allowance for nothing. */
#define SAMPLE_MAX_NS 200000u
static inline uint64_t since(uint64_t t0)
{
	if (tsc_per_ns <= 0)
		return 0;
	uint64_t ns = (uint64_t)((double)(tsc() - t0) / tsc_per_ns);
	return ns < SAMPLE_MAX_NS ? ns : SAMPLE_MAX_NS;
}

/* add_spent adds ns to spent_ns. An atomic add would be a fence on every
 * hook (see lock); where one thread calls MPI, a fault handler on another
 * thread may rarely lose an update of this estimate instead. */
static inline void add_spent(uint64_t ns)
{
	if (asym)
		__atomic_store_n(&spent_ns, __atomic_load_n(&spent_ns, __ATOMIC_RELAXED) + ns, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&spent_ns, ns, __ATOMIC_RELAXED);
}

/* spend adds the time since tsc() returned t0. */
static inline void spend(uint64_t t0)
{
	add_spent(since(t0));
}

void bc_prot(uintptr_t lo, uintptr_t len, int p, int why);
void bc_print_stats(void);
uint64_t bc_now_ns(void);
void bc_calibrate(void);

/* The stepping allowance (cost.c): the time spent stepping the program's
 * own accesses, since t_start; what a stepped fault costs outside the two
 * handlers (signal_ns); where and whether the step in flight counts. */
extern uint64_t stepped_ns, t_start, cpu_start, signal_ns;
uint64_t bc_cpu_ns(void);
extern TLS uint64_t step_t0;
extern TLS int step_charged;
int bc_may_step(void);

/* The budget (cost.c): whether an operation started at call site pc is
 * watched, and the log of how many were. */
int bc_watch(uint64_t pc);
int bc_watching(void);
void bc_log_watched(void);

/* ---- Datatypes as byte maps (typemap.c) ---- */

/* A flat is the type map of one element of a datatype reduced to the bytes
 * it covers: sorted, disjoint blocks relative to the buffer address. */
struct flat {
	int refs;
	int64_t n, *off, *len;
	int64_t lo, hi; /* first byte covered, one past the last */
	int64_t extent;
	int64_t size; /* bytes covered */
};

struct flat *bc_flat_of(MPI_Datatype t);
void bc_drop_flat(struct flat *f);
void bc_type_freed(uint64_t h);
void bc_bounds(const struct flat *t, uint64_t buf, int64_t count, uintptr_t *lo, uintptr_t *hi);

/* ---- Pending operations (core.c, operations.c) ---- */

/* A region is one buffer (or one piece of a v-collective's buffer) of one
 * operation. An operation is identified by its request handle, the address of
 * the program's request variable (MPIs share one handle among operations that
 * completed at once) and the log offset of the call that started it. */
struct region {
	uint64_t req, at, logref, initref;
	uint64_t win; /* a request-based one-sided operation's window (0: none) */
	unsigned call;
	unsigned char recv, active, persistent;
	unsigned char lazy;    /* small: its pages may stay closed in calls that start operations */
	unsigned char watched; /* its pages are protected (see watch) */
	unsigned char peer_reads;   /* a peer may copy out of it while it is pending: never closed to reads */
	unsigned char peer_written; /* a peer may copy into it while it is pending: never closed */
	uintptr_t buf;
	int64_t count;
	struct flat *t;
	uintptr_t lo, hi; /* address bounds of the covered bytes */
	uint64_t seen[4]; /* access sites already recorded */
	int nseen;
	uint64_t hit_window; /* the last window in which a write was caught exactly */
};

extern struct region *regions;
extern int nregions, capregions;
extern uint64_t req_null;
extern int dirty; /* regions changed since spans were computed */

int bc_covers_range(const struct region *r, uintptr_t s, uintptr_t e);
uint64_t bc_hash_page(const struct region *r, uintptr_t page);

/* COLL marks, in bc_add's recv argument, a buffer of a nonblocking collective. */
#define COLL 2

void bc_record(int kind, uintptr_t addr, const struct region *r, uint64_t other, const uint64_t *pcs, int npcs);
int bc_first_sighting(struct region *r, uint64_t key);
void bc_add(unsigned call, int recv, uint64_t buf, int64_t count, uint64_t type, uint64_t req, uint64_t at,
	    uint64_t logref, int persistent);
void bc_remove_at(int i);
void bc_finish(uint64_t h, uint64_t at, int persistent_done, int nulled);
void bc_finish_one(uint64_t h, uint64_t at, int persistent_done, int nulled);
void bc_forget(uint64_t h, uint64_t at);
void bc_finish_all(uint64_t h);
void bc_window_ops(uint64_t logref, uint64_t win);
void bc_window_add(uint64_t win, uint64_t base, int64_t size, uint64_t logref, unsigned call);
int bc_window_in(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call);
void bc_window_remove(uint64_t win, uint64_t base);
int bc_in_window(uintptr_t lo, uintptr_t hi);
void bc_start(uint64_t h, uint64_t out, uint64_t logref);
int bc_pending_in(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call);

/* Which messages a peer's kernel copies (setup.c, detect_peer_copies), and
 * whether every rank is on this host (lazy_host: operations.c). */
extern int64_t peer_copy_min;
extern const char *peer_copy_from; /* where it came from (statistics) */
extern int peer_writes;
extern int lazy_host;

/* ---- Pages (core.c, pages.c) ---- */

struct span {
	uintptr_t lo, hi; /* pages */
	int prot;
	int eager; /* holds a buffer that is not lazy: opened on entry to every call */
};
extern struct span *spans, *old_spans;
extern int nspans, capspans, cap_old;

#define MAX_LISTED 64
extern uintptr_t mpi_pages[MAX_LISTED]; /* opened since entry: by the MPI, or left open by the window */
extern int nmpi_pages;
extern uintptr_t unsure[MAX_LISTED]; /* protection changed outside the spans' bookkeeping (demotions) */
extern int nunsure;
extern int all_open;    /* every span is open */
extern int all_unsure;  /* a list overflowed: set every page of the old spans again */
extern int unprotected; /* spans are open: a thread is inside MPI */
extern int in_mpi;      /* threads inside MPI */
extern int threads_made; /* the program created a thread (faults.c: pthread_create) */

int bc_listed(const uintptr_t *l, int n, uintptr_t page);
void bc_list_page(uintptr_t *l, int *n, uintptr_t page);
int bc_want_prot(uintptr_t page);
void bc_open_spans(int eager_only);
void bc_enter_locked(int lazy);
void bc_poll_entered(void);
void bc_entering_send(uint64_t buf, int64_t count, uint64_t type);
void bc_entering_start(uint64_t h);

/* ---- Windows and demotions (core.c, windows.c) ---- */

extern uint64_t window_pc;     /* site of the MPI call the window began after */
extern uint64_t window_serial; /* windows begun (0: none, for regions) */
#define MAX_OPENED 512
extern struct opened {
	uintptr_t page;
	int region;
	uint64_t hash;
} opened[MAX_OPENED];
extern int nopened;

#define LOOP_MISSES 4
#define MAX_DEMOTED 256
extern struct demoted {
	uintptr_t page;
	int prot;     /* the protection it is demoted to */
	unsigned ttl; /* windows left */
} demoted[MAX_DEMOTED];
extern int ndemoted;

int bc_demotion(uintptr_t page);
int bc_missed(uintptr_t page, uintptr_t pc);
void bc_close_window(void);
void bc_open_page(uintptr_t page);
void bc_begin_window(void);
void bc_reopen_demoted(void);
int bc_demote(uintptr_t page, int write, int prot);

/* ---- Exposure epochs: the target's own accesses to its window (exposure.c) ---- */

extern int npassive; /* windows watched between MPI calls (exposure.c) */
extern int nexposed; /* windows with a watched epoch open: their pages are protected outside MPI */
void bc_exposure_add(uint64_t win, uint64_t base, int64_t size, int whole);
void bc_exposure_remove(uint64_t win);
void bc_exposure_open(uint64_t win, unsigned call, uint64_t logref, int noput, int opens);
void bc_exposure_close(uint64_t win);
void bc_exposure_enter(void);
void bc_exposure_leave(void);
void bc_exposure_off(void);
int bc_exposure_fault(uintptr_t a, int write, uintptr_t pc, int program);
int bc_exposure_closed(uintptr_t lo, uintptr_t hi, int write);
void bc_exposure_kernel(uintptr_t lo, uintptr_t hi, int write, const uint64_t *pcs, int npcs);

/* ---- The MPI's code and the stack of an access (mpicode.c) ---- */

#define MAX_PCS 24 /* frames of an access recorded */
void bc_find_mpi_code(void);
int bc_in_mpi_code(uintptr_t pc);
int bc_is_mpi_object(const char *name);
int bc_fault_stack(uintptr_t pc, uint64_t *pcs);

/* ---- Faults, traps and threads (faults.c) ---- */

int bc_fault(int sig, void *sip, void *ucp);
void bc_thread(void);

#pragma GCC visibility pop

#endif
