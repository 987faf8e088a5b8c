/*
 * mpivet interposition layer: the nonblocking-buffer checker.
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
 */
#define _GNU_SOURCE
#include "buffers.h"
#include "../generated/ids.h"
#include "../record/conf.h"
#include "../datatypes/walk.h"
#include "../collectives/decode.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

int mpivet_bc_on, mpivet_bc_live;
__thread int mpivet_bc_entered __attribute__((tls_model("initial-exec")));

/* Access kinds recorded (checks/bufferreuse names them). */
enum { /* access kinds: generated/format.h (api.Access*) */
	WRITE_SEND = MPIVET_ACCESS_WRITE_SEND, READ_RECV = MPIVET_ACCESS_READ_RECV, WRITE_RECV = MPIVET_ACCESS_WRITE_RECV,
	OVERLAP = MPIVET_ACCESS_OVERLAP, WINDOW_WRITE_SEND = MPIVET_ACCESS_WINDOW_WRITE_SEND,
	WINDOW_WRITE_RECV = MPIVET_ACCESS_WINDOW_WRITE_RECV
};

#define RW (PROT_READ | PROT_WRITE)

static uintptr_t pagesz = 4096;

#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- The lock ----
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
 * without membarrier, every thread takes the spin lock. */
static int lk;                   /* the spin lock */
static int asym;                 /* the lock is asymmetric */
static volatile int fast_in;     /* the fast side holds the lock */
static volatile int slow_want;   /* a slow side wants or holds it */
static TLS int fast_thread;      /* this thread is the fast side */
static TLS int holding;          /* this thread holds the lock */

static inline void relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#endif
}

