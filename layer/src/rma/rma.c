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
 *     Races are judged on these byte ranges; no type map is logged, so the
 *     record is four words whatever the datatype.
 *   - MPI_Win_post, MPI_Win_start: the group's members as ranks of
 *     MPI_COMM_WORLD, which is how the Go side pairs a start with the posts
 *     it waits for and a complete with the wait it releases.
 *
 * It calls only the recorder (record.h) and PMPI.
 */
#include "../record/record.h"
#include "rma.h"

#include <stdlib.h>

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

void mpivet_rma_span(uint64_t logref, int tcount, MPI_Datatype ttype, int ocount, MPI_Datatype otype)
{
	if (logref == MPIVET_NOREC)
		return;
	int64_t v[MPIVET_RMA_WORDS];
	span(tcount, ttype, &v[MPIVET_RMA_TARGET_LB], &v[MPIVET_RMA_TARGET_SPAN]);
	span(ocount, otype, &v[MPIVET_RMA_ORIGIN_LB], &v[MPIVET_RMA_ORIGIN_SPAN]);
	uint64_t off;
	uint64_t *w = mpivet_begin(1 + MPIVET_RMA_WORDS, &off);
	if (!w)
		return;
	w[0] = logref;
	for (int i = 0; i < MPIVET_RMA_WORDS; i++)
		w[1 + i] = (uint64_t)v[i];
	mpivet_commit(off, 1 + MPIVET_RMA_WORDS, MPIVET_META_RMA, MPIVET_KIND_META);
}

void mpivet_rma_group(uint64_t logref, MPI_Group group)
{
	int n = 0;
	if (logref == MPIVET_NOREC || group == MPI_GROUP_NULL || PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
		return;
	MPI_Group world;
	int *in = malloc(2 * (size_t)n * sizeof(int));
	if (!in || PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
		free(in);
		return;
	}
	int *out = in + n;
	for (int i = 0; i < n; i++)
		in[i] = i;
	int rc = PMPI_Group_translate_ranks(group, n, in, world, out);
	PMPI_Group_free(&world);
	uint64_t off;
	uint64_t *w = rc == MPI_SUCCESS ? mpivet_begin(2 + (uint64_t)n, &off) : NULL;
	if (w) {
		w[0] = logref;
		w[1] = (uint64_t)n;
		for (int i = 0; i < n; i++)
			w[2 + i] = (uint64_t)(int64_t)out[i];
		mpivet_commit(off, 2 + (uint64_t)n, MPIVET_META_RMA, MPIVET_KIND_META);
	}
	free(in);
}
