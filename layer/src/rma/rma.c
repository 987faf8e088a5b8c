/*
 * mpivet interposition layer: one-sided communication (RMA). The generated
 * wrappers log every window call with its parameters (target rank,
 * displacement, counts, datatype handles, window, lock type). Two things the
 * Go side (checks/rma) cannot rebuild from those, since it never sees a
 * datatype's type map or a group's members, are added here as a MetaRMA
 * record naming the call's entry record:
 *
 *   - a communication call (MPI_Put, MPI_Get, MPI_Accumulate, ...): the bytes
 *     its target datatype covers, relative to the target displacement in
 *     bytes (true lower bound, then span: (count-1) x extent + true extent),
 *     and the same of its origin datatype, relative to the origin address.
 *     Races are judged on these byte ranges. For a derived target datatype
 *     the blocks of bytes it covers follow (datatypes/walk.c reads the
 *     type map), at most MAX_BLOCKS: two interleaved vectors do not
 *     overlap though their spans do. A type of more blocks is taken as its
 *     span, so the record never grows beyond a few dozen words. Last, the
 *     one basic type of the target type map and its extent (0 for several
 *     basic types): accumulates are atomic per element of it, whatever
 *     derived type carries them.
 *   - MPI_Win_post, MPI_Win_start: the group's members as ranks of
 *     MPI_COMM_WORLD, which is how the Go side pairs a start with the posts
 *     it waits for and a complete with the wait it releases.
 *
 * It calls only the recorder (record.h) and PMPI.
 */
#include "../record/record.h"
#include "../datatypes/walk.h"
#include "rma.h"

#include <stdlib.h>
#include <string.h>

/* span gives the bytes count elements of type cover: lower bound and length
 * (0, 0 for an empty or unknown type). */
static void span(int count, MPI_Datatype type, int64_t *lb, int64_t *len)
{
	MPI_Aint tlb = 0, text = 0, l = 0, ext = 0;
	*lb = 0, *len = 0;
	if (count <= 0 || type == MPI_DATATYPE_NULL)
		return;
	if (PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || PMPI_Type_get_extent(type, &l, &ext) != MPI_SUCCESS)
		return;
	*lb = (int64_t)tlb;
	*len = (int64_t)(count - 1) * (int64_t)ext + (int64_t)text;
}

#define MAX_BLOCKS 32

/* blocks are the byte ranges a derived datatype covers, adjacent ones merged. */
struct blocks {
	int n, full;
	int64_t off[MAX_BLOCKS], len[MAX_BLOCKS];
	MPI_Datatype elem; /* the basic type of the elements visited (MPI_DATATYPE_NULL: none yet) */
	int mixed;         /* of several */
};

static int add(struct blocks *b, int64_t off, int64_t len)
{
	if (len <= 0)
		return 0;
	if (b->n > 0 && b->off[b->n - 1] + b->len[b->n - 1] == off) {
		b->len[b->n - 1] += len;
		return 0;
	}
	if (b->n == MAX_BLOCKS) {
		b->full = 1;
		return 1;
	}
	b->off[b->n] = off, b->len[b->n] = len, b->n++;
	return 0;
}

static int visit(void *ctx, MPI_Datatype t, int64_t disp)
{
	struct mpivet_type_parts p;
	int k = mpivet_type_open(t, &p);
	if (k == MPIVET_TYPE_UNKNOWN)
		return ((struct blocks *)ctx)->full = 1;
	if (k == MPIVET_TYPE_BASIC) {
		struct blocks *b = ctx;
		int size = 0;
		PMPI_Type_size(t, &size);
		if (b->elem != MPI_DATATYPE_NULL && b->elem != t)
			b->mixed = 1;
		b->elem = t;
		return add(ctx, disp, size);
	}
	int r = 0;
	for (int g = 0; g < p.ngroups && !r; g++)
		r = mpivet_type_each(&p, g, disp, visit, ctx);
	mpivet_type_close(&p);
	return r;
}

/* type_blocks fills b with the blocks count elements of a derived type t
 * cover (b->full: too many, or unknown). */
static void type_blocks(int count, MPI_Datatype t, struct blocks *b)
{
	int64_t ext = mpivet_type_extent(t);
	for (int i = 0; i < count && !b->full; i++)
		if (visit(b, t, (int64_t)i * ext) != 0)
			b->full = 1;
}

/* basic gives the one basic type of t's type map, from its construction
 * (each group's type, not each copy: a vector of a million ints costs one
 * step); MPI_DATATYPE_NULL when it holds several, or cannot be told. */
