/*
 * collectives/: what a collective call gives and takes (decode.h). Above
 * the record layer and the datatype walker, below the signatures and the
 * buffer checker, which both read collectives through it: the two used to
 * decode them each its own way, and drifted apart (the buffer checker
 * ignored the neighbourhood collectives, and knew Fortran's MPI_IN_PLACE
 * where the signatures knew only C's).
 *
 * The parameters come from the generated tables of generated/ids.h, as
 * positions among the parameters (k_: what the clock protocol's and
 * signatures' hooks see) or among the buffer checker's hook words (w_).
 */
#define _GNU_SOURCE
#include "decode.h"
#include "../record/record.h"
#include "../generated/ids.h"
#include "../datatypes/walk.h"

#include <dlfcn.h>
#include <string.h>

__thread int mpivet_large_arrays __attribute__((tls_model("initial-exec")));

/* ---- MPI_IN_PLACE ----
 *
 * C's MPI_IN_PLACE is a constant; each Fortran binding passes a variable of
 * its own instead, by address: Open MPI's `use mpi` and `use mpi_f08` a
 * common block (mpi_fortran_in_place_, or without the underscore for other
 * compilers), MPICH's `use mpi_f08` MPIR_F08_MPI_IN_PLACE (the base address
 * of its descriptor), and MPICH's F77 and `use mpi` a variable that
 * MPIR_F_MPI_IN_PLACE points to once the binding has been called (a C
 * program's Fortran part may call it long after MPI_Init). */
static uint64_t in_place[4];
static void *const *mpich_f77;
static int in_place_known;

