/*
 * heap/check.c: the buffers of an MPI call against the heap blocks that
 * hold them (heap.h), before the MPI sees the call.
 *
 * A buffer is checked when its address (not MPI_BOTTOM, not MPI_IN_PLACE,
 * with a positive count) lies in a heap block: the bytes count elements of
 * its datatype cover, from the true lower bound of the first to the true
 * upper bound of the last ((count-1) x extent + true extent, as the
 * argument checks' overlap rule measures them), must lie in that block. A
 * collective's buffers are checked block by block where the collective
 * gives each rank its own (collectives/decode.c: counts and displacements
 * of the v and w variants): each must lie in the block the side's address
 * starts in. An address in a recently freed block (the quarantine) is a
 * finding of its own. An address outside the heap (stack, globals, mmap,
 * memory the MPI allocated for a window) is not looked into.
 *
 * Cost: one hash probe per buffer when it starts a block; a buffer not in
 * the heap costs a few counters (alloc.c). Each finding is logged once per
 * call site, parameter and kind.
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

enum { HEAP_DATA = HEAP_FREED + 1 };

/* One side of a call: its address and the block it starts in. */
struct side {
	unsigned call;
	int param, state;
	uint64_t base;
	struct mpivet_block b;
};

static void side_at(struct side *s, unsigned call, int param, uint64_t base)
{
	s->call = call, s->param = param, s->base = base;
	s->state = base && !mpivet_coll_in_place(base) ? mpivet_heap_find(base, &s->b) : HEAP_NONE;
	if (s->state == HEAP_NONE && base && !mpivet_coll_in_place(base) && in_data(base)) {
		s->state = HEAP_DATA;
		memset(&s->b, 0, sizeof s->b);
	}
}

/* piece checks n elements of t at buf, a piece of side s. */
static void piece(struct side *s, uint64_t buf, int64_t n, MPI_Datatype t)
{
	uint64_t lo, hi;
	if (s->state == HEAP_NONE || !span(buf, n, t, &lo, &hi))
		return;
	if (s->state == HEAP_DATA) /* once per site, parameter and extent */
		mpivet_heap_report(MPIVET_HEAP_GLOBAL, s->call, s->param, mpivet_call_pc, s->base, lo, hi, &s->b,
				   lo * 31 + hi);
	else if (s->state == HEAP_FREED)
		mpivet_heap_report(MPIVET_HEAP_FREED, s->call, s->param, mpivet_call_pc, s->base, lo, hi, &s->b, 0);
	else if (lo < s->b.start || hi > s->b.start + s->b.size)
		mpivet_heap_report(MPIVET_HEAP_OVERRUN, s->call, s->param, mpivet_call_pc, s->base, lo, hi, &s->b, 0);
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
	side_at(&c.s[0], call, sb, d.send.in_place ? 0 : d.send.buf);
	side_at(&c.s[1], call, rb, d.recv.in_place ? 0 : d.recv.buf);
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
