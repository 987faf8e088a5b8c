/*
 * Exposure epochs: the target's own loads and stores of its window memory
 * while remote one-sided operations may access it (MPI-3.1 §11.7: a
 * window's bytes that a Put or Accumulate of the epoch updates may not be
 * read or written locally, nor bytes a Get reads written, until the epoch
 * is closed).
 *
 * Between the return of an MPI_Win_fence (that does not assert
 * MPI_MODE_NOSUCCEED) and the next fence on the window, and between
 * MPI_Win_post and the MPI_Win_wait (or successful MPI_Win_test) that
 * closes it, the pages of the window are protected whenever no thread of
 * the rank is inside MPI: PROT_NONE, or PROT_READ after MPI_MODE_NOPUT
 * (nothing remote writes the window: loads cannot race). The program's
 * first load and first store of each page in the epoch fault: the access
 * is recorded (window handle, byte offset in the window, load or store, the
 * call that opened the epoch, the call stack) and the page is opened to
 * that kind of access for the rest of the epoch, so a target that computes
 * on its window during the epoch (the interior of a stencil, the same
 * pages as its ghost cells) pays at most two faults per page and epoch,
 * not one per access, and a page whose accesses are the same in every
epoch is left open for a while (demotion, below). The analysis (checks/rma, local.go) compares the
 * recorded offsets with the bytes remote operations of the same epoch
 * access. Only the first access of each kind per page is seen: a ghost
 * cell read after an interior cell of the same page in the same epoch is
 * not found (fewer findings, never a false one).
 *
 * Which windows: those whose memory no peer's kernel writes while this
 * rank is outside MPI. A protected page makes such a write fail (EFAULT)
 * instead of faulting here. Measured with both MPIs here (a 64 KiB Put
 * into a window protected during the whole epoch): Open MPI 4.1 chooses
 * osc/rdma for every window; for MPI_Win_create its Put is a
 * process_vm_writev by the origin (vader's CMA), which fails ("Wrote -1,
 * expected 65536, errno = 14"), while MPI_Win_allocate puts the window in
 * a shared segment that origins write through their own mapping (the
 * target's protection is its own). MPICH 4.0 (ch4:ucx) applied the Put
 * correctly for both (Puts of 4 KiB to 8 MiB). So: MPI_Win_allocate
 * always, MPI_Win_create except under Open MPI (its whole pages only: the
 * others hold the program's other data); never MPI_Win_allocate_shared (peers load and
 * store directly) nor dynamic windows; none when a peer's kernel writes
 * receive buffers (setup.c's peer_writes: UCX's put_zcopy rendezvous), as
 * it would a receive into window memory.
 *
 * The MPI's own accesses (inside its calls the pages are open; from its
 * code outside them, a progress thread) and the program's accesses to
 * other data on a window's partial page open the page for the epoch,
 * unrecorded. Epochs are watched within the buffer checker's budget
 * (bc_watch: every site's first epochs, then while the checker has spent
 * less than its share of the time).
 */
#define _GNU_SOURCE
#include "checker.h"

#include <string.h>

/* A page of a window, across its watched epochs. */
struct xpage {
	uint64_t cur;         /* what was recorded on it in this epoch */
	uint64_t prev[2];     /* and in the last two that recorded anything, latest first */
	uint32_t skip;        /* watched epochs it stays open for (demoted) */
	unsigned char seen;   /* SEEN_LOAD, SEEN_STORE: open to those in this epoch */
	unsigned char same;   /* epochs in a row that recorded the same accesses */
	unsigned char strikes; /* demotions so far */
	unsigned char idle;   /* epochs in a row in which the program did not touch it */
};
enum { SEEN_LOAD = 1, SEEN_STORE = 2 };

struct xwin {
	uint64_t win;
	uintptr_t base, end; /* the window's bytes */
	uintptr_t lo, hi;    /* the pages protected in an epoch */
	uint64_t opener;     /* log offset of the call that opened the watched epoch */
	unsigned call;       /* its call id */
	int open;            /* a watched exposure epoch is open */
	int active;          /* an active-target exposure epoch is open (fence, post), watched or not */
	int passive;         /* the watched epoch is a stretch between two MPI calls outside them */
	int noput;           /* MPI_MODE_NOPUT: nothing remote writes it */
	int closed;          /* some of its pages are protected now */
	struct xpage *pg;
};

