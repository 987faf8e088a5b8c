/*
 * mpivet interposition layer: the target's own stores into bytes a remote
 * MPI_Put writes in the same fence epoch, found by value.
 *
 * The window's memory cannot be protected to catch the target's loads and
 * stores: the MPI writes it too, from the target's own calls, from peers
 * through shared memory, or from a peer's kernel (CMA), which a protected
 * page would make fail. So nothing is trapped; values are compared:
 *
 *   - at the origin, an MPI_Put of a predefined datatype (the same at
 *     origin and target, so the target's bytes are the origin's) in a fence
 *     epoch is remembered with a hash of the origin bytes. At the origin's
 *     closing MPI_Win_fence (entry), the origin bytes are hashed again (a
 *     buffer changed before the Put completed is the buffer checker's
 *     finding, not the target's) and, if unchanged, the Put is published to
 *     the target's inbox: window, fence number, origin, the Put's entry
 *     record, displacement, bytes, hash.
 *   - at the target, when the closing fence returns (every Put of the epoch
 *     has completed there, and the target has not run a line of program
 *     since), the bytes of each Put published for that fence are hashed; a
 *     different value is logged (MetaRMAValue). The analysis (checks/rma)
 *     reports it unless another write explains it: another operation on
 *     those bytes in the same epoch or the next (whose Puts may land while
 *     the target is still inside the fence).
 *
 * A store by the target that lands before the Put's data is overwritten by
 * it and not found; loads are not found; nor are stores of the value the
 * Put wrote. Nothing is ever found that did not happen.
 *
 * The inbox is a ring of fixed-size entries in a file of the run directory
 * (p.RANK.inbox), mapped by the target and by the origins that put to it;
 * an entry is published with its sequence number written last (release),
 * and read under it (a lapped entry is skipped). Only ranks on mpivet's own
 * host take part (layer.conf's host): their mappings of one file are
 * coherent. A window's id is agreed at creation with one MPI_Allreduce on
 * its communicator, so that origin and target name the same window.
 *
 * Calls only the recorder (record.h) and PMPI.
 */
#define _GNU_SOURCE
#include "../record/record.h"
#include "../record/conf.h"
#include "../datatypes/walk.h"
#include "rma.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RING 16384 /* entries of an inbox */

struct entry {
	uint64_t seq; /* index + 1 once written */
	uint64_t win, epoch, origin, logref, disp, bytes, hash;
};
struct inbox {
	uint64_t head; /* entries reserved */
	uint64_t pad[7];
	struct entry e[RING];
};

struct pending {
	const void *addr;
	uint64_t target, disp, bytes, hash, logref, epoch;
};

/* An entry's epoch: a fence epoch's number (the fences before the one that
 * closes it), or PSCW and the number of the origin's earlier starts naming
 * the target, which is the number of the target's earlier posts naming the
 * origin. */
#define PSCW (1ULL << 62)

struct vwin {
	MPI_Win h;
	uint64_t id;
	char *base;
	MPI_Aint size;
	int unit, n, *world; /* world ranks by window rank */
	uint64_t fences;     /* MPI_Win_fence calls so far */
	int fenced;          /* in a fence epoch */
	int started;         /* in a PSCW access epoch */
	int posted;          /* in a PSCW exposure epoch */
	/* by world rank: starts naming it, the current start's number; posts
	 * naming it, the current post's number + 1 (0: not in the post) */
	uint64_t *starts, *cur, *posts, *exposed;
	struct pending *pend;
	int npend, cappend;
};

static struct entry *kept; /* own inbox entries not yet due */
static int nkept, capkept;
static struct vwin *wins;
static int nwins, capwins, on = -1;
static uint64_t next_id;
static struct inbox **boxes; /* by world rank, mapped lazily */
static int nboxes, me_world = -1;
static uint64_t tail;           /* own inbox: entries read */

