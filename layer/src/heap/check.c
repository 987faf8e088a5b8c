/*
 * heap/check.c: the buffers of an MPI call against the heap blocks that
 * hold them (heap.h), before the MPI sees the call.
 *
 * A buffer is checked when its address (not MPI_IN_PLACE, with a positive
 * count) lies in a heap block: the bytes count elements of its datatype
 * cover, from the true lower bound of the first to the true upper bound of
 * the last ((count-1) x extent + true extent, as the argument checks'
 * overlap rule measures them), must lie in that block. When they do not
 * and the datatype leaves gaps in that span (a struct built from the
 * addresses of separate blocks, a vector striding over allocations), the
 * footprint is the union of the type's runs (runs.c), each checked against
 * the block its first byte lies in; a buffer of MPI_BOTTOM (addresses as
 * displacements) is checked so always. A collective's buffers are checked
 * block by block where the collective gives each rank its own
 * (collectives/decode.c: counts and displacements of the v and w
 * variants): each must lie in the block the side's address starts in. An
 * address in a recently freed block (the quarantine) is a finding of its
 * own. An address outside the heap (stack, globals, mmap, memory the MPI
 * allocated for a window) is not looked into.
 *
 * Cost: one hash probe per buffer when it starts a block; a buffer not in
 * the heap costs a few counters (alloc.c). The runs are walked only for a
 * span that leaves its block, and for MPI_BOTTOM: at most MPIVET_RUNS runs
 * per element and MAX_CHECKS probes per buffer (past them, the first
 * elements and the last). Each finding is logged once per call site,
 * parameter and kind.
 */
#define _GNU_SOURCE
#include "heap.h"
#include "../record/record.h"
#include "../generated/ids.h"
#include "../collectives/decode.h"

#include <link.h>
#include <string.h>

/* What was logged (0: free): findings, and apart from them the buffers in
 * globals, which are logged whether right or wrong (the analysis judges
 * them) and must not use up the findings' room. */
#define NSEEN 1024
static uint64_t seen[2][NSEEN];
static int seen_lk;

static int first_time(int globals, uint64_t key)
{
	key |= 1;
	int fresh = 0;
	uint64_t *set = seen[globals];
	while (__atomic_exchange_n(&seen_lk, 1, __ATOMIC_ACQUIRE))
		;
	for (unsigned i = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 54), n = 0; n < NSEEN; i = (i + 1) % NSEEN, n++) {
		if (set[i] == key)
			break;
		if (!set[i]) {
			set[i] = key, fresh = 1;
			break;
		}
	}
	__atomic_store_n(&seen_lk, 0, __ATOMIC_RELEASE);
	return fresh;
}

void mpivet_heap_report(int kind, unsigned call, int param, uint64_t site, uint64_t buf, uint64_t lo, uint64_t hi,
			const struct mpivet_block *b, uint64_t other)
{
	if (!first_time(kind == MPIVET_HEAP_GLOBAL, site * 31 + (uint64_t)(param + 1) * 8 + (uint64_t)kind + other * 0x9E3779B97F4A7C15ull))
		return;
	uint64_t w[12] = {(uint64_t)kind, call, (uint64_t)(int64_t)param, site, buf, lo, hi,
			  b->start, b->size, b->pc, b->free_pc, other};
	mpivet_meta(MPIVET_META_HEAP, w, 12);
}

/* span gives the bytes n elements of t at buf cover: [lo, hi). */
static int span(uint64_t buf, int64_t n, MPI_Datatype t, uint64_t *lo, uint64_t *hi)
{
	MPI_Aint lb, extent, tlb, textent;
	if (n <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS || textent <= 0)
		return 0;
	*lo = buf + (uint64_t)tlb;
	*hi = *lo + (uint64_t)((n - 1) * extent + textent);
	if (extent < 0) /* a negative extent lays the elements downwards */
		*lo += (uint64_t)((n - 1) * extent), *hi = buf + (uint64_t)(tlb + textent);
	return 1;
}