/* Demotion. A page whose program accesses recorded in an epoch (the first
 * load and store: their instruction and byte) are those of one of the last
 * two epochs that recorded any (SAME_EPOCHS times in a row) is a loop doing
 * the same thing every iteration, or every other one (a sweep that reads
 * one buffer and writes the other, then the reverse: between MPI calls,
 * bench/programs/rma_stencil.c's lock mode), such as a stencil computing on
 * its interior and reading its ghost cells after the closing fence: recording it again would add
 * faults and records, and nothing for the analysis unless the remote
 * operations differ. It is left open for DEMOTED_EPOCHS watched epochs,
 * twice as long each time (up to 2^MAX_STRIKES times), then watched again;
 * if its accesses are still the same, demoted again at once. So a race
 * that happens in every iteration is found in the first, and records grow
 * with the logarithm of the run's length; one that only a later iteration
 * makes on a demoted page is missed. A page the program did not touch in
 * IDLE_EPOCHS watched epochs in a row is demoted alike: each protected
 * page costs two protection calls per MPI call of the epoch (Open MPI's
 * MPI_Win_allocate puts the window 8 bytes into a page, and the stencil
 * never touches its last page: 8 calls per iteration of
 * bench/programs/rma_stencil.c for nothing); a race on a page the program
 * touches only after its first epochs may be missed. The numbers: the
 * 256x256 stencil's CPU time per iteration on one rank (Puts to itself,
 * MPICH) was 1.33x native with a demotion after two repeated epochs for
 * 64 epochs, 1.25x with these (1.19x without the call stack of the
 * records, which a memcpy into a window needs for its line); 1.07x
 * before this file. */
#define SAME_EPOCHS 1
#define IDLE_EPOCHS 8
#define DEMOTED_EPOCHS 1024
#define MAX_STRIKES 6

/* Passive target (MPI_Win_lock, lock_all by other ranks): the target makes
 * no call that opens or closes the epochs, and what orders its accesses
 * with the origins' operations is the program's own synchronisation
 * (barriers, messages). So outside active-target epochs every stretch of
 * program between two MPI calls is watched as an epoch of its own: the
 * first load and store of each page in it are recorded (kinds
 * MPIVET_ACCESS_PASSIVE_*), and the analysis places the record after the
 * rank's latest logged call (its position in the log), where its vector
 * clock is that call's (checks/rma, passive.go). A page the program does
 * not touch in PASSIVE_IDLE stretches in a row is demoted as an idle page
 * is in epochs: stretches are many more than epochs. */
#define PASSIVE_IDLE 64

static struct xwin *xw;
static int nxw, capxw;
int nexposed;    /* windows with a watched epoch open */
int npassive;    /* windows outside active-target epochs: watched between MPI calls */
static int xoff; /* MPI_Finalize: nothing watched any more */
static int xopen = 1; /* their pages are open (a thread is in MPI, or none is protected) */

static struct xwin *find(uint64_t win)
{
	for (int i = 0; i < nxw; i++)
		if (xw[i].win == win)
			return &xw[i];
	return NULL;
}

/* bc_exposure_add follows a window whose epochs may be watched: its bytes
 * [base, base+size); whole says to protect only the pages wholly inside. */
void bc_exposure_add(uint64_t win, uint64_t base, int64_t size, int whole)
{
	/* a peer's kernel writes receive buffers (UCX_RNDV_SCHEME=put_zcopy):
	 * an MPI_Irecv into the window would fail on a protected page */
	if (size <= 0 || !base || !mpivet_bc_on || peer_writes)
		return;
	uintptr_t lo = (uintptr_t)base & ~(pagesz - 1), hi = ((uintptr_t)base + (uintptr_t)size + pagesz - 1) & ~(pagesz - 1);
	if (whole)
		lo = ((uintptr_t)base + pagesz - 1) & ~(pagesz - 1), hi = ((uintptr_t)base + (uintptr_t)size) & ~(pagesz - 1);
	if (hi <= lo)
		return;
	struct xpage *pg = bc_xalloc((hi - lo) / pagesz * sizeof *pg);
	if (!pg)
		return;
	lock();
	if (nxw == capxw) {
		int cap = capxw ? 2 * capxw : 4;
		struct xwin *x = bc_xrealloc(xw, cap * sizeof *x);
		if (!x) {
			unlock();
			bc_xfree(pg);
			return;
		}
		xw = x, capxw = cap;
	}
	xw[nxw++] = (struct xwin){.win = win, .base = (uintptr_t)base, .end = (uintptr_t)base + (uintptr_t)size, .lo = lo, .hi = hi, .pg = pg};
	npassive++;
	mpivet_bc_live = 1;
	unlock();
}

