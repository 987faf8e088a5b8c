/*
 * Pending operations: the regions (buffers, or pieces of a collective's)
 * of the operations started and not yet completed, how they start,
 * complete and are freed, and the records of accesses and overlaps.
 */
#define _GNU_SOURCE
#include "checker.h"
#include "../heap/heap.h"

#include <string.h>

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

/* bc_record writes a buffer record: the access kind, the address, the
 * operation (log offset of its start, call, request), the other operation
 * of an overlap, the access's call stack, and the thread that made it
 * (mpivet_thread_words: any thread of the rank may fault). */
void bc_record(int kind, uintptr_t addr, const struct region *r, uint64_t other, const uint64_t *pcs, int npcs)
{
	if (!mpivet_on)
		return;
	uint64_t off, words = 8 + npcs + 3;
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
	mpivet_thread_words(&w[8 + npcs]);
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
				if (bc_covers_range(b, s, s + a->t->len[j])) {
					uintptr_t lo = s > b->lo ? s : b->lo;
					bc_record(OVERLAP, lo, n, r->logref, NULL, 0);
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
		struct region *r = bc_xrealloc(regions, cap * sizeof *r);
		if (!r)
			return NULL;
		regions = r, capregions = cap;
	}
	struct region *r = &regions[nregions++];
	memset(r, 0, sizeof *r);
	return r;
}

/* bc_first_sighting reports whether r has not recorded an access at site key
 * yet, and remembers it (up to four sites per operation). */
int bc_first_sighting(struct region *r, uint64_t key)
{
	for (int k = 0; k < r->nseen; k++)
		if (r->seen[k] == key)
			return 0;
	if (r->nseen < 4)
		r->seen[r->nseen++] = key;
	return 1;
}

/* bc_add registers a buffer of count elements of type at buf. */
void bc_add(unsigned call, int recv, uint64_t buf, int64_t count, uint64_t type, uint64_t req, uint64_t at,
		uint64_t logref, int persistent)
{
	int coll = recv & COLL;
	recv &= 1;
	if (count <= 0 || req == req_null || type == MPIVET_H(MPI_DATATYPE_NULL))
		return; /* no data, or a buffer the call does not use */
	lock();
	struct flat *t = bc_flat_of((MPI_Datatype)(uintptr_t)type);
	if (!t || !t->n) {
		bc_drop_flat(t);
		unlock();
		return; /* a type it cannot map is not checked: no false alarms */
	}
	struct region *r = new_region();
	if (!r) {
		bc_drop_flat(t);
		unlock();
		return;
	}
	r->req = req, r->at = at, r->logref = logref, r->initref = persistent ? logref : MPIVET_NOREC;
	r->call = call, r->recv = recv, r->persistent = persistent, r->active = !persistent;
	r->buf = buf, r->count = count, r->t = t;
	bc_bounds(t, buf, count, &r->lo, &r->hi);
	int64_t bytes = count * t->size;
	int contiguous = t->n == 1 && (count == 1 || t->len[0] == t->extent);
	int peer_copied = bytes >= peer_copy_min && (contiguous || coll);
	r->peer_reads = peer_copied && (!recv || coll);
	r->lazy = lazy_host && bytes <= LAZY_BYTES && !(recv && peer_copied) && r->hi - r->lo <= LAZY_SPAN;
	r->peer_written = recv && peer_copied && peer_writes;
	r->watched = r->active && !r->peer_written && bc_watch(mpivet_call_pc);
	if (r->active) {
		check_overlap(r);
		if (r->watched || r->peer_reads || r->peer_written)
			dirty = mpivet_bc_live = 1;
	}
	unlock();
}

void bc_remove_at(int i)
{
	bc_drop_flat(regions[i].t);
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

/* bc_finish ends the operation of request h (kept at at): a persistent one
 * becomes inactive, another one is forgotten. The caller holds the lock. */
void bc_finish(uint64_t h, uint64_t at, int persistent_done, int nulled)
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
					bc_remove_at(j);
			}
		if (changed)
			dirty = mpivet_bc_live = 1;
	}
}

/* bc_finish_one is finish for a call that completes one request. */
void bc_finish_one(uint64_t h, uint64_t at, int persistent_done, int nulled)
{
	lock();
	bc_finish(h, at, persistent_done, nulled);
	unlock();
}

/* bc_forget drops every region of request h (MPI_Request_free). */
void bc_forget(uint64_t h, uint64_t at)
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
				bc_remove_at(j);
			}
		if (changed)
			dirty = mpivet_bc_live = 1;
	}
	unlock();
}

/* bc_start activates the persistent operation of request h; out is the handle
 * the MPI left (Open MPI may replace it). */