/* active: this rank takes part (on mpivet's host, with a run directory). */
static int active(void)
{
	if (mpivet_mt && !mpivet_mt_guard)
		return 0; /* several threads call MPI: these tables are not made for them */
	if (on >= 0)
		return on;
	on = 0;
	const char *host = mpivet_conf(MPIVET_CONF_HOST), *dir = mpivet_conf_dir();
	char h[256] = "";
	gethostname(h, sizeof h - 1);
	int size = 0;
	if (!host || !dir || strcmp(host, h) != 0 || PMPI_Comm_rank(MPI_COMM_WORLD, &me_world) != MPI_SUCCESS ||
	    PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
		return 0;
	boxes = calloc((size_t)size, sizeof *boxes);
	nboxes = boxes ? size : 0;
	on = boxes != NULL;
	return on;
}

static struct inbox *box(int rank)
{
	if (rank < 0 || rank >= nboxes)
		return NULL;
	if (boxes[rank])
		return boxes[rank];
	char path[4400];
	snprintf(path, sizeof path, "%s/p.%d.inbox", mpivet_conf_dir(), rank);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600); /* every rank opens it: not created anew */
	if (fd < 0)
		return NULL;
	void *m = MAP_FAILED;
	/* the same size by every opener; reserved, or a store into it on a
	 * full file system would end the rank with SIGBUS */
	int e = ftruncate(fd, sizeof(struct inbox)) != 0 ? errno : mpivet_reserve(fd, 0, sizeof(struct inbox));
	if (!e && (m = mmap(NULL, sizeof(struct inbox), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		e = errno;
	if (e)
		mpivet_cannot_write(path, e);
	close(fd);
	return boxes[rank] = m == MAP_FAILED ? NULL : m;
}

static struct vwin *find(MPI_Win h)
{
	for (int i = 0; i < nwins; i++)
		if (wins[i].h == h)
			return &wins[i];
	return NULL;
}

/* hash is a 64-bit hash of n bytes (a multiply-mix over words). */
static uint64_t hash(const void *p, uint64_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	for (; n > 0; n--, b++)
		h = (h ^ *b) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

void mpivet_rma_created(MPI_Win h, void *base, MPI_Aint size, int unit, MPI_Comm comm)
{
	/* Every member agrees on the id, whether or not it takes part (a rank
	 * on another host, or whose threads call MPI, does not): the
	 * collective must not depend on what differs between ranks. */
	uint64_t mine = ++next_id, id = 0;
	if (PMPI_Allreduce(&mine, &id, 1, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
		return;
	next_id = id;
	if (!active())
		return;
	MPI_Group g;
	if (PMPI_Win_get_group(h, &g) != MPI_SUCCESS)
		return;
	int n = 0, *in = mpivet_rma_world_ranks(g, &n);
	PMPI_Group_free(&g);
	if (nwins == capwins) {
		struct vwin *w = realloc(wins, (size_t)(capwins ? 2 * capwins : 8) * sizeof *w);
		if (w)
			wins = w, capwins = capwins ? 2 * capwins : 8;
	}
	if (!in || nwins == capwins) {
		free(in);
		return;
	}
	wins[nwins++] = (struct vwin){.h = h, .id = id, .base = base, .size = size, .unit = unit, .n = n, .world = in};
}

void mpivet_rma_freed(MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (!w)
		return;
	free(w->world);
	free(w->pend);
	free(w->starts);
	int j = 0;
	for (int i = 0; i < nkept; i++)
		if (kept[i].win != w->id)
			kept[j++] = kept[i];
	nkept = j;
	*w = wins[--nwins];
}

/* mpivet_rma_sync: a synchronisation other than a fence on the window
 * (lock, PSCW, flush): the Puts remembered are not in a fence epoch. */
void mpivet_rma_sync(MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (w)
		w->fenced = 0, w->started = 0, w->npend = 0;
}

void mpivet_rma_put(uint64_t logref, const void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
		    MPI_Datatype ttype, MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (!w || !(w->fenced || w->started) || logref == MPIVET_NOREC || otype != ttype || ocount != tcount || ocount <= 0 || target < 0 ||
	    target >= w->n || disp < 0)
		return;
	struct mpivet_type_parts p;
	int size = 0;
	if (mpivet_type_open(otype, &p) != MPIVET_TYPE_BASIC || PMPI_Type_size(otype, &size) != MPI_SUCCESS || size <= 0 ||
	    mpivet_type_extent(otype) != size)
		return; /* derived (closing it is not needed: not opened as such) */
	if (w->npend == w->cappend) {
		int c = w->cappend ? 2 * w->cappend : 16;
		struct pending *q = realloc(w->pend, (size_t)c * sizeof *q);
		if (!q)
			return;
		w->pend = q, w->cappend = c;
	}
	uint64_t bytes = (uint64_t)ocount * (uint64_t)size, t = (uint64_t)w->world[target];
	uint64_t epoch = w->fenced ? w->fences : PSCW | w->cur[t];
	w->pend[w->npend++] = (struct pending){addr, t, (uint64_t)disp, bytes, hash(addr, bytes), logref, epoch};
}

/* publish gives the target of each Put of the epoch closing now what to
 * compare, unless its origin bytes changed meanwhile. */
static void publish(struct vwin *w)
{
	for (int i = 0; i < w->npend; i++) {
		struct pending *q = &w->pend[i];
		struct inbox *b = box((int)q->target);
		if (!b || hash(q->addr, q->bytes) != q->hash)
			continue;
		uint64_t k = __atomic_fetch_add(&b->head, 1, __ATOMIC_ACQ_REL);
		struct entry *e = &b->e[k % RING];
		__atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		*e = (struct entry){0, w->id, q->epoch, (uint64_t)me_world, q->logref, q->disp, q->bytes, q->hash};
		__atomic_store_n(&e->seq, k + 1, __ATOMIC_RELEASE);
	}
	w->npend = 0;
}

void mpivet_rma_fence_pre(MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (w && w->fenced)
		publish(w);
	else if (w)
		w->npend = 0;
}

/* drain moves the entries of the own inbox published since the last look
 * into kept. */
static void drain(void)
{
	struct inbox *b = box(me_world);
	if (!b)
		return;
	uint64_t head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	if (head - tail > RING)
		tail = head - RING; /* lapped: those are lost */
	for (; tail < head; tail++) {
		struct entry *e = &b->e[tail % RING], c;
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != tail + 1)
			break; /* reserved, not written yet: the next look takes it */
		c = *e;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != tail + 1)
			continue;
		if (nkept == capkept) {
			int n = capkept ? 2 * capkept : 64;
			struct entry *k = realloc(kept, (size_t)n * sizeof *k);
			if (!k)
				continue;
			kept = k, capkept = n;
		}
		kept[nkept++] = c;
	}
}

/* due says what to do with entry e of window w at a closing
 * synchronisation: 1 compare, 0 keep for later, -1 drop (its epoch is
 * over). fence: the fence epoch closing, or -1 at a PSCW wait. */
static int due(struct vwin *w, struct entry *e, int64_t fence)
{
	if (e->win != w->id)
		return 0;
	if (fence >= 0) {
		if (e->epoch & PSCW)
			return 0;
		return e->epoch == (uint64_t)fence ? 1 : e->epoch < (uint64_t)fence ? -1 : 0;
	}
	if (!(e->epoch & PSCW) || e->origin >= (uint64_t)nboxes || !w->exposed || !w->exposed[e->origin])
		return 0;
	uint64_t k = w->exposed[e->origin] - 1, got = e->epoch & ~PSCW;
	return got == k ? 1 : got < k ? -1 : 0;
}

/* check compares, once the synchronisation closing an epoch of window w
 * has returned, the bytes of each Put published for it with what its
 * origin sent. */
static void check(struct vwin *w, int64_t fence, uint64_t logref)
{
	drain();
	int j = 0;
	for (int i = 0; i < nkept; i++) {
		struct entry *e = &kept[i];
		int d = due(w, e, fence);
		if (d == 0)
			kept[j++] = *e;
		if (d <= 0)
			continue;
		uint64_t off = e->disp * (uint64_t)w->unit;
		if (w->unit <= 0 || off / (uint64_t)w->unit != e->disp || off > (uint64_t)w->size || e->bytes > (uint64_t)w->size - off)
			continue;
		if (hash(w->base + off, e->bytes) == e->hash || logref == MPIVET_NOREC)
			continue;
		uint64_t r[] = {logref, e->origin, e->logref, off, e->bytes};
		mpivet_meta(MPIVET_META_RMA_VALUE, r, sizeof r / sizeof *r);
	}
	nkept = j;
}

void mpivet_rma_fence_post(uint64_t logref, int assertion, MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (!w)
		return;
	check(w, (int64_t)w->fences, logref);
	w->fences++;
	w->fenced = !(assertion & MPI_MODE_NOSUCCEED);
}

/* pscw gives window w's PSCW counters (by world rank), allocated at first
 * use; 0 if they cannot be. */
static int pscw(struct vwin *w)
{
	if (!w->starts && (w->starts = calloc(4 * (size_t)nboxes, sizeof *w->starts)) != NULL)
		w->cur = w->starts + nboxes, w->posts = w->cur + nboxes, w->exposed = w->posts + nboxes;
	return w->starts != NULL;
}

void mpivet_rma_start(MPI_Group g, MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	int n, *ws = w && pscw(w) ? mpivet_rma_world_ranks(g, &n) : NULL;
	if (!w)
		return;
	w->fenced = 0, w->started = 0, w->npend = 0;
	if (!ws)
		return;
	for (int i = 0; i < n; i++)
		if (ws[i] >= 0 && ws[i] < nboxes)
			w->cur[ws[i]] = w->starts[ws[i]]++;
	w->started = 1;
	free(ws);
}

void mpivet_rma_complete(MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (w && w->started)
		publish(w);
	if (w)
		w->started = 0, w->npend = 0;
}

void mpivet_rma_post(MPI_Group g, MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	int n, *ws = w && pscw(w) ? mpivet_rma_world_ranks(g, &n) : NULL;
	if (!ws)
		return;
	for (int i = 0; i < n; i++)
		if (ws[i] >= 0 && ws[i] < nboxes)
			w->exposed[ws[i]] = ++w->posts[ws[i]];
	w->posted = 1;
	free(ws);
}

void mpivet_rma_wait(uint64_t logref, MPI_Win h)
{
	struct vwin *w = on > 0 ? find(h) : NULL;
	if (!w || !w->posted)
		return;
	check(w, -1, logref);
	memset(w->exposed, 0, (size_t)nboxes * sizeof *w->exposed);
	w->posted = 0;
}