static void demote(struct xpage *p)
{
	p->skip = DEMOTED_EPOCHS << (p->strikes < MAX_STRIKES ? p->strikes : MAX_STRIKES);
	p->strikes += p->strikes < 255;
	p->idle = 0;
}

/* close_epoch ends w's watched epoch (its pages are open: the caller is in
 * MPI), and demotes the pages whose accesses were the same again. */
static void close_epoch(struct xwin *w)
{
	if (!w->open)
		return;
	nexposed--;
	w->open = 0;
	size_t n = (w->hi - w->lo) / pagesz;
	for (size_t j = 0; j < n; j++) {
		struct xpage *p = &w->pg[j];
		if (!p->cur) {
			/* untouched: protecting it costs two calls per MPI call */
			if (!p->seen && ++p->idle >= (w->passive ? PASSIVE_IDLE : IDLE_EPOCHS))
				demote(p);
			continue;
		}
		p->idle = 0;
		p->same = p->cur == p->prev[0] || p->cur == p->prev[1] ? p->same + 1 : 0;
		if (p->cur != p->prev[0])
			p->prev[1] = p->prev[0], p->prev[0] = p->cur;
		p->cur = 0;
		if (p->same >= SAME_EPOCHS) {
			demote(p);
			p->same = SAME_EPOCHS - 1; /* once more the same after it: demoted again */
		}
	}
}

/* bc_exposure_remove forgets window win (MPI_Win_free). */
void bc_exposure_remove(uint64_t win)
{
	lock();
	struct xwin *w = find(win);
	if (w) {
		close_epoch(w);
		npassive -= !w->active;
		bc_xfree(w->pg);
		*w = xw[--nxw];
	}
	unlock();
}

/* open_epoch opens a watched epoch on w (its pages are open: the caller is
 * in MPI), by the call logged at logref, or a stretch between calls
 * (passive): pages demoted stay open, one epoch nearer their end. */
static void open_epoch(struct xwin *w, unsigned call, uint64_t logref, int noput, int passive)
{
	w->open = 1, w->noput = noput, w->passive = passive;
	w->opener = logref, w->call = call;
	size_t n = (w->hi - w->lo) / pagesz;
	for (size_t j = 0; j < n; j++) {
		struct xpage *p = &w->pg[j];
		p->seen = p->skip ? SEEN_LOAD | SEEN_STORE : 0;
		p->skip -= p->skip > 0;
	}
	nexposed++;
	mpivet_bc_live = 1;
}

/* set_active notes whether an active-target exposure epoch is open on w. */
static void set_active(struct xwin *w, int active)
{
	npassive += (!active) - (!w->active);
	w->active = active;
}

/* bc_exposure_open opens a watched exposure epoch on win, by the call
 * logged at logref, unless the budget says not to watch it; an open one
 * is closed first (a fence closes one epoch and opens the next). */
void bc_exposure_open(uint64_t win, unsigned call, uint64_t logref, int noput, int opens)
{
	lock();
	struct xwin *w = find(win);
	if (w) {
		close_epoch(w);
		set_active(w, opens && !xoff);
		if (opens && bc_watch(mpivet_call_pc))
			open_epoch(w, call, logref, noput, 0);
	}
	unlock();
}

/* bc_exposure_close closes the epoch on win (MPI_Win_wait). */
void bc_exposure_close(uint64_t win)
{
	lock();
	struct xwin *w = find(win);
	if (w) {
		close_epoch(w);
		set_active(w, 0);
	}
	unlock();
}

/* bc_exposure_enter opens the pages on entry to an MPI call: the MPI
 * writes them (remote operations landing, receives into window memory)
 * and reads them (a Put from window memory). The caller holds the lock. */