static MPI_Datatype basic(MPI_Datatype t, int depth)
{
	struct mpivet_type_parts p;
	int k = mpivet_type_open(t, &p);
	if (k == MPIVET_TYPE_BASIC)
		return t;
	if (k != MPIVET_TYPE_DERIVED)
		return MPI_DATATYPE_NULL;
	MPI_Datatype one = MPI_DATATYPE_NULL;
	int mixed = depth > 32;
	for (int g = 0; g < p.ngroups && !mixed; g++) {
		if (mpivet_type_copies(&p, g) == 0)
			continue;
		MPI_Datatype e = basic(mpivet_type_group(&p, g), depth + 1);
		if (e == MPI_DATATYPE_NULL || (one != MPI_DATATYPE_NULL && e != one))
			mixed = 1;
		one = e;
	}
	mpivet_type_close(&p); /* frees derived parts only: a basic type stays valid */
	return mixed ? MPI_DATATYPE_NULL : one;
}

void mpivet_rma_span(uint64_t logref, int tcount, MPI_Datatype ttype, int ocount, MPI_Datatype otype)
{
	if (logref == MPIVET_NOREC)
		return;
	int64_t v[MPIVET_RMA_WORDS];
	span(tcount, ttype, &v[MPIVET_RMA_TARGET_LB], &v[MPIVET_RMA_TARGET_SPAN]);
	span(ocount, otype, &v[MPIVET_RMA_ORIGIN_LB], &v[MPIVET_RMA_ORIGIN_SPAN]);
	struct blocks b = {.elem = MPI_DATATYPE_NULL};
	struct mpivet_type_parts p;
	MPI_Datatype elem = MPI_DATATYPE_NULL;
	MPI_Aint elb = 0, eext = 0;
	if (tcount > 0 && ttype != MPI_DATATYPE_NULL) {
		int k = mpivet_type_open(ttype, &p);
		elem = k == MPIVET_TYPE_BASIC ? ttype : MPI_DATATYPE_NULL;
		if (k == MPIVET_TYPE_DERIVED) {
			mpivet_type_close(&p);
			type_blocks(tcount, ttype, &b);
			/* every element visited: their type; else from the construction */
			elem = b.full ? basic(ttype, 0) : b.mixed ? MPI_DATATYPE_NULL : b.elem;
		}
		if (elem != MPI_DATATYPE_NULL && PMPI_Type_get_extent(elem, &elb, &eext) != MPI_SUCCESS)
			elem = MPI_DATATYPE_NULL, eext = 0;
	}
	int nb = b.full ? 0 : b.n;
	uint64_t off, n = 1 + MPIVET_RMA_WORDS + 1 + 2 * (uint64_t)nb + 2;
	uint64_t *w = mpivet_begin(n, &off);
	if (!w)
		return;
	w[0] = logref;
	for (int i = 0; i < MPIVET_RMA_WORDS; i++)
		w[1 + i] = (uint64_t)v[i];
	uint64_t *x = w + 1 + MPIVET_RMA_WORDS;
	x[0] = (uint64_t)nb;
	for (int i = 0; i < nb; i++)
		x[1 + 2 * i] = (uint64_t)b.off[i], x[2 + 2 * i] = (uint64_t)b.len[i];
	x[1 + 2 * nb] = elem == MPI_DATATYPE_NULL ? 0 : MPIVET_H(elem);
	x[2 + 2 * nb] = (uint64_t)eext;
	mpivet_commit(off, n, MPIVET_META_RMA, MPIVET_KIND_META);
}

int *mpivet_rma_world_ranks(MPI_Group g, int *n)
{
	MPI_Group world;
	*n = 0;
	if (g == MPI_GROUP_NULL || PMPI_Group_size(g, n) != MPI_SUCCESS || *n <= 0)
		return NULL;
	int *in = malloc(2 * (size_t)*n * sizeof(int));
	if (!in || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
		free(in);
		return NULL;
	}
	for (int i = 0; i < *n; i++)
		in[i] = i;
	int rc = PMPI_Group_translate_ranks(g, *n, in, world, in + *n);
	PMPI_Group_free(&world);
	if (rc != MPI_SUCCESS) {
		free(in);
		return NULL;
	}
	memmove(in, in + *n, (size_t)*n * sizeof(int));
	return in;
}

void mpivet_rma_group(uint64_t logref, MPI_Group group)
{
	int n = 0;
	int *ranks = logref == MPIVET_NOREC ? NULL : mpivet_rma_world_ranks(group, &n);
	if (!ranks)
		return;
	uint64_t off;
	uint64_t *w = mpivet_begin(2 + (uint64_t)n, &off);
	if (w) {
		w[0] = logref;
		w[1] = (uint64_t)n;
		for (int i = 0; i < n; i++)
			w[2 + i] = (uint64_t)(int64_t)ranks[i];
		mpivet_commit(off, 2 + (uint64_t)n, MPIVET_META_RMA, MPIVET_KIND_META);
	}
	free(ranks);
}
