/*
 * Windows, the stretches of program between two MPI calls: pages left open
 * in a window (their pending bytes compared when it closes), and pages
 * demoted for false sharing (the program works on other data of a page
 * that holds a pending buffer).
 */
#define _GNU_SOURCE
#include "checker.h"

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
struct demoted demoted[MAX_DEMOTED];
int ndemoted;

int bc_demotion(uintptr_t page)
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

/* bc_missed counts a miss on page by the instruction at pc in this window and
 * returns how many there were. */
int bc_missed(uintptr_t page, uintptr_t pc)
{
	for (int i = 0; i < nmisses; i++)
		if (misses[i].page == page && misses[i].pc == pc)
			return ++misses[i].n;
	int i = nmisses < MISS_SITES ? nmisses++ : MISS_SITES - 1;
	misses[i].page = page, misses[i].pc = pc, misses[i].n = 1;
	return 1;
}

/* wider gives the more open of two protections. */

/* bc_close_window compares the pages left open in the window that ends. */
void bc_close_window(void)
{
	for (int i = 0; i < nopened; i++) {
		bc_list_page(mpi_pages, &nmpi_pages, opened[i].page); /* open: closed again on return */
		struct region *r = &regions[opened[i].region];
		if (opened[i].region >= nregions || !r->active || bc_hash_page(r, opened[i].page) == opened[i].hash)
			continue;
		if (r->hit_window == window_serial)
			continue; /* a write was caught exactly in this window already */
		int d = bc_demotion(opened[i].page);
		if (d >= 0)
			demoted[d].ttl = 1, dirty = 1; /* protect it fully again: catch the next one exactly */
		uint64_t pcs[2] = {window_pc, mpivet_call_pc};
		if (!bc_first_sighting(r, window_pc * 31 + mpivet_call_pc))
			continue;
		uintptr_t lo = opened[i].page > r->lo ? opened[i].page : r->lo;
		bc_record(r->recv ? WINDOW_WRITE_RECV : WINDOW_WRITE_SEND, lo, r, 0, pcs, 2);
	}
	nopened = 0;
}

/* bc_open_page leaves page open for the window that starts, with the pending
 * bytes on it remembered for close_window. */
void bc_open_page(uintptr_t page)
{
	mpivet_bc_still = 0; /* open in the window: no poll with the pages closed */
	for (int i = 0; i < nregions && nopened < MAX_OPENED; i++)
		if (regions[i].active && regions[i].hi > page && regions[i].lo < page + pagesz) {
			opened[nopened].page = page;
			opened[nopened].region = i;
			opened[nopened].hash = bc_hash_page(&regions[i], page);
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

/* bc_begin_window starts the window after the call at mpivet_call_pc,
 * when the last thread leaves MPI. */
void bc_begin_window(void)
{
	window_pc = mpivet_call_pc;
	window_serial++;
	nopened = nmisses = 0;
	age_demotions();
}

/* mpivet_bc_poll_window starts the window after a poll that ran with the
 * pages closed and touched none of them (buffers.h): the window that ends
 * had nothing open to compare. The demotions and the misses that tell a
 * loop go on being counted in windows that end at a call that entered the
 * checker. No lock: the program has no other thread (mpivet_bc_still). */
void mpivet_bc_poll_window(void)
{
	window_pc = mpivet_call_pc;
	window_serial++;
}

/* bc_reopen_demoted leaves the pages demoted to open open in the window
 * that starts, with their pending bytes remembered. */
void bc_reopen_demoted(void)
{
	for (int i = 0; i < ndemoted; i++)
		if (demoted[i].prot == RW)
			bc_open_page(demoted[i].page);
}

/* bc_demote demotes page, whose protection is now prot, after a fault that
 * missed every pending buffer (see demoted[]); 1 if it did. */
int bc_demote(uintptr_t page, int write, int prot)
{
	if (mpivet_bc_precise)
		return 0;
	int d = bc_demotion(page);
	if (d < 0) {
		if (ndemoted == MAX_DEMOTED)
			return 0;
		d = ndemoted++;
		demoted[d].page = page;
		demoted[d].prot = prot;
		unsigned n = strike(page);
		demoted[d].ttl = DEMOTED_WINDOWS << (n < MAX_STRIKES ? n : MAX_STRIKES);
	}
	demoted[d].prot = wider(demoted[d].prot, write ? RW : PROT_READ);
	bc_prot(page, pagesz, demoted[d].prot, S_DEMOTE);
	bc_list_page(unsure, &nunsure, page);
	if (demoted[d].prot == RW)
		bc_open_page(page);
	dirty = 1;
	return 1;
}