void bc_exposure_enter(void)
{
	if (xopen)
		return;
	xopen = 1;
	for (int i = 0; i < nxw; i++)
		if (xw[i].closed) {
			bc_prot(xw[i].lo, xw[i].hi - xw[i].lo, RW, S_ENTRY);
			xw[i].closed = 0;
		}
}

/* bc_exposure_off ends every epoch with its pages open (MPI_Finalize: the
 * program may use its window memory after it). The caller holds the lock. */
void bc_exposure_off(void)
{
	bc_exposure_enter();
	for (int i = 0; i < nxw; i++)
		close_epoch(&xw[i]);
	xoff = 1, npassive = 0;
}

static int page_prot(const struct xwin *w, unsigned char seen)
{
	if (seen & SEEN_STORE)
		return RW;
	return (seen & SEEN_LOAD) || w->noput ? PROT_READ : PROT_NONE;
}

/* peer_copies opens, for the rest of w's epoch, the pages of w that hold a
 * pending operation's buffer a peer's kernel may copy while this rank is
 * outside MPI (operations.c's peer_reads, peer_written: an MPI_Isend of a
 * large message from window memory, read by the receiver's
 * process_vm_readv, which a closed page would make fail): to reads, or to
 * everything. */
static void peer_copies(struct xwin *w)
{
	for (int k = 0; k < nregions; k++) {
		const struct region *r = &regions[k];
		if (!r->active || !(r->peer_reads || r->peer_written) || r->hi <= w->lo || r->lo >= w->hi)
			continue;
		uintptr_t lo = r->lo > w->lo ? r->lo : w->lo, hi = r->hi < w->hi ? r->hi : w->hi;
		for (uintptr_t pg = lo & ~(pagesz - 1); pg < hi; pg += pagesz)
			w->pg[(pg - w->lo) / pagesz].seen |= r->peer_written ? SEEN_LOAD | SEEN_STORE : SEEN_LOAD;
	}
}

/* bc_exposure_leave protects the pages of open epochs when the last
 * thread leaves MPI: each page as its accesses so far in the epoch allow,
 * runs of pages alike in one call. The caller holds the lock. */
void bc_exposure_leave(void)
{
	if (!nexposed && !npassive)
		return;
	int watch = npassive && !xoff && bc_watching();
	xopen = 0;
	for (int i = 0; i < nxw; i++) {
		struct xwin *w = &xw[i];
		if (!w->active && !xoff) { /* the stretch that starts: watched as an epoch */
			close_epoch(w);
			if (watch)
				open_epoch(w, 0, MPIVET_NOREC, 0, 1);
		}
		if (!w->open)
			continue;
		peer_copies(w);
		size_t n = (w->hi - w->lo) / pagesz;
		for (size_t j = 0; j < n;) {
			int p = page_prot(w, w->pg[j].seen);
			size_t k = j + 1;
			while (k < n && page_prot(w, w->pg[k].seen) == p)
				k++;
			if (p != RW) {
				bc_prot(w->lo + j * pagesz, (k - j) * pagesz, p, S_LEAVE);
				w->closed = 1;
			}
			j = k;
		}
	}
}

/* note records the program's access (write or not) at a on page pg of w, by
 * the code whose call stack is pcs (npcs <= 0: none recorded), and opens
 * the page to it; the MPI's access, or the program's to other data on the
 * page, opens it unrecorded. */
static void note(struct xwin *w, struct xpage *pg, uintptr_t a, int write, uintptr_t pc, const uint64_t *pcs, int npcs,
		 int program)
{
	uintptr_t page = a & ~(pagesz - 1);
	if (program && a >= w->base && a < w->end) {
		if (npcs > 0 && mpivet_on) {
			uint64_t off, words = 8 + (uint64_t)npcs;
			uint64_t *r = mpivet_begin(words, &off);
			if (r) {
				if (w->passive)
					r[0] = write ? MPIVET_ACCESS_PASSIVE_STORE : MPIVET_ACCESS_PASSIVE_LOAD;
				else
					r[0] = write ? MPIVET_ACCESS_TARGET_STORE : MPIVET_ACCESS_TARGET_LOAD;
				r[1] = a, r[2] = w->opener, r[3] = w->call, r[4] = w->win;
				r[5] = a - w->base, r[6] = 0, r[7] = (uint64_t)npcs;
				for (int k = 0; k < npcs; k++)
					r[8 + k] = pcs[k];
				mpivet_commit(off, words, MPIVET_META_BUFFER, MPIVET_KIND_META);
			}
		}
		stats[F_HIT]++;
		pg->seen |= write ? SEEN_LOAD | SEEN_STORE : SEEN_LOAD;
	} else {
		stats[F_MPI]++;
		pg->seen |= SEEN_LOAD | SEEN_STORE;
	}
	pg->cur = (pg->cur * 0x9E3779B97F4A7C15ULL) ^ (pc + ((a - w->base) << 1) + (uint64_t)write) ^ 1;
	bc_prot(page, pagesz, page_prot(w, pg->seen), S_OPEN);
}

