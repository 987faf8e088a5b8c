/*
 * heap/alloc.c: the allocator interposed, and the table of live blocks
 * (heap.h says what for).
 *
 * The real allocator is the next one in the lookup order (dlsym RTLD_NEXT:
 * glibc's, or a jemalloc or tcmalloc the program links). dlsym itself may
 * call calloc before it returns: those early blocks come from a small
 * static arena and are never given back.
 *
 * Cost: every allocation and free takes a spin lock and one probe of an
 * open-addressing hash of block starts (backward-shift deletion, no
 * tombstones), all in memory the table maps itself (never the heap it
 * describes). Finding the block that holds an interior address is done only
 * when an MPI call asks: blocks of at most SMALL bytes are found by probing
 * the starts below the address, and only in pages where such a block starts
 * (a counter per page, hashed); larger blocks are kept apart and searched in
 * a sorted copy, rebuilt when one was made or freed since the last search.
 * A freed block of at most QMAX bytes stays in a quarantine of the last
 * QN frees (a send from freed memory), unless it is live again.
 *
 * fork: the lock is taken around it (pthread_atfork), so a child never
 * inherits it held.
 */
#define _GNU_SOURCE
#include "heap.h"
#include "../record/record.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SMALL 4096u
#define QMAX 65536u
#define QN 256
#define NPAGES (1u << 20)
#define NQPAGES (1u << 16)

int mpivet_heap_on = 1;
int (*mpivet_heap_pending)(uint64_t, uint64_t, uint64_t *, unsigned *);
int (*mpivet_heap_window)(uint64_t, uint64_t, uint64_t *, unsigned *);
int mpivet_heap_windows;

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

/* ---- Before the real allocator is known ---- */

static _Alignas(64) char boot[1 << 16];
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 63) & ~(size_t)63, __ATOMIC_RELAXED);
	if (at + n > sizeof boot)
		return NULL;
	return boot + at; /* zeroed: static */
}

static int in_boot(const void *p) { return (const char *)p >= boot && (const char *)p < boot + sizeof boot; }

/* ---- The table ---- */

struct ent {
	uint64_t start, size, pc;
};
struct table {
	struct ent *e;
	uint64_t cap, n; /* cap: a power of two, or 0 */
};
static struct table live, large; /* every block; the blocks over SMALL bytes again */
static uint32_t *pages;           /* live blocks of at most SMALL bytes starting in each page (hashed) */
static uint16_t *qpages;          /* quarantined blocks over each page (hashed) */
static struct {
	uint64_t start, size, pc, free_pc;
} quarantine[QN];
static unsigned qnext;
static uint64_t large_gen, sorted_gen = ~0ull;
static struct ent *sorted;
static uint64_t nsorted, capsorted;
static int lk;