static void membarrier_all(void)
{
	syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/* holding is set before taking the lock and cleared after releasing it, so
 * that a fault anywhere in between sees it. */
static void lock(void)
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

static void unlock(void)
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
static int lock_in_handler(void)
{
	if (holding)
		return 0;
	lock();
	return 1;
}

/* choose_lock makes the lock asymmetric, with the calling thread (the one
 * that initialised MPI) as its fast side, when no other thread may call MPI.
 * It runs once MPI is initialised, before any buffer is protected, when no
 * other thread can hold the lock. */
static void choose_lock(void)
{
	int level = MPI_THREAD_MULTIPLE;
	if (PMPI_Query_thread(&level) != MPI_SUCCESS || level > MPI_THREAD_FUNNELED || asym)
		return;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
		return; /* an old kernel, or a sandbox that forbids it */
	fast_thread = 1;
	asym = 1;
}

/* ---- Statistics ---- */

/* With MPIVET_BUFFERS_STATS=1 each rank prints, at exit, what the checker
 * did: mprotect calls by reason and faults by outcome (what its cost is made
 * of; see bench/). Counting costs nothing measurable. */
enum { S_ENTRY, S_ALL, S_LEAVE, S_START, S_DEMOTE, S_MPI, S_OPEN, S_STEP, S_UNSTEP, NPROT,
       F_MPI = NPROT, F_HIT, F_LOOP, F_DEMOTED, F_OPENED, F_STEPPED, F_STALE, C_LAZY, C_EAGER, NSTATS };
static const char *const stat_names[NSTATS] = {
	"mprotect:entry", "mprotect:all", "mprotect:leave", "mprotect:start", "mprotect:demote",
	"mprotect:mpi-fault", "mprotect:window", "mprotect:step", "mprotect:unstep",
	"fault:mpi", "fault:hit", "fault:loop", "fault:demoted", "fault:window", "fault:stepped", "fault:stale",
	"calls:lazy", "calls:eager",
};
static uint64_t stats[NSTATS];

/* The checker's cost (see watching): the time spent in its hooks and fault
 * handlers, measured with the time-stamp counter (a clock_gettime pair on
 * every hook would cost more than some of them), plus what that does not
 * see: fault delivery and what mprotect costs after it returns. */
static uint64_t spent_ns;
static double tsc_per_ns; /* 0: not calibrated, hooks are not timed */
static uint64_t n_started, n_watched; /* operations, and those watched (see watching) */

static inline uint64_t tsc(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

/* since returns the nanoseconds since tsc() returned t0 (0 until calibrated). */
static inline uint64_t since(uint64_t t0)
{
	return tsc_per_ns > 0 ? (uint64_t)((double)(tsc() - t0) / tsc_per_ns) : 0;
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

/* prot is mprotect, counted by reason. What a call costs the rank is about
 * twice the time it takes (a loop of small exchanges slowed by 17 us per
 * watched iteration whose mprotect calls took 10 us): the TLB entries it
 * drops are refilled afterwards, and the other cores running the rank's
 * threads are interrupted to drop theirs. The hook it runs in counts the
 * call's time once; prot counts it once more. */
static void prot(uintptr_t lo, uintptr_t len, int p, int why)
{
	stats[why]++;
	uint64_t t0 = tsc();
	mprotect((void *)lo, len, p);
	spend(t0);
}

static int64_t peer_copy_min;

static void print_stats(void)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "mpivet buffers stats, pid %d: lock=%s spent_ms=%llu watched=%llu/%llu peer_copy_min=%lld", (int)getpid(),
			 asym ? "asymmetric" : "spin", (unsigned long long)(spent_ns / 1000000), (unsigned long long)n_watched,
			 (unsigned long long)n_started, (long long)peer_copy_min);
	for (int i = 0; i < NSTATS && n < (int)sizeof line - 40; i++)
		if (stats[i])
			n += snprintf(line + n, sizeof line - n, " %s=%llu", stat_names[i], (unsigned long long)stats[i]);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	write(2, line, (size_t)n);
}

/* ---- Memory of the checker ---- */

/* What the fault handler reads lives in pages of its own, never in the
 * program's heap: malloc could place it next to a pending buffer, in a page
 * that is protected, and the handler would fault on its own data. */
static void *xalloc(size_t n)
{
	size_t *p = mmap(NULL, n + 16, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	p[0] = n + 16;
	return p + 2;
}

static void xfree(void *q)
{
	if (q) {
		size_t *p = (size_t *)q - 2;
		munmap(p, p[0]);
	}
}

static void *xrealloc(void *q, size_t n)
{
	void *r = xalloc(n);
	if (r && q) {
		size_t old = ((size_t *)q)[-2] - 16;
		memcpy(r, q, old < n ? old : n);
	}
	if (r)
		xfree(q);
	return r;
}

/* ---- Datatypes as byte maps ---- */

/* A flat is the type map of one element of a datatype reduced to the bytes
 * it covers: sorted, disjoint blocks relative to the buffer address. */
struct flat {
	int refs;
	int64_t n, *off, *len;
	int64_t lo, hi; /* first byte covered, one past the last */
	int64_t extent;
	int64_t size; /* bytes covered */
};

struct blocks {
	int64_t n, cap, *off, *len;
	int bad;
};

#define MAX_BLOCKS (1 << 20)

static void push(struct blocks *b, int64_t off, int64_t len)
{
	if (len <= 0 || b->bad)
		return;
	if (b->n && b->off[b->n - 1] + b->len[b->n - 1] == off) {
		b->len[b->n - 1] += len; /* the common case: contiguous runs */
		return;
	}
	if (b->n == b->cap) {
		int64_t cap = b->cap ? 2 * b->cap : 16;
		if (cap > MAX_BLOCKS) {
			b->bad = 1;
			return;
		}
		int64_t *o = xrealloc(b->off, cap * sizeof *o), *l = o ? xrealloc(b->len, cap * sizeof *l) : NULL;
		if (!o || !l) {
			if (o)
				b->off = o;
			b->bad = 1;
			return;
		}
		b->off = o, b->len = l, b->cap = cap;
	}
	b->off[b->n] = off;
	b->len[b->n] = len;
	b->n++;
}

static void flatten(MPI_Datatype t, int64_t disp, struct blocks *b, int depth);

struct flatten_at {
	struct blocks *b;
	int depth;
};

static int flatten_copy(void *ctx, MPI_Datatype t, int64_t disp)
{
	struct flatten_at *at = ctx;
	flatten(t, disp, at->b, at->depth + 1);
	return at->b->bad;
}

/* flatten appends the bytes one element of t covers, displaced by disp. */
static void flatten(MPI_Datatype t, int64_t disp, struct blocks *b, int depth)
{
	struct mpivet_type_parts p;
	int kind = b->bad || depth > 32 ? MPIVET_TYPE_UNKNOWN : mpivet_type_open(t, &p);
	if (kind == MPIVET_TYPE_BASIC) {
		int size = 0;
		PMPI_Type_size(t, &size);
		push(b, disp, size);
		return;
	}
	if (kind == MPIVET_TYPE_UNKNOWN) { /* DARRAY and anything newer: not mapped, not checked */
		b->bad = 1;
		return;
	}
	struct flatten_at at = {b, depth};
	for (int g = 0; g < p.ngroups && !b->bad; g++)
		if (mpivet_type_each(&p, g, disp, flatten_copy, &at) < 0)
			b->bad = 1;
	mpivet_type_close(&p);
}

static int cmp_block(const void *a, const void *b)
{
	int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* make_flat builds the byte map of datatype t, or NULL if it cannot. */
static struct flat *make_flat(MPI_Datatype t)
{
	struct blocks b = {0};
	flatten(t, 0, &b, 0);
	struct flat *f = NULL;
	int64_t *pairs = NULL;
	if (b.bad || !(f = xalloc(sizeof *f)) || !(pairs = malloc((b.n + 1) * 2 * sizeof *pairs)))
		goto fail;
	for (int64_t i = 0; i < b.n; i++)
		pairs[2 * i] = b.off[i], pairs[2 * i + 1] = b.len[i];
	qsort(pairs, b.n, 2 * sizeof *pairs, cmp_block);
	int64_t n = 0;
	for (int64_t i = 0; i < b.n; i++) { /* merge overlapping and touching blocks */
		int64_t o = pairs[2 * i], l = pairs[2 * i + 1];
		if (n && o <= b.off[n - 1] + b.len[n - 1]) {
			int64_t end = o + l > b.off[n - 1] + b.len[n - 1] ? o + l : b.off[n - 1] + b.len[n - 1];
			b.len[n - 1] = end - b.off[n - 1];
		} else {
			b.off[n] = o, b.len[n] = l, n++;
		}
	}
	free(pairs);
	f->refs = 1;
	f->n = n, f->off = b.off, f->len = b.len;
	f->lo = n ? b.off[0] : 0;
	f->hi = n ? b.off[n - 1] + b.len[n - 1] : 0;
	f->extent = mpivet_type_extent(t);
	f->size = 0;
	for (int64_t i = 0; i < n; i++)
		f->size += b.len[i];
	return f;
fail:
	xfree(f), free(pairs), xfree(b.off), xfree(b.len);
	return NULL;
}

static void drop_flat(struct flat *f)
{
	if (f && --f->refs == 0) {
		xfree(f->off), xfree(f->len), xfree(f);
	}
}

/* A small cache of byte maps by datatype handle; MPI_Type_free evicts. */
#define CACHE 64
static struct {
	uint64_t type;
	struct flat *f;
} cache[CACHE];
static unsigned cache_next, cache_last;

static struct flat *flat_of(MPI_Datatype t)
{
	uint64_t h = MPIVET_H(t);
	for (unsigned k = 0; k < CACHE; k++) { /* the last type used first */
		unsigned i = (cache_last + k) % CACHE;
		if (cache[i].f && cache[i].type == h) {
			cache[i].f->refs++;
			cache_last = i;
			return cache[i].f;
		}
	}
	struct flat *f = make_flat(t);
	if (!f)
		return NULL;
	unsigned i = cache_next++ % CACHE;
	drop_flat(cache[i].f);
	cache[i].type = h, cache[i].f = f;
	cache_last = i;
	f->refs++;
	return f;
}

static void type_freed(uint64_t h)
{
	for (int i = 0; i < CACHE; i++)
		if (cache[i].f && cache[i].type == h) {
			drop_flat(cache[i].f);
			cache[i].f = NULL;
		}
}

/* ---- Pending buffers ---- */

/* A region is one buffer (or one piece of a v-collective's buffer) of one
 * operation. An operation is identified by its request handle, the address of
 * the program's request variable (MPIs share one handle among operations that
 * completed at once) and the log offset of the call that started it. */
struct region {
	uint64_t req, at, logref, initref;
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

static struct region *regions;
static int nregions, capregions;

struct span {
	uintptr_t lo, hi; /* pages */
	int prot;
	int eager; /* holds a buffer that is not lazy: opened on entry to every call */
};
static struct span *spans, *old_spans;
static int nspans, capspans, cap_old;

/* Opening every protected page on entry to every MPI call and closing it on
 * return costs two mprotect calls per run of pages per call: most of the
 * checker's cost in a loop of Isend, Irecv and Waitall. A call that only
 * starts point-to-point operations rarely touches the buffers of earlier
 * ones, and when it does (a page shared with the buffer it sends, or
 * progress made inside the call), the MPI's instructions fault, and the page
 * is opened until the call returns. The kernel, which would fail instead of
 * faulting, copies only large messages (single-copy shared memory) or
 * between hosts. So when every rank runs on this host (lazy_host), such calls
 * leave closed the pages of messages up to LAZY_BYTES. On return, only the
 * pages whose protection changes are touched. */
#define LAZY_BYTES 4096
#define LAZY_SPAN (64 << 10)
static int lazy_host;

/* ---- Copies made by a peer ----
 *
 * Shared-memory transports move a large message with one copy, from the
 * sender's buffer straight into the receiver's: the kernel's cross-memory
 * attach (process_vm_readv: Open MPI's vader BTL, UCX's cma transport, which
 * Debian's MPICH uses) or a mapping of the sender's pages (XPMEM, KNEM). The
 * receiver makes that copy inside its own MPI calls, so at any time between
 * the send's start and its completion, while the sender computes with its
 * pages closed. The kernel fails a copy from a page the sender cannot read
 * (EFAULT: vader prints "Read -1, expected N, errno = 14" and falls back, UCX
 * aborts the job), and no fault handler sees it. So the pages of a pending
 * send that a peer may copy are never closed against reads, even where a
 * pending receive shares them: the program's reads of that receive buffer on
 * those pages go unseen (its writes, and every access to the rest of the
 * receive buffer, are still caught). Which sends: contiguous ones (both
 * transports pack other datatypes inside the sender's own calls) of at least
 * peer_copy_min bytes, the size where the transport switches to its
 * rendezvous, and every buffer of a nonblocking collective of that size (its
 * schedule sends pieces of it, and of its receive buffer once they have
 * arrived). The receiver's kernel writes into its own receive buffer during
 * its MPI calls, so such receives are never lazy. Both transports here copy
 * by reading; where the sender writes instead (UCX_RNDV_SCHEME=put_zcopy),
 * receives of that size are not watched. detect_peer_copies sets these when
 * MPI is initialised; until then, and for a transport it does not know, every
 * send may be copied by a peer. */
static int64_t peer_copy_min; /* declared above, for print_stats */
static int peer_writes; /* the sender writes large messages into the receiver's buffer */

#define MAX_LISTED 64
static uintptr_t mpi_pages[MAX_LISTED]; /* opened since entry: by the MPI, or left open by the window */
static int nmpi_pages;
static uintptr_t unsure[MAX_LISTED]; /* protection changed outside the spans' bookkeeping (demotions) */
static int nunsure;
static int all_open;  /* every span is open */
static int all_unsure; /* a list overflowed: set every page of the old spans again */

static int listed(const uintptr_t *l, int n, uintptr_t page)
{
	for (int i = 0; i < n; i++)
		if (l[i] == page)
			return 1;
	return 0;
}

static void list_page(uintptr_t *l, int *n, uintptr_t page)
{
	if (listed(l, *n, page))
		return;
	if (*n < MAX_LISTED)
		l[(*n)++] = page;
	else
		all_unsure = 1;
}
/* Single-stepping an access costs two signals and two mprotect calls (25 to
 * 30 us measured in an MPI rank in a virtual machine, five times what the
 * same takes in a one-threaded program), and programs that compute on data
 * sharing pages with pending buffers (a halo exchange overlapped with the
 * interior update) fault on every access. So stepping has an allowance,
 * measured in time spent stepping: GRACE_NS, plus RATE of the time since MPI
 * started (unless --buffers=precise); only the program's own accesses
 * count. Past it, a page whose fault missed the pending bytes is demoted
 * (see demoted[]); one whose fault hit them (the program keeps accessing a
 * pending buffer) stays open until the next MPI call, and the bytes of
 * pending buffers on it are compared then: a change is reported as a write
 * somewhere between the two calls. */
#define GRACE_NS 50e6
#define RATE 0.03
int mpivet_bc_precise;
static uint64_t stepped_ns, t_start;
/* What a stepped fault costs outside the two handlers (delivering the first
 * signal, returning from the second), measured by calibrate(); the time in
 * between is measured fault by fault. */
static uint64_t signal_ns = 5000;
static TLS uint64_t step_t0;
static TLS int step_charged; /* the step is the program's: it counts against the allowance */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* may_step reports whether one more fault may be single-stepped. */
static int may_step(void)
{
	if (mpivet_bc_precise)
		return 1;
	return (double)stepped_ns < GRACE_NS + RATE * (double)(now_ns() - t_start);
}
/* Protecting pages costs about 2.5 us per mprotect call in an MPI rank here,
 * and an operation costs two to four of them: nothing next to a computation
 * of a millisecond between exchanges, twenty times the run in a loop that
 * only exchanges small messages. So the checker's cost has a budget too.
 * Time is cut into periods of WATCH_PERIOD_NS, and in each, operations are
 * watched until the checker has spent WATCH_RATE of the period (measured:
 * its hooks, mprotect calls, fault deliveries). For the rest of the period,
 * an operation started at a call site that has had MIN_WATCHED operations
 * watched already is left unwatched: its buffer is tracked (for overlaps
 * and completions) but its pages are not protected. Periods start at the
 * same wall-clock times in every rank, so that ranks that wait for each
 * other watch, and slow down, at the same time: each rank's stretch of
 * watching would otherwise hold up the others in theirs.
 *
 * So every hot site keeps being watched in stretches all through the run,
 * and a site that errs every time it runs (the common case of a missing or
 * misplaced Wait) is still caught; one that errs once in many runs of a hot
 * site may be missed. --buffers=precise watches everything. The log says
 * how many operations were watched (MetaWatch). */
#define WATCH_PERIOD_NS 100000000ull
#define WATCH_RATE 0.2
#define MIN_WATCHED 16
static uint64_t period, period_spent;
static uint64_t period_end; /* time-stamp counter at the end of the period */
#define SITES 512
static struct {
	uint64_t pc, watched;
} sites[SITES];

/* watching reports whether operations are watched now. It reads the clock
 * once a period, the time-stamp counter otherwise; once the budget is
 * spent, only every SKIP-th call (an operation at a hot site, the loop it
 * slows down least: microseconds apart). */
#define SKIP 64
static unsigned skip;

static int watching(void)
{
	if (mpivet_bc_precise)
		return 1;
	if (skip) {
		skip--;
		return 0;
	}
	uint64_t now = tsc();
	if (now >= period_end || tsc_per_ns == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, p = ns / WATCH_PERIOD_NS;
		if (p != period)
			period = p, period_spent = __atomic_load_n(&spent_ns, __ATOMIC_RELAXED);
		period_end = now + (uint64_t)((double)((p + 1) * WATCH_PERIOD_NS - ns) * tsc_per_ns);
	}
	if ((double)(__atomic_load_n(&spent_ns, __ATOMIC_RELAXED) - period_spent) < WATCH_RATE * WATCH_PERIOD_NS)
		return 1;
	skip = SKIP - 1;
	return 0;
}

/* watch decides whether an operation started at call site pc is watched. */
static int watch(uint64_t pc)
{
	n_started++;
	unsigned h = (unsigned)((pc * 0x9E3779B97F4A7C15ULL) >> 55) % SITES;
	for (int k = 0; k < 8; k++) {
		unsigned i = (h + k) % SITES;
		if (sites[i].pc == pc || sites[i].pc == 0) {
			sites[i].pc = pc;
			if (sites[i].watched >= MIN_WATCHED && !watching())
				return 0;
			sites[i].watched++;
			n_watched++;
			return 1;
		}
	}
	if (!watching()) /* the table is full: sites not in it count as hot */
		return 0;
	n_watched++;
	return 1;
}

/* log_watched logs how many operations were started and watched. */
static void log_watched(void)
{
	if (!mpivet_on || !n_started)
		return;
	uint64_t w[2] = {n_started, n_watched};
	mpivet_meta(MPIVET_META_WATCH, w, 2);
}

static uint64_t window_pc;     /* site of the MPI call the window began after */
static uint64_t window_serial = 1; /* windows begun (0: none, for regions) */
#define MAX_OPENED 512
static struct {
	uintptr_t page;
	int region;
	uint64_t hash;
} opened[MAX_OPENED];
static int nopened;

/* Pages demoted for false sharing. A page whose faults miss the bytes of
 * pending buffers (the program works on other data in the same page: the
 * interior of a halo-exchanged array) would be single-stepped on every
 * access. Within the stepping allowance (may_step) that is what happens, so
 * a later access to the pending bytes is caught exactly, unless one
 * instruction misses LOOP_MISSES times on a page off the thread's stack in
 * one window: that is a loop over the other data, which would spend the
 * allowance that stack pages and straight-line code need. Past the
 * allowance, or after such a loop, a page that faults that way is demoted
 * for DEMOTED_WINDOWS windows (stretches of program between MPI calls),
 * twice as long each time it is demoted again (up to 2^MAX_STRIKES times):
 * made read-only if the fault was a read, so
 * that writes are still caught exactly and only reads of a pending receive
 * buffer on that page go unseen; opened entirely if it was a write, its
 * pending bytes then compared at the next MPI call (a change is reported
 * between the two calls). Then it is protected fully again, and a change
 * found by comparison ends the demotion at once, so that the next such
 * access is caught with its line. */
#define DEMOTED_WINDOWS 256
#define MAX_STRIKES 4
#define LOOP_MISSES 4
#define MAX_DEMOTED 256
static struct {
	uintptr_t page;
	int prot;     /* the protection it is demoted to */
	unsigned ttl; /* windows left */
} demoted[MAX_DEMOTED];
static int ndemoted;

static int demotion(uintptr_t page)
{
	for (int i = 0; i < ndemoted; i++)
		if (demoted[i].page == page)
			return i;
	return -1;
}

/* Demotions so far by page (the most recent pages, if there are many). */
#define STRIKE_PAGES 64
static struct {
	uintptr_t page;
	unsigned n;
} strikes[STRIKE_PAGES];
static unsigned nstrikes;

/* strike counts a demotion of page and returns how many came before. */
static unsigned strike(uintptr_t page)
{
	unsigned n = nstrikes < STRIKE_PAGES ? nstrikes : STRIKE_PAGES;
	for (unsigned i = 0; i < n; i++)
		if (strikes[i].page == page)
			return strikes[i].n++;
	unsigned i = nstrikes++ % STRIKE_PAGES;
	strikes[i].page = page, strikes[i].n = 1;
	return 0;
}

/* Misses in this window by page and instruction. */
#define MISS_SITES 32
static struct {
	uintptr_t page, pc;
	int n;
} misses[MISS_SITES];
static int nmisses;

/* missed counts a miss on page by the instruction at pc in this window and
 * returns how many there were. */
static int missed(uintptr_t page, uintptr_t pc)
{
	for (int i = 0; i < nmisses; i++)
		if (misses[i].page == page && misses[i].pc == pc)
			return ++misses[i].n;
	int i = nmisses < MISS_SITES ? nmisses++ : MISS_SITES - 1;
	misses[i].page = page, misses[i].pc = pc, misses[i].n = 1;
	return 1;
}

/* wider gives the more open of two protections. */
static int wider(int a, int b) { return a == RW || b == RW ? RW : (a | b); }

static int dirty;       /* regions changed since spans were computed */
static int unprotected; /* spans are open: a thread is inside MPI */
static int in_mpi;      /* threads inside MPI */
static uint64_t req_null;

/* elements sets [*imin, *imax] to the elements of r whose bytes may meet
 * the offsets [os, oe) from its buffer. */
static void elements(const struct region *r, int64_t os, int64_t oe, int64_t *imin, int64_t *imax)
{
	const struct flat *t = r->t;
	int64_t ext = t->extent;
	*imin = 0, *imax = r->count - 1;
	if (ext > 0) {
		/* elements i whose [i*ext+lo, i*ext+hi) meets [os, oe) */
		int64_t a = os - t->hi, c = oe - 1 - t->lo;
		int64_t lo_i = a >= 0 ? a / ext + 1 : -((-a + ext - 1) / ext) + 1;
		int64_t hi_i = c >= 0 ? c / ext : -((-c + ext - 1) / ext);
		if (lo_i > *imin)
			*imin = lo_i;
		if (hi_i < *imax)
			*imax = hi_i;
	} else if (r->count > 1) {
		*imax = 0; /* a zero or negative extent: only the first element is mapped */
	}
}

/* first_block returns the first block of t that ends after offset rs. */
static int64_t first_block(const struct flat *t, int64_t rs)
{
	int64_t l = 0, h = t->n;
	while (l < h) {
		int64_t m = (l + h) / 2;
		if (t->off[m] + t->len[m] <= rs)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* covers_range reports whether the operation's datatype covers any byte of
 * [s, e). */
static int covers_range(const struct region *r, uintptr_t s, uintptr_t e)
{
	if (e <= r->lo || s >= r->hi)
		return 0;
	const struct flat *t = r->t;
	int64_t os = (int64_t)(s - r->buf), oe = (int64_t)(e - r->buf), imin, imax;
	elements(r, os, oe, &imin, &imax);
	for (int64_t i = imin; i <= imax; i++) {
		int64_t rs = os - i * t->extent, re = oe - i * t->extent, l = first_block(t, rs);
		if (l < t->n && t->off[l] < re)
			return 1;
	}
	return 0;
}

/* hash_page hashes the bytes of page that r's datatype covers (FNV-1a). */
static uint64_t hash_page(const struct region *r, uintptr_t page)
{
	uint64_t h = 1469598103934665603ULL;
	uintptr_t s = page, e = page + pagesz;
	if (e <= r->lo || s >= r->hi)
		return h;
	const struct flat *t = r->t;
	int64_t os = (int64_t)(s - r->buf), oe = (int64_t)(e - r->buf), imin, imax;
	elements(r, os, oe, &imin, &imax);
	for (int64_t i = imin; i <= imax; i++) {
		int64_t rs = os - i * t->extent, re = oe - i * t->extent;
		for (int64_t k = first_block(t, rs); k < t->n && t->off[k] < re; k++) {
			int64_t a = t->off[k] > rs ? t->off[k] : rs, b = t->off[k] + t->len[k] < re ? t->off[k] + t->len[k] : re;
			const unsigned char *p = (const unsigned char *)(r->buf + i * t->extent);
			for (int64_t x = a; x < b; x++)
				h = (h ^ p[x]) * 1099511628211ULL;
		}
	}
	return h;
}

static int want_prot(uintptr_t page)
{
	for (int i = 0; i < nopened; i++)
		if (opened[i].page == page)
			return RW;
	for (int i = 0; i < nspans; i++)
		if (page >= spans[i].lo && page < spans[i].hi) {
			if (unprotected && (spans[i].eager || all_open || listed(mpi_pages, nmpi_pages, page)))
				return RW;
			int d = demotion(page);
			return d >= 0 ? wider(spans[i].prot, demoted[d].prot) : spans[i].prot;
		}
	return RW;
}

/* open_spans opens every span (or only the eager ones), one call for a run
 * of touching spans whatever their protection. */
static void open_spans(int eager_only)
{
	for (int i = 0; i < nspans; i++) {
		if (eager_only && !spans[i].eager)
			continue;
		uintptr_t lo = spans[i].lo;
		while (i + 1 < nspans && spans[i + 1].lo == spans[i].hi && (!eager_only || spans[i + 1].eager))
			i++;
		prot(lo, spans[i].hi - lo, RW, S_ENTRY);
	}
	if (!eager_only)
		all_open = 1;
}

/* span_at returns the span of ss (sorted, disjoint) holding page, or NULL. */
static const struct span *span_at(const struct span *ss, int n, uintptr_t page)
{
	int l = 0, h = n;
	while (l < h) {
		int m = (l + h) / 2;
		if (ss[m].hi <= page)
			l = m + 1;
		else
			h = m;
	}
	return l < n && ss[l].lo <= page ? &ss[l] : NULL;
}

/* sort_uptr sorts in place without allocating (qsort may call malloc, whose
 * heap can share pages with closed buffers). Shell sort. */
static void sort_uptr(uintptr_t *a, int n)
{
	for (int gap = n / 2; gap > 0; gap = gap == 2 ? 1 : gap * 5 / 11)
		for (int i = gap; i < n; i++) {
			uintptr_t v = a[i];
			int j = i;
			for (; j >= gap && a[j - gap] > v; j -= gap)
				a[j] = a[j - gap];
			a[j] = v;
		}
}

/* compute_spans turns the active regions into runs of pages with one
 * protection: none where a receive is pending, read-only where only sends
 * are. */
static void compute_spans(void)
{
	nspans = 0;
	int n = 0, m = 0;
	for (int i = 0; i < nregions; i++) {
		n += regions[i].active && regions[i].watched;
		m += regions[i].active && (regions[i].watched || regions[i].peer_reads || regions[i].peer_written);
	}
	if (!n)
		return;
	/* the checker's own pages: the heap may share pages with closed buffers */
	static uintptr_t *cut;
	static size_t capcut;
	size_t need = 2 * (size_t)(m + ndemoted);
	if (need > capcut) {
		uintptr_t *c = xrealloc(cut, 2 * need * sizeof *c);
		if (!c)
			return;
		cut = c, capcut = 2 * need;
	}
	int k = 0;
	for (int i = 0; i < nregions; i++) {
		struct region *r = &regions[i];
		if (!r->active || !(r->watched || r->peer_reads || r->peer_written))
			continue;
		cut[k++] = r->lo & ~(pagesz - 1);
		cut[k++] = (r->hi + pagesz - 1) & ~(pagesz - 1);
	}
	for (int i = 0; i < ndemoted; i++)
		cut[k++] = demoted[i].page, cut[k++] = demoted[i].page + pagesz;
	sort_uptr(cut, k);
	for (int j = 0; j + 1 < k; j++) {
		uintptr_t lo = cut[j], hi = cut[j + 1];
		if (lo == hi)
			continue;
		int prot = -1, eager = 0, peer = 0, written = 0;
		for (int i = 0; i < nregions; i++) {
			struct region *r = &regions[i];
			uintptr_t plo = r->lo & ~(pagesz - 1), phi = (r->hi + pagesz - 1) & ~(pagesz - 1);
			if (!r->active || phi <= lo || plo >= hi)
				continue;
			written |= r->peer_written;
			peer |= r->peer_reads; /* watched or not */
			if (!r->watched)
				continue;
			int p = r->recv ? PROT_NONE : PROT_READ;
			if (prot < 0 || p == PROT_NONE)
				prot = p;
			eager |= !r->lazy;
		}
		if (prot < 0 || written)
			continue; /* open: a peer's kernel may write it now */
		if (peer && prot == PROT_NONE)
			prot = PROT_READ; /* a peer's kernel may read it now */
		int d = hi - lo == pagesz ? demotion(lo) : -1;
		if (d >= 0 && (prot = wider(prot, demoted[d].prot)) == RW)
			continue; /* open: compared at the next MPI call instead */
		if (nspans && spans[nspans - 1].hi == lo && spans[nspans - 1].prot == prot && spans[nspans - 1].eager == eager) {
			spans[nspans - 1].hi = hi;
			continue;
		}
		if (nspans == capspans) {
			int cap = capspans ? 2 * capspans : 16;
			struct span *s = xrealloc(spans, cap * sizeof *s);
			if (!s)
				break;
			spans = s, capspans = cap;
		}
		spans[nspans++] = (struct span){lo, hi, prot, eager};
	}
}

static void record(int kind, uintptr_t addr, const struct region *r, uint64_t other, const uint64_t *pcs, int npcs);

/* first_sighting reports whether r has not recorded an access at site key
 * yet, and remembers it (up to four sites per operation). */
static int first_sighting(struct region *r, uint64_t key)
{
	for (int k = 0; k < r->nseen; k++)
		if (r->seen[k] == key)
			return 0;
	if (r->nseen < 4)
		r->seen[r->nseen++] = key;
	return 1;
}

/* close_window compares the pages left open in the window that ends. */
static void close_window(void)
{
	for (int i = 0; i < nopened; i++) {
		list_page(mpi_pages, &nmpi_pages, opened[i].page); /* open: closed again on return */
		struct region *r = &regions[opened[i].region];
		if (opened[i].region >= nregions || !r->active || hash_page(r, opened[i].page) == opened[i].hash)
			continue;
		if (r->hit_window == window_serial)
			continue; /* a write was caught exactly in this window already */
		int d = demotion(opened[i].page);
		if (d >= 0)
			demoted[d].ttl = 1, dirty = 1; /* protect it fully again: catch the next one exactly */
		uint64_t pcs[2] = {window_pc, mpivet_call_pc};
		if (!first_sighting(r, window_pc * 31 + mpivet_call_pc))
			continue;
		uintptr_t lo = opened[i].page > r->lo ? opened[i].page : r->lo;
		record(r->recv ? WINDOW_WRITE_RECV : WINDOW_WRITE_SEND, lo, r, 0, pcs, 2);
	}
	nopened = 0;
}

/* open_page leaves page open for the window that starts, with the pending
 * bytes on it remembered for close_window. */
static void open_page(uintptr_t page)
{
	for (int i = 0; i < nregions && nopened < MAX_OPENED; i++)
		if (regions[i].active && regions[i].hi > page && regions[i].lo < page + pagesz) {
			opened[nopened].page = page;
			opened[nopened].region = i;
			opened[nopened].hash = hash_page(&regions[i], page);
			nopened++;
		}
}

/* age_demotions counts a window off every demotion, ends the expired ones
 * and remembers the pending bytes of the open ones (at a leave, before the
 * pages are protected again). */
static void age_demotions(void)
{
	for (int i = 0; i < ndemoted; i++) {
		if (--demoted[i].ttl == 0) {
			demoted[i] = demoted[--ndemoted];
			i--;
			dirty = 1; /* the page's span protection comes back */
		}
	}
}

static void enter(int lazy)
{
	lock();
	stats[lazy ? C_LAZY : C_EAGER]++;
	if (in_mpi == 0)
		close_window();
	if (!mpivet_bc_entered) {
		mpivet_bc_entered = 1;
		in_mpi++;
	}
	if (!unprotected) {
		unprotected = 1;
		open_spans(lazy);
	} else if (!lazy && !all_open) {
		open_spans(0);
	}
	unlock();
}

void mpivet_bc_enter(int lazy)
{
	uint64_t t0 = tsc();
	enter(lazy);
	spend(t0);
}

/* protect_all sets every span's protection, whatever the pages are now. */
static void protect_all(void)
{
	for (int i = 0; i < nspans; i++)
		prot(spans[i].lo, spans[i].hi - spans[i].lo, spans[i].prot, S_ALL);
}

/* reprotect closes the pages after the last thread left MPI: it sets the
 * protection of the spans (recomputed if the pending operations changed)
 * where it differs from what it is now. */
static void reprotect(int changed)
{
	int nold = nspans;
	if (nold > cap_old) {
		struct span *o = xrealloc(old_spans, 2 * nold * sizeof *o);
		if (!o) { /* no room to compare: set everything */
			open_spans(0);
			if (changed)
				compute_spans();
			protect_all();
			return;
		}
		old_spans = o, cap_old = 2 * nold;
	}
	memcpy(old_spans, spans, nold * sizeof *spans);
	if (changed)
		compute_spans();
	static uintptr_t *pts;
	static size_t cappts;
	size_t need = 2 * ((size_t)nold + nspans + nmpi_pages + nunsure);
	if (need > cappts) {
		uintptr_t *p = xrealloc(pts, 2 * need * sizeof *p);
		if (!p) {
			for (int i = 0; i < nold; i++)
				prot(old_spans[i].lo, old_spans[i].hi - old_spans[i].lo, RW, S_ALL);
			protect_all();
			return;
		}
		pts = p, cappts = 2 * need;
	}
	int k = 0;
	for (int i = 0; i < nold; i++)
		pts[k++] = old_spans[i].lo, pts[k++] = old_spans[i].hi;
	for (int i = 0; i < nspans; i++)
		pts[k++] = spans[i].lo, pts[k++] = spans[i].hi;
	for (int i = 0; i < nmpi_pages; i++)
		pts[k++] = mpi_pages[i], pts[k++] = mpi_pages[i] + pagesz;
	for (int i = 0; i < nunsure; i++)
		pts[k++] = unsure[i], pts[k++] = unsure[i] + pagesz;
	sort_uptr(pts, k);
	uintptr_t run_lo = 0, run_hi = 0;
	int run_prot = 0;
	for (int j = 0; j + 1 < k; j++) {
		uintptr_t a = pts[j], b = pts[j + 1];
		if (a == b)
			continue;
		const struct span *o = span_at(old_spans, nold, a), *n = span_at(spans, nspans, a);
		int want = n ? n->prot : RW, cur = RW;
		if (o && !o->eager && !all_open && !listed(mpi_pages, nmpi_pages, a))
			cur = o->prot; /* left closed through the call */
		if ((o && all_unsure) || listed(unsure, nunsure, a))
			cur = -1;
		if (cur == want)
			continue;
		if (run_hi == a && run_prot == want) {
			run_hi = b;
			continue;
		}
		if (run_hi > run_lo)
			prot(run_lo, run_hi - run_lo, run_prot, S_LEAVE);
		run_lo = a, run_hi = b, run_prot = want;
	}
	if (run_hi > run_lo)
		prot(run_lo, run_hi - run_lo, run_prot, S_LEAVE);
}

static void leave(void)
{
	lock();
	if (mpivet_bc_entered) {
		mpivet_bc_entered = 0;
		in_mpi--;
	}
	if (in_mpi <= 0) {
		in_mpi = 0;
		window_pc = mpivet_call_pc;
		window_serial++;
		nopened = nmisses = 0;
		age_demotions();
		unprotected = 0; /* first: a fault on the way must find the pages closed */
		if (mpivet_bc_on)
			reprotect(dirty);
		dirty = 0;
		nmpi_pages = nunsure = all_open = all_unsure = 0;
		for (int i = 0; i < ndemoted; i++) /* now that the spans are final */
			if (demoted[i].prot == RW)
				open_page(demoted[i].page);
	}
	mpivet_bc_live = nspans > 0 || dirty || nopened > 0;
	unlock();
}

void mpivet_bc_leave(void)
{
	uint64_t t0 = tsc();
	leave();
	spend(t0);
}

/* record writes a buffer record: the access kind, the address, the
 * operation (log offset of its start, call, request), the other operation
 * of an overlap, and the access's call stack. */
static void record(int kind, uintptr_t addr, const struct region *r, uint64_t other, const uint64_t *pcs, int npcs)
{
	if (!mpivet_on)
		return;
	uint64_t off, words = 8 + npcs;
	uint64_t *w = mpivet_begin(words, &off);
	if (!w)
		return;
	w[0] = kind;
	w[1] = addr;
	w[2] = r->logref;
	w[3] = r->call;
	w[4] = r->req;
	w[5] = other;
	w[6] = r->initref;
	w[7] = npcs;
	for (int i = 0; i < npcs; i++)
		w[8 + i] = pcs[i];
	mpivet_commit(off, words, MPIVET_META_BUFFER, MPIVET_KIND_META);
}

/* check_overlap records a pending operation whose buffer the new region
 * overlaps, where one of the two receives. */
static void check_overlap(const struct region *n)
{
	for (int i = 0; i < nregions; i++) {
		const struct region *r = &regions[i];
		if (!r->active || (!r->recv && !n->recv) || r->hi <= n->lo || r->lo >= n->hi)
			continue;
		if (r->req == n->req && r->logref == n->logref)
			continue; /* the send and receive parts of one collective */
		/* walk the smaller map; give up (no report) on very large ones */
		const struct region *a = n, *b = r;
		if ((uint64_t)a->count * a->t->n > (uint64_t)b->count * b->t->n)
			a = r, b = n;
		if ((uint64_t)a->count * a->t->n > 65536)
			continue;
		for (int64_t e = 0; e < a->count; e++)
			for (int64_t j = 0; j < a->t->n; j++) {
				uintptr_t s = a->buf + e * a->t->extent + a->t->off[j];
				if (covers_range(b, s, s + a->t->len[j])) {
					uintptr_t lo = s > b->lo ? s : b->lo;
					record(OVERLAP, lo, n, r->logref, NULL, 0);
					goto next;
				}
			}
	next:;
	}
}

static struct region *new_region(void)
{
	if (nregions == capregions) {
		int cap = capregions ? 2 * capregions : 32;
		struct region *r = xrealloc(regions, cap * sizeof *r);
		if (!r)
			return NULL;
		regions = r, capregions = cap;
	}
	struct region *r = &regions[nregions++];
	memset(r, 0, sizeof *r);
	return r;
}

/* bounds sets [*lo, *hi) to the address bounds of the bytes count elements
 * of type t at buf cover. */
static void bounds(const struct flat *t, uint64_t buf, int64_t count, uintptr_t *lo, uintptr_t *hi)
{
	int64_t last = t->extent > 0 ? (count - 1) * t->extent : 0;
	*lo = buf + t->lo;
	*hi = buf + last + t->hi;
}

/* COLL marks, in add's recv argument, a buffer of a nonblocking collective. */
#define COLL 2

/* add registers a buffer of count elements of type at buf. */
static void add(unsigned call, int recv, uint64_t buf, int64_t count, uint64_t type, uint64_t req, uint64_t at,
		uint64_t logref, int persistent)
{
	int coll = recv & COLL;
	recv &= 1;
	if (count <= 0 || req == req_null)
		return;
	lock();
	struct flat *t = flat_of((MPI_Datatype)(uintptr_t)type);
	if (!t || !t->n) {
		drop_flat(t);
		unlock();
		return; /* a type it cannot map is not checked: no false alarms */
	}
	struct region *r = new_region();
	if (!r) {
		drop_flat(t);
		unlock();
		return;
	}
	r->req = req, r->at = at, r->logref = logref, r->initref = persistent ? logref : MPIVET_NOREC;
	r->call = call, r->recv = recv, r->persistent = persistent, r->active = !persistent;
	r->buf = buf, r->count = count, r->t = t;
	bounds(t, buf, count, &r->lo, &r->hi);
	int64_t bytes = count * t->size;
	int contiguous = t->n == 1 && (count == 1 || t->len[0] == t->extent);
	int peer_copied = bytes >= peer_copy_min && (contiguous || coll);
	r->peer_reads = peer_copied && (!recv || coll);
	r->lazy = lazy_host && bytes <= LAZY_BYTES && !(recv && peer_copied) && r->hi - r->lo <= LAZY_SPAN;
	r->peer_written = recv && peer_copied && peer_writes;
	r->watched = r->active && !r->peer_written && watch(mpivet_call_pc);
	if (r->active) {
		check_overlap(r);
		if (r->watched || r->peer_reads || r->peer_written)
			dirty = mpivet_bc_live = 1;
	}
	unlock();
}

static void remove_at(int i)
{
	drop_flat(regions[i].t);
	regions[i] = regions[--nregions];
	/* pages left open refer to regions by index */
	for (int k = 0; k < nopened; k++) {
		if (opened[k].region == i)
			opened[k] = opened[--nopened], k--;
		else if (opened[k].region == nregions)
			opened[k].region = i;
	}
}

/* find returns the index of a region of the operation with request h kept at
 * at (or, failing that, the oldest with request h), or -1. */
static int find(uint64_t h, uint64_t at, int active_only)
{
	int any = -1;
	for (int i = 0; i < nregions; i++) {
		if (regions[i].req != h || (active_only && !regions[i].active))
			continue;
		if (at && regions[i].at == at)
			return i;
		if (any < 0 || regions[i].logref < regions[any].logref)
			any = i;
	}
	return any;
}

/* finish ends the operation of request h (kept at at): a persistent one
 * becomes inactive, another one is forgotten. The caller holds the lock. */
static void finish(uint64_t h, uint64_t at, int persistent_done, int nulled)
{
	if (h == req_null)
		return;
	int i = find(h, at, 1);
	if (i >= 0 && ((regions[i].persistent && persistent_done) || (!regions[i].persistent && nulled))) {
		uint64_t ref = regions[i].logref;
		int changed = 0;
		for (int j = nregions - 1; j >= 0; j--)
			if (regions[j].req == h && regions[j].logref == ref && regions[j].active) {
				changed |= regions[j].watched || regions[j].peer_reads || regions[j].peer_written;
				if (regions[j].persistent)
					regions[j].active = 0;
				else
					remove_at(j);
			}
		if (changed)
			dirty = mpivet_bc_live = 1;
	}
}

/* finish_one is finish for a call that completes one request. */
static void finish_one(uint64_t h, uint64_t at, int persistent_done, int nulled)
{
	lock();
	finish(h, at, persistent_done, nulled);
	unlock();
}

/* forget drops every region of request h (MPI_Request_free). */
static void forget(uint64_t h, uint64_t at)
{
	lock();
	int i = find(h, at, 0);
	if (i >= 0) {
		uint64_t ref = regions[i].initref != MPIVET_NOREC ? regions[i].initref : regions[i].logref;
		int changed = 0;
		for (int j = nregions - 1; j >= 0; j--)
			if (regions[j].req == h &&
			    (regions[j].initref != MPIVET_NOREC ? regions[j].initref : regions[j].logref) == ref) {
				changed |= regions[j].active && (regions[j].watched || regions[j].peer_reads || regions[j].peer_written);
				remove_at(j);
			}
		if (changed)
			dirty = mpivet_bc_live = 1;
	}
	unlock();
}

/* start activates the persistent operation of request h; out is the handle
 * the MPI left (Open MPI may replace it). */
static void start(uint64_t h, uint64_t out, uint64_t logref)
{
	lock();
	int changed = 0;
	for (int j = 0; j < nregions; j++)
		if (regions[j].persistent && regions[j].req == h) {
			if (!regions[j].active) {
				regions[j].active = 1;
				regions[j].watched = !regions[j].peer_written && watch(mpivet_call_pc);
				changed |= regions[j].watched || regions[j].peer_reads || regions[j].peer_written;
				regions[j].logref = logref;
				regions[j].nseen = 0;
				check_overlap(&regions[j]);
			}
			if (out != h && out != req_null)
				regions[j].req = out;
		}
	if (changed)
		dirty = mpivet_bc_live = 1;
	unlock();
}

/* open_closed opens, for the call this thread is entering, the pages of
 * [lo, hi) that a lazy entry left closed against reads: the MPI copies a
 * small message out of its send buffer in the call that starts it, and
 * opening the page now costs one mprotect instead of a fault and one. */
static void open_closed(uintptr_t lo, uintptr_t hi)
{
	if (!unprotected || all_open)
		return;
	for (uintptr_t pg = lo & ~(pagesz - 1); pg < hi; pg += pagesz) {
		const struct span *sp = span_at(spans, nspans, pg);
		if (sp && !sp->eager && sp->prot == PROT_NONE && !listed(mpi_pages, nmpi_pages, pg)) {
			prot(pg, pagesz, RW, S_START);
			list_page(mpi_pages, &nmpi_pages, pg);
		}
	}
}

/* entering_send opens the closed pages of the send buffer of the call being
 * entered (count elements of type at buf). */
static void entering_send(uint64_t buf, int64_t count, uint64_t type)
{
	if (count <= 0 || !buf)
		return;
	lock();
	if (unprotected && !all_open) {
		struct flat *t = flat_of((MPI_Datatype)(uintptr_t)type);
		if (t && t->n) {
			uintptr_t lo, hi;
			bounds(t, buf, count, &lo, &hi);
			open_closed(lo, hi);
		}
		drop_flat(t);
	}
	unlock();
}

/* entering_start does the same for the persistent sends request h starts. */
static void entering_start(uint64_t h)
{
	lock();
	for (int j = 0; j < nregions && unprotected && !all_open; j++)
		if (regions[j].persistent && !regions[j].recv && regions[j].req == h)
			open_closed(regions[j].lo, regions[j].hi);
	unlock();
}

/* ---- Hooks from the generated wrappers ---- */

static TLS uint64_t args[48];
static TLS uint64_t *snap; /* request handles on entry */
static TLS int64_t nsnap, capsnap;

#define IN(call, f) args[MPIVET_IN_##call##_##f]
#define OUT(call, f) o[MPIVET_OUT_##call##_##f]

static void snapshot(int64_t n, const MPI_Request *r)
{
	nsnap = 0;
	if (n <= 0 || !r)
		return;
	if (n > capsnap) {
		uint64_t *s = xrealloc(snap, n * sizeof *s);
		if (!s)
			return;
		snap = s, capsnap = n;
	}
	for (int64_t i = 0; i < n; i++)
		snap[i] = MPIVET_H(r[i]);
	nsnap = n;
}

static void disable(void)
{
	lock();
	log_watched();
	open_spans(0);
	unprotected = 1;
	mpivet_bc_on = 0;
	nspans = 0;
	mpivet_bc_live = 0;
	unlock();
}

/* in keeps the arguments of the call being entered (for out) and opens the
 * pages the call will read that a lazy entry left closed. The arguments are
 * copied in a loop: memcpy's string move costs more on a few words. */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void in(unsigned call, const uint64_t *a, unsigned n)
{
	if (n > sizeof args / sizeof args[0])
		n = sizeof args / sizeof args[0];
	for (unsigned i = 0; i < n; i++)
		args[i] = a[i];
	switch (call) {
#define SNAP(c) \
	case MPIVET_ID_##c: \
		snapshot((int64_t)IN(c, array_of_requests), (const MPI_Request *)(uintptr_t)args[MPIVET_IN_##c##_array_of_requests + 1]); \
		break;
		SNAP(MPI_Waitany)
		SNAP(MPI_Testany)
		SNAP(MPI_Waitall)
		SNAP(MPI_Testall)
		SNAP(MPI_Waitsome)
		SNAP(MPI_Testsome)
		SNAP(MPI_Startall)
#undef SNAP
	case MPIVET_ID_MPI_Finalize:
	case MPIVET_ID_MPI_Abort:
		/* pending operations at MPI_Finalize are request-lifecycle's; the
		 * program's exit must not fault on them */
		disable();
		return;
	}
	if (!mpivet_bc_entered)
		return; /* nothing closed */
	switch (call) {
#define SEND(c) \
	case MPIVET_ID_##c: \
		entering_send(IN(c, buf), (int64_t)IN(c, count), IN(c, datatype)); \
		break;
		SEND(MPI_Isend)
		SEND(MPI_Ibsend)
		SEND(MPI_Issend)
		SEND(MPI_Irsend)
#undef SEND
	case MPIVET_ID_MPI_Start:
		entering_start(IN(MPI_Start, request));
		break;
	case MPIVET_ID_MPI_Startall:
		for (int64_t i = 0; i < nsnap; i++)
			entering_start(snap[i]);
		break;
	}
}

struct coll_op {
	unsigned call;
	uint64_t req, at, logref;
};

static void coll_block(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t)
{
	const struct coll_op *op = ctx;
	add(op->call, COLL | recv, buf, count, MPIVET_H(t), op->req, op->at, op->logref, 0);
}

/* coll registers the buffers of a nonblocking collective (collectives/
 * decode.c says which), started by the call at logref with request req
 * kept at at. */
static void coll(const struct mpivet_coll *c, uint64_t req, uint64_t at, uint64_t logref)
{
	int rank, size;
	if (!mpivet_coll_where(c, &rank, &size))
		return; /* intercommunicator roots and sizes: not mapped */
	struct coll_op op = {c->call, req, at, logref};
	mpivet_coll_blocks(c, rank, size, coll_block, &op);
}

/* complete_array ends the operations of a request array: a nonpersistent one
 * the MPI set to MPI_REQUEST_NULL, a persistent one if chosen(i). */
static void complete_array(const MPI_Request *after, uint64_t at, int64_t stride, int all, int64_t nidx, const int *idx,
			   int base, int one)
{
	lock();
	for (int64_t i = 0; after && i < nsnap; i++) {
		int chosen = all || i == one;
		for (int64_t k = 0; !chosen && idx && k < nidx; k++)
			chosen = idx[k] - base == i;
		finish(snap[i], at ? at + i * stride : 0, chosen, MPIVET_H(after[i]) == req_null);
	}
	unlock();
}

/* out registers the operations a call started and forgets those it
 * completed. */
static void out(unsigned call, uint64_t logref, int rc, const uint64_t *o)
{
	switch (call) {
	case MPIVET_ID_MPI_Type_free:
		if (rc == MPI_SUCCESS) {
			lock();
			type_freed(IN(MPI_Type_free, datatype));
			unlock();
		}
		return;
	case MPIVET_ID_MPI_Request_free:
		forget(IN(MPI_Request_free, request), IN(MPI_Request_free, request_at));
		return;
	}
	if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
		return;
	switch (call) {
#define P2P(c, recv, persistent) \
	case MPIVET_ID_##c: \
		add(call, recv, IN(c, buf), (int64_t)IN(c, count), IN(c, datatype), OUT(c, request), IN(c, request_at), logref, persistent); \
		break;
		P2P(MPI_Isend, 0, 0)
		P2P(MPI_Ibsend, 0, 0)
		P2P(MPI_Issend, 0, 0)
		P2P(MPI_Irsend, 0, 0)
		P2P(MPI_Irecv, 1, 0)
		P2P(MPI_Imrecv, 1, 0)
		P2P(MPI_Send_init, 0, 1)
		P2P(MPI_Bsend_init, 0, 1)
		P2P(MPI_Ssend_init, 0, 1)
		P2P(MPI_Rsend_init, 0, 1)
		P2P(MPI_Recv_init, 1, 1)
#undef P2P
	case MPIVET_ID_MPI_Start:
		start(IN(MPI_Start, request), OUT(MPI_Start, request_out), logref);
		break;
	case MPIVET_ID_MPI_Startall: {
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[MPIVET_OUT_MPI_Startall_array_of_requests_out + 1];
		for (int64_t i = 0; i < nsnap; i++)
			start(snap[i], after ? MPIVET_H(after[i]) : snap[i], logref);
		break;
	}
	case MPIVET_ID_MPI_Wait:
		finish_one(IN(MPI_Wait, request), IN(MPI_Wait, request_at), 1, OUT(MPI_Wait, request_out) == req_null);
		break;
	case MPIVET_ID_MPI_Test:
		if (OUT(MPI_Test, flag))
			finish_one(IN(MPI_Test, request), IN(MPI_Test, request_at), 1, OUT(MPI_Test, request_out) == req_null);
		break;
	case MPIVET_ID_MPI_Request_get_status:
		if (OUT(MPI_Request_get_status, flag)) {
			/* complete, though the request lives on: the buffer is free */
			finish_one(IN(MPI_Request_get_status, request), 0, 1, 1);
		}
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany: {
		int waitany = call == MPIVET_ID_MPI_Waitany;
		int flag = waitany ? 1 : (int)OUT(MPI_Testany, flag);
		int64_t index = (int64_t)(waitany ? OUT(MPI_Waitany, index) : OUT(MPI_Testany, index));
		uint64_t at = waitany ? IN(MPI_Waitany, array_of_requests_at) : IN(MPI_Testany, array_of_requests_at);
		int64_t stride = (int64_t)(waitany ? IN(MPI_Waitany, array_of_requests_stride) : IN(MPI_Testany, array_of_requests_stride));
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[(waitany ? MPIVET_OUT_MPI_Waitany_array_of_requests_out : MPIVET_OUT_MPI_Testany_array_of_requests_out) + 1];
		if (flag)
			complete_array(after, at, stride, 0, 0, NULL, 0, (int)index);
		break;
	}
	case MPIVET_ID_MPI_Waitall:
	case MPIVET_ID_MPI_Testall: {
		int waitall = call == MPIVET_ID_MPI_Waitall;
		if (!waitall && !OUT(MPI_Testall, flag))
			break;
		uint64_t at = waitall ? IN(MPI_Waitall, array_of_requests_at) : IN(MPI_Testall, array_of_requests_at);
		int64_t stride = (int64_t)(waitall ? IN(MPI_Waitall, array_of_requests_stride) : IN(MPI_Testall, array_of_requests_stride));
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[(waitall ? MPIVET_OUT_MPI_Waitall_array_of_requests_out : MPIVET_OUT_MPI_Testall_array_of_requests_out) + 1];
		complete_array(after, at, stride, 1, 0, NULL, 0, -1);
		break;
	}
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome: {
		int ws = call == MPIVET_ID_MPI_Waitsome;
		uint64_t at = ws ? IN(MPI_Waitsome, array_of_requests_at) : IN(MPI_Testsome, array_of_requests_at);
		int64_t stride = (int64_t)(ws ? IN(MPI_Waitsome, array_of_requests_stride) : IN(MPI_Testsome, array_of_requests_stride));
		int k = ws ? MPIVET_OUT_MPI_Waitsome_array_of_requests_out : MPIVET_OUT_MPI_Testsome_array_of_requests_out;
		int ki = ws ? MPIVET_OUT_MPI_Waitsome_array_of_indices : MPIVET_OUT_MPI_Testsome_array_of_indices;
		complete_array((const MPI_Request *)(uintptr_t)o[k + 1], at, stride, 0, (int64_t)o[ki],
			       (const int *)(uintptr_t)o[ki + 1], (int)o[ki + 2], -1);
		break;
	}
	default: {
		/* nonblocking collectives: the request, where the program keeps
		 * it, and their buffers */
		struct mpivet_coll c;
		int k = mpivet_call_o_request[call];
		if (k >= 0 && mpivet_coll_words(call, args, &c))
			coll(&c, o[k], args[mpivet_call_w_request_at[call]], logref);
	}
	}
}

/* The bookkeeping of every operation, watched or not, counts in the
 * checker's cost (see watching): in a loop of small exchanges it is a
 * large part of it. Timing every hook would cost a third of what it
 * measures, so one call in SAMPLE, chosen at random, is timed and counts
 * SAMPLE times. */
#define SAMPLE 16
static TLS uint32_t rng = 2463534242u;

static inline int sampled(void)
{
	rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5; /* xorshift */
	return (rng & (SAMPLE - 1)) == 0;
}

/* sample_start returns the time-stamp counter if this call is timed, or 0. */
static inline uint64_t sample_start(void)
{
	return sampled() ? tsc() : 0;
}

static inline void sample_stop(uint64_t t0)
{
	if (t0)
		add_spent(SAMPLE * since(t0));
}

void mpivet_bc_in(unsigned call, const uint64_t *a, unsigned n)
{
	uint64_t t0 = sample_start();
	in(call, a, n);
	sample_stop(t0);
}

void mpivet_bc_out(unsigned call, uint64_t logref, int rc, const uint64_t *o)
{
	uint64_t t0 = sample_start();
	out(call, logref, rc, o);
	sample_stop(t0);
}

/* ---- Faults ---- */

/* Code of the MPI library and its transports: an access from there is the
 * library's, never the program's. */
#define MAX_LIB 64
static struct {
	uintptr_t lo, hi;
} libs[MAX_LIB];
static int nlibs;

static int is_mpi_object(const char *name)
{
	static const char *const pats[] = {"libmpi", "libopen-", "libpmix", "libucp", "libucs", "libuct", "libucm",
					   "/ucx/", "mca_", "libfabric", "libhwloc", "libevent", "libmpich",
					   "libpsm", "libibverbs", "libxpmem", "libknem", "libhcoll", "mpivet", NULL};
	for (int i = 0; pats[i]; i++)
		if (strstr(name, pats[i]))
			return 1;
	return 0;
}

static int add_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (!info->dlpi_name || !is_mpi_object(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nlibs < MAX_LIB; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			libs[nlibs].lo = info->dlpi_addr + ph->p_vaddr;
			libs[nlibs].hi = libs[nlibs].lo + ph->p_memsz;
			nlibs++;
		}
	}
	return 0;
}

static int in_mpi_code(uintptr_t pc)
{
	for (int i = 0; i < nlibs; i++)
		if (pc >= libs[i].lo && pc < libs[i].hi)
			return 1;
	return 0;
}

static TLS uintptr_t stack_lo, stack_hi; /* this thread's stack, if known */
static TLS uintptr_t step_pages[8];
static TLS int nstep;
static TLS uintptr_t stale; /* a fault on a page no longer protected, retried once */

#define MAX_PCS 24

/* demote demotes page after a fault that missed every pending buffer
 * (see demoted[]); 1 if it did. */
static int demote(uintptr_t page, int write)
{
	if (mpivet_bc_precise)
		return 0;
	int d = demotion(page);
	if (d < 0) {
		if (ndemoted == MAX_DEMOTED)
			return 0;
		d = ndemoted++;
		demoted[d].page = page;
		demoted[d].prot = want_prot(page);
		unsigned n = strike(page);
		demoted[d].ttl = DEMOTED_WINDOWS << (n < MAX_STRIKES ? n : MAX_STRIKES);
	}
	demoted[d].prot = wider(demoted[d].prot, write ? RW : PROT_READ);
	prot(page, pagesz, demoted[d].prot, S_DEMOTE);
	list_page(unsure, &nunsure, page);
	if (demoted[d].prot == RW)
		open_page(page);
	dirty = 1;
	return 1;
}

/* access checks an access by the program to address a; 1 if it is to the
 * bytes of a pending buffer that the access type concerns. */
static int access_at(uintptr_t a, int write, uintptr_t pc)
{
	int hit = 0;
	for (int i = 0; i < nregions; i++) {
		struct region *r = &regions[i];
		if (!r->active || (!r->recv && !write) || !covers_range(r, a, a + 1))
			continue;
		hit = 1;
		if (write)
			r->hit_window = window_serial;
		if (!first_sighting(r, pc))
			continue;
		/* the call stack: handler frames first, then the faulting frame */
		void *frames[MAX_PCS + 8];
		int n = backtrace(frames, MAX_PCS + 8), first = -1;
		for (int k = 0; k < n; k++)
			if ((uintptr_t)frames[k] == pc) {
				first = k;
				break;
			}
		uint64_t pcs[MAX_PCS];
		int npcs = 0;
		pcs[npcs++] = pc;
		if (first >= 0)
			for (int k = first + 1; k < n && npcs < MAX_PCS; k++) {
				if (in_mpi_code((uintptr_t)frames[k]))
					return hit; /* called from within MPI (a callback, a user op) */
				pcs[npcs++] = (uintptr_t)frames[k];
			}
		record(r->recv ? (write ? WRITE_RECV : READ_RECV) : WRITE_SEND, a, r, 0, pcs, npcs);
	}
	return hit;
}

static int fault(void *sip, void *ucp)
{
#if defined(__x86_64__)
	siginfo_t *si = sip;
	ucontext_t *uc = ucp;
	if (!si || !uc || si->si_code != SEGV_ACCERR)
		return 0;
	uintptr_t a = (uintptr_t)si->si_addr, page = a & ~(pagesz - 1);
	uint64_t t0 = tsc();
	int locked = lock_in_handler();
	int ours = 0;
	for (int i = 0; i < nspans && !ours; i++)
		ours = page >= spans[i].lo && page < spans[i].hi;
	if (!ours) {
		if (locked)
			unlock();
		/* Another thread may have opened the page since the fault: let
		 * the instruction run again, once; a second fault is a crash. */
		if (stale == a)
			return stale = 0, 0;
		stale = a;
		stats[F_STALE]++;
		return 1;
	}
	stale = 0;
	if (mpivet_guard && unprotected) {
		/* this thread is in an MPI call that left the page closed: the
		 * MPI's own access; the page stays open until the call returns */
		stats[F_MPI]++;
		prot(page, pagesz, RW, S_MPI);
		list_page(mpi_pages, &nmpi_pages, page);
		if (all_unsure && !all_open)
			open_spans(0);
		if (locked)
			unlock();
		return 1;
	}
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
	int program = locked && !mpivet_guard && !in_mpi_code(pc) && mpivet_bc_on;
	if (program) {
		int hit = access_at(a, write, pc), step = may_step();
		/* not on the thread's stack: every frame touches those pages, from
		 * scattered instructions, and its buffers are small */
		int on_stack = a >= stack_lo && a < stack_hi;
		int loop = step && !on_stack && missed(page, pc) >= LOOP_MISSES;
		stats[F_LOOP] += loop;
		stats[F_HIT] += hit;
		if (!hit && (!step || loop) && demote(page, write)) {
			stats[F_DEMOTED]++;
			unlock();
			return 1;
		}
		if ((!step || loop) && nopened + nregions <= MAX_OPENED) {
			/* over the allowance, or a loop over a pending buffer whose
			 * access is recorded: leave the page open until the next MPI
			 * call */
			stats[F_OPENED]++;
			prot(page, pagesz, RW, S_OPEN);
			open_page(page);
			unlock();
			return 1;
		}
	}
	prot(page, pagesz, RW, S_STEP);
	stats[F_STEPPED]++;
	if (nstep == 0)
		step_t0 = t0, step_charged = program;
	if (nstep < 8)
		step_pages[nstep++] = page;
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* trap after this one instruction */
	if (locked)
		unlock();
	return 1;
#else
	(void)sip, (void)ucp;
	return 0;
#endif
}

static int bc_fault(void *sip, void *ucp)
{
	uint64_t t0 = tsc();
	int r = fault(sip, ucp);
	if (r)
		add_spent(signal_ns / 2);
	spend(t0);
	return r;
}

static struct sigaction old_trap;

static void on_trap(int sig, siginfo_t *si, void *ucp)
{
#if defined(__x86_64__)
	if (nstep > 0) {
		uint64_t t0 = tsc();
		ucontext_t *uc = ucp;
		int locked = lock_in_handler();
		for (int i = 0; i < nstep; i++)
			prot(step_pages[i], pagesz, want_prot(step_pages[i]), S_UNSTEP);
		nstep = 0;
		/* The layer's and the MPI's own accesses (a wrapper's frame on a
		 * stack page that holds a pending buffer) are stepped too, but a
		 * few per call: they would use up the allowance of a program that
		 * keeps buffers on its stack. */
		if (step_charged)
			stepped_ns += since(step_t0) + signal_ns;
		add_spent(signal_ns / 2);
		spend(t0);
		uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
		if (locked)
			unlock();
		return;
	}
#endif
	if ((old_trap.sa_flags & SA_SIGINFO) && old_trap.sa_sigaction) {
		old_trap.sa_sigaction(sig, si, ucp);
		return;
	}
	if (old_trap.sa_handler != SIG_DFL && old_trap.sa_handler != SIG_IGN) {
		old_trap.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static pthread_key_t exit_key;
static void thread_exit(void *);
static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* thread_exit forgets the pending operations whose buffers are on the stack
 * of a thread that ends (a bug of the program, but its exit must not fault:
 * glibc ends a thread with all signals blocked). */
static void thread_exit(void *unused)
{
	(void)unused;
	if (!mpivet_bc_on || !stack_hi)
		return;
	/* The buffers on the dying thread's stack go first: the exit path's
	 * own frames (this one too) overwrite them, which is no access of the
	 * program's to compare in the window that ends. */
	lock();
	for (int j = nregions - 1; j >= 0; j--)
		if (regions[j].hi > stack_lo && regions[j].lo < stack_hi) {
			if (regions[j].active && regions[j].watched)
				dirty = mpivet_bc_live = 1;
			remove_at(j);
		}
	unlock();
	mpivet_bc_enter(0);
	mpivet_bc_leave();
}

/* pthread_create runs part of its work with every signal blocked, and
 * writes the new thread's handle into the caller's variable then: a fault
 * there, on a page protected for a pending buffer (a receive into a
 * variable on the same stack page, in a hybrid code), would kill the rank
 * instead of reaching the handler. So the pages are open while it runs, as
 * in an MPI call. */
int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*f)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real) {
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
		if (!real)
			return EAGAIN;
	}
	if (!mpivet_bc_live)
		return real(t, attr, f, arg);
	int nested = mpivet_bc_entered; /* inside an MPI call: open until it returns */
	mpivet_bc_enter(0);
	int r = real(t, attr, f, arg);
	if (!nested)
		mpivet_bc_leave();
	return r;
}

/* bc_thread gives the calling thread an alternate signal stack: a
 * receive buffer on the stack protects the stack page the handler would
 * otherwise run on. */
static void bc_thread(void)
{
	if (!mpivet_bc_on)
		return;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_attr_t attr;
	if (getpid() != gettid() && pthread_getattr_np(pthread_self(), &attr) == 0) {
		void *addr;
		size_t size;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			stack_lo = (uintptr_t)addr, stack_hi = stack_lo + size;
			pthread_once(&once, make_exit_key);
			pthread_setspecific(exit_key, (void *)1);
		}
		pthread_attr_destroy(&attr);
	}
	stack_t old;
	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
		return; /* the program has its own */
	size_t size = 1 << 16;
	void *p = mmap(NULL, size, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0};
	sigaltstack(&ss, NULL);
}

/* calibrate measures what a stepped fault costs outside its handlers here,
 * where the MPI's threads now run (signal_ns). */
static volatile char *cal_page;
static uint64_t cal_t0, cal_in;
static void cal_segv(int sig, siginfo_t *si, void *ucp)
{
	(void)sig, (void)si;
	cal_t0 = now_ns();
	mprotect((void *)cal_page, pagesz, RW);
	((ucontext_t *)ucp)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}
static void cal_trap(int sig, siginfo_t *si, void *ucp)
{
	(void)sig, (void)si;
	mprotect((void *)cal_page, pagesz, PROT_NONE);
	((ucontext_t *)ucp)->uc_mcontext.gregs[REG_EFL] &= ~0x100;
	cal_in += now_ns() - cal_t0;
}

static void calibrate(void)
{
#if defined(__x86_64__)
	enum { N = 16 };
	cal_page = mmap(NULL, pagesz, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cal_page == MAP_FAILED)
		return;
	struct sigaction sa, old_segv, old_trap_;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = cal_segv;
	sigaction(SIGSEGV, &sa, &old_segv);
	sa.sa_sigaction = cal_trap;
	sigaction(SIGTRAP, &sa, &old_trap_);
	mprotect((void *)cal_page, pagesz, PROT_NONE);
	cal_in = 0;
	uint64_t t0 = now_ns();
	for (int i = 0; i < N; i++)
		cal_page[i] = (char)i;
	uint64_t t = now_ns() - t0;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap_, NULL);
	munmap((void *)cal_page, pagesz);
	if (t > cal_in)
		signal_ns = (t - cal_in) / N;
	/* the time-stamp counter's rate, over a millisecond */
	uint64_t c0 = tsc(), n0 = now_ns(), n1;
	while ((n1 = now_ns()) - n0 < 1000000)
		;
	tsc_per_ns = (double)(tsc() - c0) / (double)(n1 - n0);
#endif
}

/* single_host reports whether the launcher says every rank runs on this
 * host (see lazy_host); when it does not say, they may not.
 * MPIVET_BUFFERS_EAGER=1 opens every page in every call regardless. */
static int single_host(void)
{
	static const char *const pairs[][2] = {
		{"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE"}, /* Open MPI */
		{"MPI_LOCALNRANKS", "PMI_SIZE"},                         /* MPICH's Hydra */
	};
	const char *eager = getenv("MPIVET_BUFFERS_EAGER");
	if (eager && strcmp(eager, "1") == 0)
		return 0;
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		const char *local = getenv(pairs[i][0]), *all = getenv(pairs[i][1]);
		if (local && all && *local)
			return strcmp(local, all) == 0;
	}
	const char *nodes = getenv("SLURM_NNODES");
	return nodes && strcmp(nodes, "1") == 0;
}

/* cvar reads the MPI_T control variable name: its value as an integer, or,
 * for an enumeration, its item's name in item. Returns 0 if there is no such
 * variable (an MCA parameter exists only while its component is loaded). */
static int cvar(const char *name, long long *v, char *item, int itemsz)
{
	int idx, verb, bind, scope, count, nl = 0, dl = 0, ni;
	MPI_Datatype dt;
	MPI_T_enum et;
	MPI_T_cvar_handle h;
	if (PMPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
	    PMPI_T_cvar_get_info(idx, NULL, &nl, &verb, &dt, &et, NULL, &dl, &bind, &scope) != MPI_SUCCESS ||
	    bind != MPI_T_BIND_NO_OBJECT || PMPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
		return 0;
	int ok = count == 1;
	union { int i; unsigned u; long l; unsigned long ul; long long ll; unsigned long long ull; double d; char c[64]; } x;
	memset(&x, 0, sizeof x);
	if (ok)
		ok = PMPI_T_cvar_read(h, &x) == MPI_SUCCESS;
	PMPI_T_cvar_handle_free(&h);
	if (!ok)
		return 0;
	if (dt == MPI_INT)
		*v = x.i;
	else if (dt == MPI_UNSIGNED)
		*v = x.u;
	else if (dt == MPI_LONG)
		*v = x.l;
	else if (dt == MPI_UNSIGNED_LONG)
		*v = (long long)x.ul;
	else if (dt == MPI_LONG_LONG || dt == MPI_UNSIGNED_LONG_LONG)
		*v = x.ll;
	else
		return 0;
	int el = 0;
	if (item && et != MPI_T_ENUM_NULL && PMPI_T_enum_get_info(et, &ni, NULL, &el) == MPI_SUCCESS)
		for (int k = 0; k < ni; k++) {
			int val, il = itemsz;
			if (PMPI_T_enum_get_item(et, k, &val, item, &il) == MPI_SUCCESS && val == *v)
				return 1;
		}
	if (item)
		item[0] = 0;
	return 1;
}

/* min_size lowers *min to the smallest size in s ("8192", "16k", "auto",
 * "intra:8k,inter:32k"; UCX's units). */
static void min_size(const char *s, int64_t div, int64_t *min)
{
	while (s && *s) {
		if (*s < '0' || *s > '9') {
			s++;
			continue;
		}
		char *e;
		int64_t n = strtoll(s, &e, 10);
		switch (*e) {
		case 'k': case 'K': n <<= 10; break;
		case 'm': case 'M': n <<= 20; break;
		case 'g': case 'G': n <<= 30; break;
		}
		if (n / div < *min)
			*min = n / div;
		s = e;
	}
}

/* detect_peer_copies finds which messages the MPI's transports copy with a
 * peer's kernel (see peer_copy_min), once MPI is initialised. */
static void detect_peer_copies(void)
{
	int64_t min = INT64_MAX;
	int known = 0, prov;
	if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &prov) == MPI_SUCCESS) {
		/* Open MPI's vader BTL: messages above its eager limit (the limit
		 * includes the PML's header) go by single copy unless it has none. */
		long long mech, eager;
		char name[64];
		if (cvar("btl_vader_single_copy_mechanism", &mech, name, sizeof name)) {
			known = 1;
			if (strcmp(name, "none") != 0)
				min = cvar("btl_vader_eager_limit", &eager, NULL, 0) && eager > 64 ? eager - 64 : 0;
		}
		PMPI_T_finalize();
	}
	/* UCX (MPICH's ch4:ucx, Open MPI's pml ucx): the rendezvous protocol
	 * reads with cma, above UCX_RNDV_THRESH. Its "auto" value is computed
	 * from the transports' performance; measured here with UCX 1.13, it is
	 * the shared-memory transport's largest eager copy (8 KiB, from
	 * UCX_MM_SEG_SIZE: 8 KiB messages are copied, 8.6 KiB ones use cma).
	 * Half of that leaves a margin. */
	if (dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD)) {
		known = 1;
		int64_t u = 4096;
		min_size(getenv("UCX_RNDV_THRESH"), 1, &u);
		min_size(getenv("UCX_MM_SEG_SIZE"), 2, &u);
		if (u < min)
			min = u;
		const char *scheme = getenv("UCX_RNDV_SCHEME");
		peer_writes = scheme && strstr(scheme, "put");
	}
	/* XPMEM maps the sender's pages into the receiver: its thresholds are
	 * the MPI's (MPICH's CVARs when built with it); not known here. */
	if (dlopen("libxpmem.so.0", RTLD_LAZY | RTLD_NOLOAD))
		known = 0;
	peer_copy_min = known ? min : 0;
}

/* bc_init runs when the layer loads and again after MPI_Init (when
 * the MPI's transports are loaded). */
static void bc_init(void)
{
#if !defined(__x86_64__)
	mpivet_bc_on = 0;
#endif
	if (!mpivet_bc_on)
		return;
	static int once;
	if (!once) {
		once = 1;
		pagesz = (uintptr_t)sysconf(_SC_PAGESIZE);
		t_start = now_ns();
		void *f[2];
		backtrace(f, 2); /* loads the unwinder now, not in a signal handler */
		bc_thread();
	}
	/* In front of whatever handles SIGTRAP now (gfortran's runtime installs
	 * a handler at start-up, after the layer loaded). */
	struct sigaction sa, cur;
	if (sigaction(SIGTRAP, NULL, &cur) == 0 && !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_trap)) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_trap;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		old_trap = cur;
		sigaction(SIGTRAP, &sa, NULL);
	}
	req_null = MPIVET_H(MPI_REQUEST_NULL);
	lock();
	nlibs = 0;
	dl_iterate_phdr(add_lib, NULL);
	lazy_host = single_host();
	unlock();
	const char *st = getenv("MPIVET_BUFFERS_STATS");
	static int registered;
	if (st && strcmp(st, "1") == 0 && !registered++)
		atexit(print_stats);
	if (mpivet_inited) {
		detect_peer_copies();
		choose_lock();
		calibrate(); /* MPI is initialised: its threads run */
	}
}

/* ---- Set-up, through the recorder ---- */

/* bc_opened runs when the log is open: the checker is on unless the run
 * turned it off. */
static void bc_opened(void)
{
	const char *how = mpivet_conf(MPIVET_CONF_BUFFERS); /* off, precise */
	mpivet_bc_on = !(how && strncmp(how, "off", 3) == 0);
	if (how && strncmp(how, "precise", 7) == 0)
		mpivet_bc_precise = 1;
	bc_init();
}

static void bc_initialized(int rank)
{
	(void)rank;
	bc_init();
}

static const struct mpivet_service service = {
	.log_opened = bc_opened, .initialized = bc_initialized, .thread = bc_thread, .fault = bc_fault,
};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void bc_register(void) { mpivet_register(&service); }