/* bc_exposure_fault handles a fault at a on a page of a window with an
 * epoch open (0 for any other page): records the program's first load or
 * store of the page's window bytes, and opens the page to it. The caller
 * holds the lock if it could take it (locked). */
int bc_exposure_fault(uintptr_t a, int write, uintptr_t pc, int program)
{
	uintptr_t page = a & ~(pagesz - 1);
	struct xwin *w = NULL;
	for (int i = 0; i < nxw && !w; i++)
		if (xw[i].open && page >= xw[i].lo && page < xw[i].hi)
			w = &xw[i];
	if (!w)
		return 0;
	struct xpage *pg = &w->pg[(page - w->lo) / pagesz];
	if (xopen) { /* another thread entered MPI since: the page is open now */
		bc_prot(page, pagesz, RW, S_MPI);
		return 1;
	}
	uint64_t pcs[MAX_PCS];
	int npcs = program && a >= w->base && a < w->end ? bc_fault_stack(pc, pcs) : 0;
	note(w, pg, a, write, pc, pcs, npcs, program);
	return 1;
}

/* closed_to says whether page pg of w is closed to an access (write or not). */
static int closed_to(const struct xwin *w, const struct xpage *pg, int write)
{
	int p = page_prot(w, pg->seen);
	return write ? p != RW : p == PROT_NONE;
}

/* bc_exposure_closed says whether a byte of [lo, hi) is on a page of a
 * watched window closed to an access (write or not) now. The caller holds
 * the lock. */
int bc_exposure_closed(uintptr_t lo, uintptr_t hi, int write)
{
	if (xopen || !nexposed)
		return 0;
	for (int i = 0; i < nxw; i++) {
		struct xwin *w = &xw[i];
		if (!w->open || hi <= w->lo || lo >= w->hi)
			continue;
		uintptr_t s = lo > w->lo ? lo & ~(pagesz - 1) : w->lo, e = hi < w->hi ? hi : w->hi;
		for (uintptr_t page = s; page < e; page += pagesz)
			if (closed_to(w, &w->pg[(page - w->lo) / pagesz], write))
				return 1;
	}
	return 0;
}

/* bc_exposure_kernel does for each page of [lo, hi) closed to a system
 * call's access (write: the kernel stores into the range) what the fault
 * handler does for a fault of that access on it, the access's call stack
 * being pcs (npcs <= 0: the MPI's, unrecorded): the program's access to
 * the window's bytes is recorded at the first of them on the page. The
 * caller holds the lock. */
void bc_exposure_kernel(uintptr_t lo, uintptr_t hi, int write, const uint64_t *pcs, int npcs)
{
	if (xopen || !nexposed)
		return;
	for (int i = 0; i < nxw; i++) {
		struct xwin *w = &xw[i];
		if (!w->open || hi <= w->lo || lo >= w->hi)
			continue;
		uintptr_t s = lo > w->lo ? lo & ~(pagesz - 1) : w->lo, e = hi < w->hi ? hi : w->hi;
		for (uintptr_t page = s; page < e; page += pagesz) {
			struct xpage *pg = &w->pg[(page - w->lo) / pagesz];
			if (!closed_to(w, pg, write))
				continue;
			uintptr_t a = lo > page ? lo : page, end = page + pagesz < hi ? page + pagesz : hi;
			if (a < w->base && w->base < end)
				a = w->base;
			note(w, pg, a, write, npcs > 0 ? pcs[0] : 0, pcs, npcs, npcs > 0);
		}
	}
}