void bc_start(uint64_t h, uint64_t out, uint64_t logref)
{
	lock();
	int changed = 0;
	for (int j = 0; j < nregions; j++)
		if (regions[j].persistent && regions[j].req == h) {
			if (!regions[j].active) {
				regions[j].active = 1;
				regions[j].watched = !regions[j].peer_written && bc_watch(mpivet_call_pc);
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

/* bc_finish_all ends every pending operation registered under h: the
 * one-sided operations of a window (h is the window's handle), which a
 * fence, unlock, flush or complete on it completes. (A flush of one target
 * completes them all here: fewer reports, never a false one.) */
void bc_finish_all(uint64_t h)
{
	lock();
	int changed = 0;
	for (int j = nregions - 1; j >= 0; j--)
		if ((regions[j].req == h || (h && regions[j].win == h)) && regions[j].active && !regions[j].persistent) {
			changed |= regions[j].watched || regions[j].peer_reads || regions[j].peer_written;
			bc_remove_at(j);
		}
	if (changed)
		dirty = mpivet_bc_live = 1;
	unlock();
}

/* bc_window_ops marks the buffers the request-based one-sided operation
 * logged at logref registered under its request as operations of window
 * win too: the window's unlock or flush completes them as well as their
 * request's Wait. */
void bc_window_ops(uint64_t logref, uint64_t win)
{
	lock();
	for (int j = nregions - 1; j >= 0 && regions[j].logref == logref; j--)
		regions[j].win = win;
	unlock();
}

/* Window memory: what other ranks' one-sided operations write (or read)
 * with no MPI call of this rank in progress, through the kernel on a single
 * host (which fails on a protected page instead of faulting). A page that
 * holds some is never protected. */
struct winmem {
	uint64_t win;
	uintptr_t lo, hi;
	uint64_t logref; /* the MPI_Win_create or MPI_Win_attach that gave it (0: memory the MPI allocated) */
	unsigned call;
};
static struct winmem *wins;
static int nwins, capwins;

/* bc_window_add keeps the memory [base, base+size) of window win; logref
 * and call: the MPI_Win_create or MPI_Win_attach that gave the program's
 * memory (0 for memory the MPI allocated), which heap/ asks about when the
 * program frees a heap block (bc_window_in). */
void bc_window_add(uint64_t win, uint64_t base, int64_t size, uint64_t logref, unsigned call)
{
	if (size <= 0 || !base)
		return;
	lock();
	if (nwins == capwins) {
		int cap = capwins ? 2 * capwins : 8;
		struct winmem *w = bc_xrealloc(wins, cap * sizeof *w);
		if (!w) {
			unlock();
			return;
		}
		wins = w, capwins = cap;
	}
	wins[nwins++] = (struct winmem){win, (uintptr_t)base, (uintptr_t)base + (uintptr_t)size, logref, call};
	if (logref)
		__atomic_add_fetch(&mpivet_heap_windows, 1, __ATOMIC_RELAXED);
	dirty = mpivet_bc_live = 1;
	unlock();
}

/* bc_window_remove forgets the memory of window win at base (every piece
 * of it for base 0). */
void bc_window_remove(uint64_t win, uint64_t base)
{
	lock();
	for (int i = nwins - 1; i >= 0; i--)
		if (wins[i].win == win && (!base || wins[i].lo == (uintptr_t)base)) {
			if (wins[i].logref)
				__atomic_sub_fetch(&mpivet_heap_windows, 1, __ATOMIC_RELAXED);
			wins[i] = wins[--nwins];
		}
	unlock();
}

/* bc_window_in says whether [lo, hi) holds the program's memory of a window
 * (MPI_Win_create, MPI_Win_attach) not yet freed or detached, and which
 * call gave it (its log offset and call id): heap/ asks it when the
 * program frees a heap block. A thread that holds the lock is told no. */
int bc_window_in(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call)
{
	if (!lock_in_handler())
		return 0;
	int found = 0;
	for (int i = 0; i < nwins && !found; i++)
		if (wins[i].logref && wins[i].lo < hi && lo < wins[i].hi) {
			*logref = wins[i].logref, *call = wins[i].call;
			found = 1;
		}
	unlock();
	return found;
}

/* bc_in_window reports whether [lo, hi) holds window memory. The caller
 * holds the lock. */
int bc_in_window(uintptr_t lo, uintptr_t hi)
{
	for (int i = 0; i < nwins; i++)
		if (wins[i].lo < hi && wins[i].hi > lo)
			return 1;
	return 0;
}

/* bc_pending_in says whether [lo, hi) holds the buffer of a pending
 * operation, and which (heap/ asks it when the program frees a heap
 * block). A thread that holds the lock (a free in the checker's own code)
 * is told no. */
int bc_pending_in(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call)
{
	if (!__atomic_load_n(&nregions, __ATOMIC_RELAXED) || !lock_in_handler())
		return 0;
	int found = 0;
	for (int i = 0; i < nregions && !found; i++) {
		const struct region *r = &regions[i];
		if (r->active && r->count > 0 && r->lo < hi && lo < r->hi) {
			*logref = r->logref, *call = r->call;
			found = 1;
		}
	}
	unlock();
	return found;
}
