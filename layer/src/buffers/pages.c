/*
 * Protecting and opening the pages of pending buffers around MPI calls:
 * the spans (runs of pages of one protection) computed from the pending
 * operations, opened on entry to a call, set again on return where their
 * protection changes.
 */
#define _GNU_SOURCE
#include "checker.h"

#include <string.h>
#include <sys/mman.h>

int bc_want_prot(uintptr_t page)
{
	for (int i = 0; i < nopened; i++)
		if (opened[i].page == page)
			return RW;
	for (int i = 0; i < nspans; i++)
		if (page >= spans[i].lo && page < spans[i].hi) {
			if (unprotected && (spans[i].eager || all_open || bc_listed(mpi_pages, nmpi_pages, page)))
				return RW;
			int d = bc_demotion(page);
			return d >= 0 ? wider(spans[i].prot, demoted[d].prot) : spans[i].prot;
		}
	return RW;
}

/* bc_open_spans opens every span (or only the eager ones), one call for a run
 * of touching spans whatever their protection. */
void bc_open_spans(int eager_only)
{
	for (int i = 0; i < nspans; i++) {
		if (eager_only && !spans[i].eager)
			continue;
		uintptr_t lo = spans[i].lo;
		while (i + 1 < nspans && spans[i + 1].lo == spans[i].hi && (!eager_only || spans[i + 1].eager))
			i++;
		bc_prot(lo, spans[i].hi - lo, RW, S_ENTRY);
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
		uintptr_t *c = bc_xrealloc(cut, 2 * need * sizeof *c);
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
		if (prot < 0 || written || bc_in_window(lo, hi))
			continue; /* open: a peer's kernel may write it now (a receive's, a window's) */
		if (peer && prot == PROT_NONE)
			prot = PROT_READ; /* a peer's kernel may read it now */
		int d = hi - lo == pagesz ? bc_demotion(lo) : -1;
		if (d >= 0 && (prot = wider(prot, demoted[d].prot)) == RW)
			continue; /* open: compared at the next MPI call instead */
		if (nspans && spans[nspans - 1].hi == lo && spans[nspans - 1].prot == prot && spans[nspans - 1].eager == eager) {
			spans[nspans - 1].hi = hi;
			continue;
		}
		if (nspans == capspans) {
			int cap = capspans ? 2 * capspans : 16;
			struct span *s = bc_xrealloc(spans, cap * sizeof *s);
			if (!s)
				break;
			spans = s, capspans = cap;
		}
		spans[nspans++] = (struct span){lo, hi, prot, eager};
	}
}

int mpivet_bc_still;
__thread int mpivet_bc_polling __attribute__((tls_model("initial-exec")));

/* bc_enter_locked enters an MPI call for the calling thread: the first
 * thread in opens the spans (only the eager ones for a lazy call). The
 * caller holds the lock. */
void bc_enter_locked(int lazy)
{
	mpivet_bc_still = 0;
	stats[lazy ? C_LAZY : C_EAGER]++;
	if (in_mpi == 0)
		bc_close_window();
	if (!mpivet_bc_entered) {
		mpivet_bc_entered = 1;
		in_mpi++;
	}
	bc_exposure_enter();
	if (!unprotected) {
		unprotected = 1;
		bc_open_spans(lazy);
	} else if (!lazy && !all_open) {
		bc_open_spans(0);
	}
}

/* bc_poll_entered enters, for a poll on its fast path (buffers.h), the
 * call it is in, now that the MPI reaches for a page the poll left closed,
 * with its own instructions (faults.c) or through the kernel (kernelio.c):
 * as the usual entry of a poll would have, before the MPI ran. The caller
 * holds the lock. */
void bc_poll_entered(void)
{
	mpivet_bc_polling = 0;
	bc_enter_locked(1);
}

void mpivet_bc_enter(int lazy)
{
	uint64_t t0 = tsc();
	lock();
	bc_enter_locked(lazy);
	unlock();
	spend(t0);
}

/* still says whether a poll may run with the pages as the last thread to
 * leave MPI set them (mpivet_bc_still, buffers.h): no span the MPI's
 * kernel copies may need open (an eager one), unless every rank is on this
 * host and the transport is one whose copies go through the C library's
 * process_vm_readv and process_vm_writev or sockets, which kernelio.c sees
 * (peer_copy_min known: setup.c), no page left open for the
 * window (its bytes are compared at the next call's entry, and the MPI
 * may write it), no window watched, the pending set unchanged since the
 * spans were computed, and no thread of the program's but this one (a
 * thread leaving MPI closes the pages, and could close them on another
 * thread's poll without it; a thread outside MPI whose fault opens a page
 * for the window, while a poll has the pages closed, would find the MPI's
 * writes in it at the next call). The caller holds the lock. */