static void lock(void)
{
	while (__atomic_exchange_n(&lk, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lk, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static void unlock(void) { __atomic_store_n(&lk, 0, __ATOMIC_RELEASE); }

static void *map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static uint64_t slot(const struct table *t, uint64_t start)
{
	return ((start >> 4) * 0x9E3779B97F4A7C15ull) >> 17 & (t->cap - 1);
}

static void put(struct table *t, uint64_t start, uint64_t size, uint64_t pc);

static int grow(struct table *t)
{
	struct table old = *t;
	uint64_t cap = old.cap ? 2 * old.cap : 4096;
	struct ent *e = map(cap * sizeof *e);
	if (!e)
		return 0;
	t->e = e, t->cap = cap, t->n = 0;
	for (uint64_t i = 0; i < old.cap; i++)
		if (old.e[i].start)
			put(t, old.e[i].start, old.e[i].size, old.e[i].pc);
	if (old.e)
		munmap(old.e, old.cap * sizeof *old.e);
	return 1;
}

static void put(struct table *t, uint64_t start, uint64_t size, uint64_t pc)
{
	if (2 * (t->n + 1) > t->cap && !grow(t))
		return;
	uint64_t i = slot(t, start);
	while (t->e[i].start && t->e[i].start != start)
		i = (i + 1) & (t->cap - 1);
	if (!t->e[i].start)
		t->n++;
	t->e[i] = (struct ent){start, size, pc};
}

static struct ent *get(const struct table *t, uint64_t start)
{
	if (!t->cap)
		return NULL;
	for (uint64_t i = slot(t, start);; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].start == start)
			return &t->e[i];
		if (!t->e[i].start)
			return NULL;
	}
}

/* del removes e (backward-shift deletion: the entries after it that probed
 * past it move back, so no probe sequence is broken). */
static void del(struct table *t, struct ent *e)
{
	uint64_t i = (uint64_t)(e - t->e), m = t->cap - 1;
	for (uint64_t j = (i + 1) & m; t->e[j].start; j = (j + 1) & m) {
		uint64_t h = slot(t, t->e[j].start);
		if (((j - h) & m) >= ((j - i) & m)) {
			t->e[i] = t->e[j];
			i = j;
		}
	}
	t->e[i].start = 0;
	t->n--;
}

static uint32_t *page_count(uint64_t a) { return &pages[(a >> 12) & (NPAGES - 1)]; }

static void qpages_add(uint64_t start, uint64_t size, int d)
{
	for (uint64_t p = start >> 12; p <= (start + size - 1) >> 12; p++)
		qpages[p & (NQPAGES - 1)] += (uint16_t)d;
}

/* ---- Made and freed ---- */

static void made(void *p, size_t size, uint64_t pc)
{
	if (!p || !pages)
		return;
	uint64_t a = (uint64_t)p;
	lock();
	put(&live, a, size, pc);
	if (size > SMALL) {
		put(&large, a, size, pc);
		large_gen++;
	} else
		++*page_count(a);
	unlock();
}

static void enter_quarantine(const struct ent *e, uint64_t free_pc)
{
	if (e->size == 0 || e->size > QMAX)
		return;
	unsigned q = qnext++ % QN;
	if (quarantine[q].size)
		qpages_add(quarantine[q].start, quarantine[q].size, -1);
	quarantine[q].start = e->start, quarantine[q].size = e->size;
	quarantine[q].pc = e->pc, quarantine[q].free_pc = free_pc;
	qpages_add(e->start, e->size, 1);
}

/* unmade forgets block p; it gives the block in *b (1) if it was one. */
static int unmade(void *p, uint64_t free_pc, struct ent *b)
{
	if (!p || !pages)
		return 0;
	uint64_t a = (uint64_t)p;
	lock();
	struct ent *e = get(&live, a);
	if (e) {
		*b = *e;
		del(&live, e);
		if (b->size > SMALL) {
			struct ent *l = get(&large, a);
			if (l)
				del(&large, l);
			large_gen++;
		} else
			--*page_count(a);
		if (free_pc && !mpivet_guard) /* the program's own frees, not the MPI's nor the layer's */
			enter_quarantine(b, free_pc);
	}
	unlock();
	return e != NULL;
}

/* free_pending reports a free of the bytes [lo, hi) of block e (all of it,
 * or the tail a realloc gives back) that hold a pending buffer or the
 * memory of a window (param: -1 from free, -2 from realloc). Without a
 * window, the second costs one load. */
static void free_pending(const struct ent *e, uint64_t lo, uint64_t hi, uint64_t free_pc, int param)
{
	uint64_t logref = 0;
	unsigned call = 0;
	if (!mpivet_heap_on || mpivet_guard || lo >= hi)
		return;
	struct mpivet_block b = {e->start, e->size, e->pc, free_pc};
	if (mpivet_heap_pending && mpivet_heap_pending(lo, hi, &logref, &call))
		mpivet_heap_report(MPIVET_HEAP_FREE_PENDING, call, param, free_pc, e->start, lo, hi, &b, logref);
	if (__atomic_load_n(&mpivet_heap_windows, __ATOMIC_RELAXED) && mpivet_heap_window &&
	    mpivet_heap_window(lo, hi, &logref, &call))
		mpivet_heap_report(MPIVET_HEAP_FREE_WINDOW, call, param, free_pc, e->start, lo, hi, &b, logref);
}

/* ---- Finding the block of an address ---- */

/* sort_starts sorts by start, in place: qsort may call malloc, and the
 * lock is held (a heap sort: no memory, n log n). */
static void sift(struct ent *e, uint64_t i, uint64_t n)
{
	for (uint64_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && e[c + 1].start > e[c].start)
			c++;
		if (e[i].start >= e[c].start)
			return;
		struct ent t = e[i];
		e[i] = e[c], e[c] = t;
	}
}

static void sort_starts(struct ent *e, uint64_t n)
{
	for (uint64_t i = n / 2; i-- > 0;)
		sift(e, i, n);
	for (uint64_t m = n; m-- > 1;) {
		struct ent t = e[0];
		e[0] = e[m], e[m] = t;
		sift(e, 0, m);
	}
}