/* ---- Globals ----
 * A buffer in a writable segment of the executable or a library (its
 * globals) is logged once per call site, parameter and extent (the bounded
 * set of first_time): the analysis compares it with the ELF symbols,
 * which the rank does not read. The segments are listed once, at the first
 * buffer outside the heap. */
#define MAX_SEGS 64
static struct {
	uint64_t lo, hi;
} segs[MAX_SEGS];
static int nsegs = -1;

static int add_segs(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	for (int i = 0; i < info->dlpi_phnum && nsegs < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz > 0) {
			segs[nsegs].lo = info->dlpi_addr + ph->p_vaddr;
			segs[nsegs].hi = segs[nsegs].lo + ph->p_memsz;
			nsegs++;
		}
	}
	return 0;
}

static int in_data(uint64_t a)
{
	if (__atomic_load_n(&nsegs, __ATOMIC_ACQUIRE) < 0) {
		static int lk;
		while (__atomic_exchange_n(&lk, 1, __ATOMIC_ACQUIRE))
			;
		if (nsegs < 0) {
			nsegs = 0;
			dl_iterate_phdr(add_segs, NULL);
		}
		__atomic_store_n(&lk, 0, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < nsegs; i++)
		if (a >= segs[i].lo && a < segs[i].hi)
			return 1;
	return 0;
}

enum { HEAP_DATA = HEAP_FREED + 1, HEAP_BOTTOM };

/* One side of a call: its address and the block it starts in
 * (HEAP_BOTTOM: MPI_BOTTOM, the datatype's displacements are addresses). */
struct side {
	unsigned call;
	int param, state;
	uint64_t base;
	struct mpivet_block b;
};

static void side_at(struct side *s, unsigned call, int param, uint64_t base)
{
	s->call = call, s->param = param, s->base = base;
	if (!base) {
		s->state = HEAP_BOTTOM;
		return;
	}
	s->state = !mpivet_coll_in_place(base) ? mpivet_heap_find(base, &s->b) : HEAP_NONE;
	if (s->state == HEAP_NONE && !mpivet_coll_in_place(base) && in_data(base)) {
		s->state = HEAP_DATA;
		memset(&s->b, 0, sizeof s->b);
	}
}

/* range checks the bytes [lo, hi) of side s, which starts at base. */
static void range(struct side *s, uint64_t base, uint64_t lo, uint64_t hi)
{
	if (s->state == HEAP_DATA) /* once per site, parameter and extent */
		mpivet_heap_report(MPIVET_HEAP_GLOBAL, s->call, s->param, mpivet_call_pc, base, lo, hi, &s->b,
				   lo * 31 + hi);
	else if (s->state == HEAP_FREED)
		mpivet_heap_report(MPIVET_HEAP_FREED, s->call, s->param, mpivet_call_pc, base, lo, hi, &s->b, 0);
	else if (s->state == HEAP_LIVE && (lo < s->b.start || hi > s->b.start + s->b.size))
		mpivet_heap_report(MPIVET_HEAP_OVERRUN, s->call, s->param, mpivet_call_pc, base, lo, hi, &s->b, 0);
}

/* gaps tells whether n elements of t leave bytes of their span [lo, hi)
 * untouched: then the span is not the footprint. */
static int gaps(int64_t n, MPI_Datatype t, uint64_t lo, uint64_t hi)
{
	MPI_Count size = 0;
	return PMPI_Type_size_x(t, &size) == MPI_SUCCESS && (uint64_t)n * (uint64_t)size < hi - lo;
}

/* Runs checked per buffer at most: past it, the first elements and the
 * last one. */
#define MAX_CHECKS 4096

/* by_runs checks n elements of t at buf run by run (runs.c), each run
 * against the block its first byte lies in, as a side of its own; the
 * gaps between runs are not accessed. A type that cannot be mapped (a
 * darray) is checked by its span [lo, hi). */
static void by_runs(struct side *s, uint64_t buf, int64_t n, MPI_Datatype t, uint64_t lo, uint64_t hi)
{
	struct mpivet_runs r;
	MPI_Aint lb, extent;
	if (!mpivet_heap_runs(t, &r) || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS) {
		range(s, s->base, lo, hi);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		if (i > 0 && i < n - 1 && (i + 1) * r.n > MAX_CHECKS)
			i = n - 1; /* past the budget: the last element only */
		for (int k = 0; k < r.n; k++) {
			uint64_t a = buf + (uint64_t)(i * extent + r.off[k]);
			struct side one;
			side_at(&one, s->call, s->param, a);
			if (one.state != HEAP_BOTTOM)
				range(&one, a, a, a + (uint64_t)r.len[k]);
		}
	}
}

/* piece checks n elements of t at buf, a piece of side s: by its span
 * when that lies in the block or the type has no gaps, else run by run. */
static void piece(struct side *s, uint64_t buf, int64_t n, MPI_Datatype t)
{
	uint64_t lo, hi;
	if (s->state == HEAP_NONE || !span(buf, n, t, &lo, &hi))
		return;
	if (s->state == HEAP_BOTTOM && lo < 65536)
		return; /* a null buffer (a root's only argument, or an error): no heap there */
	if (s->state == HEAP_BOTTOM ||
	    (s->state == HEAP_LIVE && (lo < s->b.start || hi > s->b.start + s->b.size) && gaps(n, t, lo, hi)))
		by_runs(s, buf, n, t, lo, hi);
	else
		range(s, s->base, lo, hi);
}

static void one(unsigned call, int kb, int kn, int kt, void *const *k)
{
	if (kb < 0 || kn < 0 || kt < 0)
		return;
	struct side s;
	int n = *(const int *)k[kn];
	if (n <= 0)
		return;
	side_at(&s, call, kb, MPIVET_A(*(void *const *)k[kb]));
	piece(&s, s.base, n, *(const MPI_Datatype *)k[kt]);
}

struct coll_sides {
	struct side s[2]; /* send, receive */
};

static void coll_block(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t)
{
	struct coll_sides *c = ctx;
	piece(&c->s[recv ? 1 : 0], buf, count, t);
}

static void coll(unsigned call, void *const *k)
{
	struct mpivet_coll d;
	int rank, size;
	if (!mpivet_coll_params(call, k, &d) || d.family == MPIVET_COLL_NONE || !mpivet_coll_where(&d, &rank, &size))
		return;
	if (d.root >= size)
		return;
	int sb = mpivet_call_k_sendbuf[call], rb = mpivet_call_k_recvbuf[call];
	if (sb < 0)
		sb = mpivet_call_k_buf[call];
	if (rb < 0)
		rb = sb;
	struct coll_sides c;
	side_at(&c.s[0], call, sb, d.send.buf);
	side_at(&c.s[1], call, rb, d.recv.buf);
	if (d.send.in_place)
		c.s[0].state = HEAP_NONE;
	if (d.recv.in_place)
		c.s[1].state = HEAP_NONE;
	if (c.s[0].state == HEAP_NONE && c.s[1].state == HEAP_NONE)
		return;
	mpivet_coll_blocks(&d, rank, size, coll_block, &c);
}

void mpivet_heap_pre(unsigned call, void *const *k)
{
	if (!mpivet_heap_on)
		return;
	if (mpivet_call_flags[call] & MPIVET_CALL_COLL) {
		coll(call, k);
		return;
	}
	one(call, mpivet_call_k_buf[call], mpivet_call_k_count[call], mpivet_call_k_type[call], k);
	one(call, mpivet_call_k_sbuf[call], mpivet_call_k_scount[call], mpivet_call_k_stype[call], k);
	one(call, mpivet_call_k_rbuf[call], mpivet_call_k_rcount[call], mpivet_call_k_rtype[call], k);
}

void mpivet_heap_buf(unsigned call, int param, const void *buf, int64_t count, MPI_Datatype t)
{
	if (!mpivet_heap_on || count <= 0)
		return;
	struct side s;
	side_at(&s, call, param, MPIVET_A(buf));
	piece(&s, s.base, count, t);
}