static void find_in_place(void)
{
	static const char *const syms[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place", "MPIR_F08_MPI_IN_PLACE", NULL};
	int k = 0;
	in_place[k++] = MPIVET_A(MPI_IN_PLACE);
	for (int i = 0; syms[i] && k < 4; i++) {
		void *s = dlsym(RTLD_DEFAULT, syms[i]);
		if (s)
			in_place[k++] = MPIVET_A(s);
	}
	mpich_f77 = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE");
	__atomic_store_n(&in_place_known, 1, __ATOMIC_RELEASE);
}

int mpivet_coll_in_place(uint64_t addr)
{
	if (!__atomic_load_n(&in_place_known, __ATOMIC_ACQUIRE))
		find_in_place();
	for (int i = 0; i < 4; i++)
		if (in_place[i] && addr == in_place[i])
			return 1;
	return mpich_f77 && *mpich_f77 && addr == MPIVET_A(*mpich_f77);
}

/* ---- Families ---- */

static int family(unsigned call)
{
	switch (call) {
	case MPIVET_ID_MPI_Bcast: case MPIVET_ID_MPI_Ibcast:
		return MPIVET_COLL_BCAST;
	case MPIVET_ID_MPI_Reduce: case MPIVET_ID_MPI_Ireduce:
		return MPIVET_COLL_REDUCE;
	case MPIVET_ID_MPI_Allreduce: case MPIVET_ID_MPI_Iallreduce: case MPIVET_ID_MPI_Scan: case MPIVET_ID_MPI_Iscan:
	case MPIVET_ID_MPI_Exscan: case MPIVET_ID_MPI_Iexscan:
		return MPIVET_COLL_ALLREDUCE;
	case MPIVET_ID_MPI_Reduce_scatter: case MPIVET_ID_MPI_Ireduce_scatter:
	case MPIVET_ID_MPI_Reduce_scatter_block: case MPIVET_ID_MPI_Ireduce_scatter_block:
		return MPIVET_COLL_REDUCE_SCATTER;
	case MPIVET_ID_MPI_Gather: case MPIVET_ID_MPI_Igather: case MPIVET_ID_MPI_Gatherv: case MPIVET_ID_MPI_Igatherv:
		return MPIVET_COLL_GATHER;
	case MPIVET_ID_MPI_Scatter: case MPIVET_ID_MPI_Iscatter: case MPIVET_ID_MPI_Scatterv: case MPIVET_ID_MPI_Iscatterv:
		return MPIVET_COLL_SCATTER;
	case MPIVET_ID_MPI_Allgather: case MPIVET_ID_MPI_Iallgather: case MPIVET_ID_MPI_Allgatherv: case MPIVET_ID_MPI_Iallgatherv:
		return MPIVET_COLL_ALLGATHER;
	case MPIVET_ID_MPI_Alltoall: case MPIVET_ID_MPI_Ialltoall: case MPIVET_ID_MPI_Alltoallv: case MPIVET_ID_MPI_Ialltoallv:
	case MPIVET_ID_MPI_Alltoallw: case MPIVET_ID_MPI_Ialltoallw:
		return MPIVET_COLL_ALLTOALL;
	case MPIVET_ID_MPI_Neighbor_allgather: case MPIVET_ID_MPI_Ineighbor_allgather:
	case MPIVET_ID_MPI_Neighbor_allgatherv: case MPIVET_ID_MPI_Ineighbor_allgatherv:
		return MPIVET_COLL_NEIGHBOR_ALLGATHER;
	case MPIVET_ID_MPI_Neighbor_alltoall: case MPIVET_ID_MPI_Ineighbor_alltoall:
	case MPIVET_ID_MPI_Neighbor_alltoallv: case MPIVET_ID_MPI_Ineighbor_alltoallv:
	case MPIVET_ID_MPI_Neighbor_alltoallw: case MPIVET_ID_MPI_Ineighbor_alltoallw:
		return MPIVET_COLL_NEIGHBOR_ALLTOALL;
	}
	return MPIVET_COLL_NONE;
}

/* ---- Parameters ---- */

/* Where the parameters are: the hooks' views of them (k) or the buffer
 * checker's words (w), which hold every one as a word already. */
struct src {
	void *const *k;
	const uint64_t *w;
};

enum { F_INT, F_PTR, F_TYPE, F_COMM };

static uint64_t get(const struct src *s, int pos, int kind)
{
	if (pos < 0)
		return 0;
	if (s->w)
		return s->w[pos];
	const void *p = s->k[pos];
	switch (kind) {
	case F_INT:
		return MPIVET_I(*(const int *)p);
	case F_PTR:
		return MPIVET_A(*(void *const *)p);
	case F_TYPE:
		return MPIVET_H(*(const MPI_Datatype *)p);
	}
	return MPIVET_H(*(const MPI_Comm *)p);
}

static void fill_side(const struct src *s, struct mpivet_coll_side *d, int kb, int kc, int per_rank, int kd, int kt, int kts)
{
	d->buf = get(s, kb, F_PTR);
	d->in_place = kb >= 0 && mpivet_coll_in_place(d->buf);
	d->per_rank = per_rank != 0;
	d->large = mpivet_large_arrays;
	if (per_rank)
		d->counts = (const void *)(uintptr_t)get(s, kc, F_PTR);
	else
		d->count = (int64_t)get(s, kc, F_INT);
	d->displs = (const void *)(uintptr_t)get(s, kd, F_PTR);
	d->type = kt >= 0 ? (MPI_Datatype)(uintptr_t)get(s, kt, F_TYPE) : MPI_DATATYPE_NULL;
	d->types = (const MPI_Datatype *)(uintptr_t)get(s, kts, F_PTR);
}

static int fill(unsigned call, const struct src *s, struct mpivet_coll *c)
{
#define POS(f) ((s->w ? mpivet_call_w_##f : mpivet_call_k_##f)[call])
	memset(c, 0, sizeof *c);
	c->call = call;
	c->family = family(call);
	c->root = -1;
	int kc = s->w ? mpivet_call_w_comm[call] : mpivet_call_k_comm[call];
	if (c->family == MPIVET_COLL_NONE || kc < 0)
		return 0;
	c->comm = (MPI_Comm)(uintptr_t)get(s, kc, F_COMM);
	if (POS(root) >= 0)
		c->root = (int)get(s, POS(root), F_INT);
	c->w = POS(sendtypes) >= 0;
	c->aint_displs = call == MPIVET_ID_MPI_Neighbor_alltoallw || call == MPIVET_ID_MPI_Ineighbor_alltoallw ||
			 call == MPIVET_ID_MPI_Neighbor_alltoallw_init || mpivet_large_arrays;
	int f = mpivet_call_flags[call];
	fill_side(s, &c->send, POS(sendbuf), POS(sendcount), f & MPIVET_CALL_VSEND, POS(sdispls), POS(sendtype), POS(sendtypes));
	fill_side(s, &c->recv, POS(recvbuf), POS(recvcount), f & MPIVET_CALL_VRECV, POS(rdispls), POS(recvtype), POS(recvtypes));
#undef POS
	switch (c->family) {
	case MPIVET_COLL_BCAST: /* one buffer, both ways */
		c->recv = c->send;
		break;
	case MPIVET_COLL_REDUCE:
	case MPIVET_COLL_ALLREDUCE: /* one count and datatype */
		c->recv.count = c->send.count;
		c->recv.type = c->send.type;
		break;
	case MPIVET_COLL_REDUCE_SCATTER: /* one datatype; the count (or counts) is the result's */
		c->send.per_rank = c->recv.per_rank;
		c->send.count = c->recv.count;
		c->send.counts = c->recv.counts;
		c->recv.type = c->send.type;
		break;
	}
	return 1;
}

int mpivet_coll_params(unsigned call, void *const *k, struct mpivet_coll *c)
{
	struct src s = {k, NULL};
	return fill(call, &s, c);
}

int mpivet_coll_words(unsigned call, const uint64_t *w, struct mpivet_coll *c)
{
	struct src s = {NULL, w};
	return fill(call, &s, c);
}

/* ---- Where the rank stands ---- */

int mpivet_coll_where(const struct mpivet_coll *c, int *rank, int *size)
{
	int inter = 1;
	*rank = *size = 0;
	if (c->comm == MPI_COMM_NULL || PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter)
		return 0;
	PMPI_Comm_rank(c->comm, rank);
	PMPI_Comm_size(c->comm, size);
	return 1;
}

int mpivet_coll_sides(const struct mpivet_coll *c, int rank)
{
	int root = rank == c->root, sides = 0;
	switch (c->family) {
	case MPIVET_COLL_NONE:
		return 0;
	case MPIVET_COLL_BCAST:
		return root ? MPIVET_COLL_SENDS : MPIVET_COLL_RECVS;
	}
	if (!c->send.in_place && (c->family != MPIVET_COLL_SCATTER || root))
		sides |= MPIVET_COLL_SENDS;
	if (!c->recv.in_place && ((c->family != MPIVET_COLL_GATHER && c->family != MPIVET_COLL_REDUCE) || root))
		sides |= MPIVET_COLL_RECVS;
	return sides;
}

int64_t mpivet_coll_total(const struct mpivet_coll_side *s, int size, int skip)
{
	if (!s->per_rank)
		return s->count;
	int64_t n = 0;
	for (int i = 0; s->counts && i < size; i++)
		if (i != skip)
			n += mpivet_coll_count(s, i);
	return n;
}

/* ---- Blocks of memory ---- */

struct blocks {
	const struct mpivet_coll *c;
	void (*fn)(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t);
	void *ctx;
	int topo; /* the communicator's topology (neighbourhood collectives) */
};

/* one gives block i of a side with counts and displacements per rank. */
static void one(const struct blocks *b, const struct mpivet_coll_side *s, int recv, int i, int64_t ext)
{
	const struct mpivet_coll *c = b->c;
	if (!s->counts || !s->displs || (c->w && !s->types))
		return;
	MPI_Datatype t = c->w ? s->types[i] : s->type;
	int64_t d = c->aint_displs ? (int64_t)((const MPI_Aint *)s->displs)[i] : (int64_t)((const int *)s->displs)[i];
	b->fn(b->ctx, recv, s->buf + (c->w ? d : d * ext), mpivet_coll_count(s, i), t);
}

/* all gives the blocks of a side for n ranks: one block of n counts, or
 * one per rank. */
static void all(const struct blocks *b, const struct mpivet_coll_side *s, int recv, int n)
{
	if (!s->per_rank) {
		b->fn(b->ctx, recv, s->buf, (int64_t)n * s->count, s->type);
		return;
	}
	int64_t ext = b->c->w ? 0 : mpivet_type_extent(s->type);
	for (int i = 0; i < n; i++)
		one(b, s, recv, i, ext);
}

/* neighbours gives the in- and out-degree of comm's topology (0 without). */
static int neighbours(MPI_Comm comm, int rank, int *in, int *out)
{
	int kind = MPI_UNDEFINED, weighted;
	*in = *out = 0;
	if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
		return MPI_UNDEFINED;
	if (kind == MPI_CART) {
		int nd = 0;
		PMPI_Cartdim_get(comm, &nd);
		*in = *out = 2 * nd; /* each dimension's negative, then positive neighbour */
	} else if (kind == MPI_GRAPH) {
		PMPI_Graph_neighbors_count(comm, rank, in);
		*out = *in;
	} else if (kind == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
	}
	return kind;
}

/* absent reports whether neighbour i is MPI_PROC_NULL (the edge of a grid
 * that is not periodic): its blocks are not accessed. */
static int absent(const struct blocks *b, int i)
{
	int src, dst;
	if (b->topo != MPI_CART || PMPI_Cart_shift(b->c->comm, i / 2, 1, &src, &dst) != MPI_SUCCESS)
		return 0;
	return (i % 2 ? dst : src) == MPI_PROC_NULL;
}

/* each_neighbour gives a side's block for each of n neighbours. */
static void each_neighbour(const struct blocks *b, const struct mpivet_coll_side *s, int recv, int n)
{
	int64_t ext = b->c->w ? 0 : mpivet_type_extent(s->type);
	for (int i = 0; i < n; i++) {
		if (absent(b, i))
			continue;
		if (s->per_rank)
			one(b, s, recv, i, ext);
		else
			b->fn(b->ctx, recv, s->buf + i * s->count * ext, s->count, s->type);
	}
}

void mpivet_coll_blocks(const struct mpivet_coll *c, int rank, int size,
			void (*fn)(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t), void *ctx)
{
	struct blocks b = {c, fn, ctx, MPI_UNDEFINED};
	const struct mpivet_coll_side *s = &c->send, *r = &c->recv;
	int sides = mpivet_coll_sides(c, rank), S = sides & MPIVET_COLL_SENDS, R = sides & MPIVET_COLL_RECVS, in, out;
	switch (c->family) {
	case MPIVET_COLL_BCAST:
		fn(ctx, !S, s->buf, s->count, s->type);
		break;
	case MPIVET_COLL_REDUCE:
	case MPIVET_COLL_ALLREDUCE:
		if (S)
			fn(ctx, 0, s->buf, s->count, s->type);
		if (R)
			fn(ctx, 1, r->buf, r->count, r->type);
		break;
	case MPIVET_COLL_REDUCE_SCATTER: /* the whole vector goes in, each rank's block comes out */
		if (S)
			fn(ctx, 0, s->buf, s->per_rank ? mpivet_coll_total(s, size, -1) : (int64_t)size * s->count, s->type);
		if (R && (!r->per_rank || r->counts))
			fn(ctx, 1, r->buf, r->per_rank ? mpivet_coll_count(r, rank) : r->count, r->type);
		break;
	case MPIVET_COLL_GATHER:
	case MPIVET_COLL_ALLGATHER:
		if (S)
			fn(ctx, 0, s->buf, s->count, s->type);
		if (R)
			all(&b, r, 1, size);
		break;
	case MPIVET_COLL_SCATTER:
		if (S)
			all(&b, s, 0, size);
		if (R)
			fn(ctx, 1, r->buf, r->count, r->type);
		break;
	case MPIVET_COLL_ALLTOALL: {
		if (!s->per_rank) {
			if (S)
				all(&b, s, 0, size);
			if (R)
				all(&b, r, 1, size);
			break;
		}
		int64_t se = c->w ? 0 : mpivet_type_extent(s->type), re = c->w ? 0 : mpivet_type_extent(r->type);
		for (int i = 0; i < size; i++) { /* in the order the blocks are exchanged */
			if (S)
				one(&b, s, 0, i, se);
			if (R)
				one(&b, r, 1, i, re);
		}
		break;
	}
	case MPIVET_COLL_NEIGHBOR_ALLGATHER: /* one block to every neighbour, a block from each */
		b.topo = neighbours(c->comm, rank, &in, &out);
		if (S && out > 0)
			fn(ctx, 0, s->buf, s->count, s->type);
		if (R)
			each_neighbour(&b, r, 1, in);
		break;
	case MPIVET_COLL_NEIGHBOR_ALLTOALL:
		b.topo = neighbours(c->comm, rank, &in, &out);
		if (S)
			each_neighbour(&b, s, 0, out);
		if (R)
			each_neighbour(&b, r, 1, in);
		break;
	}
}