/* find_large searches the blocks over SMALL bytes (lock held). */
static const struct ent *find_large(uint64_t a)
{
	if (sorted_gen != large_gen) {
		if (large.n > capsorted) {
			if (sorted)
				munmap(sorted, capsorted * sizeof *sorted);
			capsorted = 2 * large.n;
			sorted = map(capsorted * sizeof *sorted);
			if (!sorted)
				capsorted = 0;
		}
		nsorted = 0;
		for (uint64_t i = 0; sorted && i < large.cap; i++)
			if (large.e[i].start)
				sorted[nsorted++] = large.e[i];
		sort_starts(sorted, nsorted);
		sorted_gen = large_gen;
	}
	uint64_t lo = 0, hi = nsorted; /* the first block starting above a */
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		if (sorted[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && a < sorted[lo - 1].start + sorted[lo - 1].size)
		return &sorted[lo - 1];
	return NULL;
}

/* find_live gives the live block holding a (lock held). Blocks are 16-byte
 * aligned or more (glibc's on x86-64; memalign's more): a small block
 * holding a starts at most SMALL bytes below it, in its page or the one
 * before. The first start found below a ends the search: blocks do not
 * overlap. */
static const struct ent *find_live(uint64_t a)
{
	const struct ent *e = get(&live, a);
	if (e)
		return e;
	if (*page_count(a) || *page_count(a - 4096)) {
		for (uint64_t s = (a & ~15ull); s + SMALL > a && s > 16; s -= 16)
			if ((e = get(&live, s)) != NULL)
				return a < s + e->size ? e : NULL;
	}
	return find_large(a);
}

/* find_freed searches the quarantine, the latest free first: memory freed
 * twice (given out again in between) was last freed by it. */
static int find_freed(uint64_t a, struct mpivet_block *b)
{
	if (!qpages[(a >> 12) & (NQPAGES - 1)])
		return 0;
	for (unsigned n = 0, i = (qnext - 1) % QN; n < QN; n++, i = (i + QN - 1) % QN)
		if (quarantine[i].size && a >= quarantine[i].start && a < quarantine[i].start + quarantine[i].size) {
			*b = (struct mpivet_block){quarantine[i].start, quarantine[i].size, quarantine[i].pc, quarantine[i].free_pc};
			return 1;
		}
	return 0;
}

int mpivet_heap_find(uint64_t a, struct mpivet_block *b)
{
	if (!pages || !a)
		return HEAP_NONE;
	int r = HEAP_NONE;
	lock();
	const struct ent *e = find_live(a);
	if (e) {
		*b = (struct mpivet_block){e->start, e->size, e->pc, 0};
		r = HEAP_LIVE;
	} else if (find_freed(a, b))
		r = HEAP_FREED;
	unlock();
	return r;
}

/* ---- The interposed calls ---- */

static void fork_prepare(void) { lock(); }
static void fork_after(void) { unlock(); }

static void resolve(void)
{
	if (__atomic_load_n(&real_free, __ATOMIC_ACQUIRE))
		return;
	resolving = 1;
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	pages = map(NPAGES * sizeof *pages);
	qpages = map(NQPAGES * sizeof *qpages);
	__atomic_store_n(&real_free, (void (*)(void *))dlsym(RTLD_NEXT, "free"), __ATOMIC_RELEASE);
	resolving = 0;
	pthread_atfork(fork_prepare, fork_after, fork_after);
}

#define PC() ((uint64_t)__builtin_extract_return_addr(__builtin_return_address(0)))

void *malloc(size_t n)
{
	resolve();
	if (resolving || !real_malloc)
		return boot_alloc(n);
	void *p = real_malloc(n);
	made(p, n, PC());
	return p;
}

void *calloc(size_t n, size_t m)
{
	resolve();
	if (resolving || !real_calloc)
		return boot_alloc(n * m);
	void *p = real_calloc(n, m);
	made(p, n * m, PC());
	return p;
}

void free(void *p)
{
	if (!p || in_boot(p))
		return;
	resolve();
	struct ent e;
	uint64_t pc = PC();
	if (unmade(p, pc, &e))
		free_pending(&e, e.start, e.start + e.size, pc, -1);
	if (real_free)
		real_free(p);
}

static void *realloc_at(void *p, size_t n, uint64_t pc)
{
	resolve();
	if (in_boot(p)) {
		void *q = malloc(n);
		if (q)
			memcpy(q, p, n < (size_t)(boot + sizeof boot - (char *)p) ? n : (size_t)(boot + sizeof boot - (char *)p));
		return q;
	}
	if (resolving || !real_realloc)
		return NULL;
	struct ent e = {0, 0, 0};
	int known = unmade(p, 0, &e);
	void *q = real_realloc(p, n);
	if (q && known) /* moved: all of p given back; shrunk in place: its tail */
		free_pending(&e, q == p ? e.start + n : e.start, e.start + e.size, pc, -2);
	if (q)
		made(q, n, pc);
	else if (known && n) /* it failed: p stays */
		made(p, e.size, e.pc);
	return q;
}

void *realloc(void *p, size_t n) { return realloc_at(p, n, PC()); }

void *reallocarray(void *p, size_t n, size_t m)
{
	if (m && n > (size_t)-1 / m) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_at(p, n * m, PC());
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	if (!real_posix_memalign)
		return ENOMEM;
	int rc = real_posix_memalign(out, align, n);
	if (rc == 0)
		made(*out, n, PC());
	return rc;
}

static void *aligned(size_t align, size_t n, uint64_t pc)
{
	resolve();
	if (!real_memalign)
		return NULL;
	void *p = real_memalign(align, n);
	made(p, n, pc);
	return p;
}

void *memalign(size_t align, size_t n) { return aligned(align, n, PC()); }
void *aligned_alloc(size_t align, size_t n) { return aligned(align, n, PC()); }
void *valloc(size_t n) { return aligned(4096, n, PC()); }
void *pvalloc(size_t n) { return aligned(4096, (n + 4095) & ~(size_t)4095, PC()); }