static int still(void)
{
	if (in_mpi || dirty || nopened || nexposed || npassive || !nspans || threads_made ||
	    !(__atomic_load_n(&mpivet_tl_rule, __ATOMIC_RELAXED) & MPIVET_TL_ONE))
		return 0;
	if (lazy_host && peer_copy_min > 0)
		return 1; /* the kernel copies of a known shared-memory transport are seen (kernelio.c) */
	for (int i = 0; i < nspans; i++)
		if (spans[i].eager)
			return 0;
	return 1;
}

/* protect_all sets every span's protection, whatever the pages are now. */
static void protect_all(void)
{
	for (int i = 0; i < nspans; i++)
		bc_prot(spans[i].lo, spans[i].hi - spans[i].lo, spans[i].prot, S_ALL);
}

/* reprotect closes the pages after the last thread left MPI: it sets the
 * protection of the spans (recomputed if the pending operations changed)
 * where it differs from what it is now. */
static void reprotect(int changed)
{
	int nold = nspans;
	if (nold > cap_old) {
		struct span *o = bc_xrealloc(old_spans, 2 * nold * sizeof *o);
		if (!o) { /* no room to compare: set everything */
			bc_open_spans(0);
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
		uintptr_t *p = bc_xrealloc(pts, 2 * need * sizeof *p);
		if (!p) {
			for (int i = 0; i < nold; i++)
				bc_prot(old_spans[i].lo, old_spans[i].hi - old_spans[i].lo, RW, S_ALL);
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
		if (o && !o->eager && !all_open && !bc_listed(mpi_pages, nmpi_pages, a))
			cur = o->prot; /* left closed through the call */
		if ((o && all_unsure) || bc_listed(unsure, nunsure, a))
			cur = -1;
		if (cur == want)
			continue;
		if (run_hi == a && run_prot == want) {
			run_hi = b;
			continue;
		}
		if (run_hi > run_lo)
			bc_prot(run_lo, run_hi - run_lo, run_prot, S_LEAVE);
		run_lo = a, run_hi = b, run_prot = want;
	}
	if (run_hi > run_lo)
		bc_prot(run_lo, run_hi - run_lo, run_prot, S_LEAVE);
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
		bc_begin_window();
		unprotected = 0; /* first: a fault on the way must find the pages closed */
		if (mpivet_bc_on)
			reprotect(dirty);
		dirty = 0;
		nmpi_pages = nunsure = all_open = all_unsure = 0;
		bc_reopen_demoted(); /* now that the spans are final */
		if (mpivet_bc_on)
			bc_exposure_leave();
	}
	mpivet_bc_live = nspans > 0 || dirty || nopened > 0 || nexposed > 0 || npassive > 0;
	mpivet_bc_still = still();
	unlock();
}

void mpivet_bc_leave(void)
{
	uint64_t t0 = tsc();
	leave();
	spend(t0);
}

/* bc_open_closed opens, for the call this thread is entering, the pages of
 * [lo, hi) that a lazy entry left closed against reads: the MPI copies a
 * small message out of its send buffer in the call that starts it, and
 * opening the page now costs one mprotect instead of a fault and one. */
static void bc_open_closed(uintptr_t lo, uintptr_t hi)
{
	if (!unprotected || all_open)
		return;
	for (uintptr_t pg = lo & ~(pagesz - 1); pg < hi; pg += pagesz) {
		const struct span *sp = span_at(spans, nspans, pg);
		if (sp && !sp->eager && sp->prot == PROT_NONE && !bc_listed(mpi_pages, nmpi_pages, pg)) {
			bc_prot(pg, pagesz, RW, S_START);
			bc_list_page(mpi_pages, &nmpi_pages, pg);
		}
	}
}

/* bc_entering_send opens the closed pages of the send buffer of the call being
 * entered (count elements of type at buf). */
void bc_entering_send(uint64_t buf, int64_t count, uint64_t type)
{
	if (count <= 0 || !buf)
		return;
	lock();
	if (unprotected && !all_open) {
		struct flat *t = bc_flat_of((MPI_Datatype)(uintptr_t)type);
		if (t && t->n) {
			uintptr_t lo, hi;
			bc_bounds(t, buf, count, &lo, &hi);
			bc_open_closed(lo, hi);
		}
		bc_drop_flat(t);
	}
	unlock();
}

/* bc_entering_start does the same for the persistent sends request h starts. */
void bc_entering_start(uint64_t h)
{
	lock();
	for (int j = 0; j < nregions && unprotected && !all_open; j++)
		if (regions[j].persistent && !regions[j].recv && regions[j].req == h)
			bc_open_closed(regions[j].lo, regions[j].hi);
	unlock();
}
