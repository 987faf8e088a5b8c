/*
 * The one decoder of what a collective call gives and takes (collectives/
 * decode.c), for the two parts of the layer that look at collectives' data:
 * the signatures (what each rank gives a collective, for collective-
 * mismatch) and the buffer checker (the buffers of a pending nonblocking
 * collective). Which parameter is which, which calls are of which family,
 * which side is significant on which rank, what MPI_IN_PLACE looks like
 * (from C, and from each MPI's Fortran bindings), and where the blocks of a
 * buffer lie (per rank, per neighbour of a topology) are decided here once.
 */
#ifndef MPIVET_DECODE_H
#define MPIVET_DECODE_H

#include <mpi.h>
#include <stdint.h>

enum mpivet_coll_family {
	MPIVET_COLL_NONE,               /* no data: barriers, communicators being made */
	MPIVET_COLL_BCAST,              /* one buffer: the root's is sent, the others receive */
	MPIVET_COLL_REDUCE,             /* one count and datatype, the result at the root */
	MPIVET_COLL_ALLREDUCE,          /* ... the result on every rank (Allreduce, Scan, Exscan) */
	MPIVET_COLL_REDUCE_SCATTER,     /* ... each rank receives its block of it */
	MPIVET_COLL_GATHER,             /* each rank sends a block, the root receives them all */
	MPIVET_COLL_SCATTER,            /* the root sends each rank a block */
	MPIVET_COLL_ALLGATHER,          /* each rank sends a block, every rank receives them all */
	MPIVET_COLL_ALLTOALL,           /* each rank sends each rank a block */
	MPIVET_COLL_NEIGHBOR_ALLGATHER, /* each rank sends one block to its neighbours, receives one from each */
	MPIVET_COLL_NEIGHBOR_ALLTOALL,  /* each rank sends each neighbour a block, receives one from each */
};

/* One side (send or receive) of a collective, as the rank gave it. */
struct mpivet_coll_side {
	uint64_t buf;              /* the buffer's address */
	int in_place;              /* it is MPI_IN_PLACE (C's, or a Fortran binding's) */
	int per_rank;              /* counts and displacements per rank (or neighbour): v and w variants */
	int64_t count;             /* the count, when not per rank */
	const void *counts;        /* the counts per rank (NULL where they are not significant):
				    * int, or MPI_Count (large: mpivet_coll_count reads them) */
	int large;                 /* a large-count twin's (MPI_Gatherv_c ...): MPI_Count counts,
				    * MPI_Aint displacements */
	const void *displs;        /* displacements per rank: int in elements of type, or in bytes
				    * with types (MPI_Aint for the neighbourhood alltoallw) */
	MPI_Datatype type;         /* the datatype, or */
	const MPI_Datatype *types; /* one per rank (the alltoallw calls) */
};

struct mpivet_coll {
	unsigned call;
	int family;
	int root;        /* -1: not rooted */
	int w;           /* a datatype per rank, displacements in bytes (the alltoallw calls) */
	int aint_displs; /* ... as MPI_Aint (MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw) */
	MPI_Comm comm;
	struct mpivet_coll_side send, recv;
};

/* mpivet_large_arrays is set by the wrapper of a large-count twin whose
 * counts and displacements are arrays (MPI_Gatherv_c: MPI_Count and
 * MPI_Aint where MPI_Gatherv has int) while the layer looks at its
 * parameters: the twin is the call to the checks, with wider arrays. */
extern __thread int mpivet_large_arrays __attribute__((tls_model("initial-exec")));

/* mpivet_coll_count is count i of a side with counts per rank. */
static inline int64_t mpivet_coll_count(const struct mpivet_coll_side *s, int i)
{
	return s->large ? (int64_t)((const MPI_Count *)s->counts)[i] : (int64_t)((const int *)s->counts)[i];
}

/* mpivet_coll_params decodes collective call from its parameters as the
 * wrappers' hooks see them (k[i] points to parameter i); 0 if the call
 * gives no data. */
int mpivet_coll_params(unsigned call, void *const *k, struct mpivet_coll *c);

/* mpivet_coll_words decodes it from the words the buffer checker's entry
 * hook gets (generated/ids.h: mpivet_call_w_*); 0 if there are none. */
int mpivet_coll_words(unsigned call, const uint64_t *w, struct mpivet_coll *c);

/* mpivet_coll_where gives the rank's place in the communicator; 0 for a
 * null communicator or an intercommunicator (whose groups give different
 * things: not decoded). */
int mpivet_coll_where(const struct mpivet_coll *c, int *rank, int *size);

/* mpivet_coll_sides says which sides are significant on rank: the data it
 * sends (MPIVET_COLL_SENDS) and the data it receives (MPIVET_COLL_RECVS);
 * not a side in place. */
enum { MPIVET_COLL_SENDS = 1, MPIVET_COLL_RECVS = 2 };
int mpivet_coll_sides(const struct mpivet_coll *c, int rank);

/* mpivet_coll_total gives the count of a side: its count, or the sum of its
 * counts per rank but skip's (-1: none). */
int64_t mpivet_coll_total(const struct mpivet_coll_side *s, int size, int skip);

/* mpivet_coll_blocks calls fn for every block of memory the call reads
 * (recv 0) or writes (recv 1) on rank: count elements of t at buf. Blocks
 * of a neighbour that is MPI_PROC_NULL are not accessed, and not given. */
void mpivet_coll_blocks(const struct mpivet_coll *c, int rank, int size,
			void (*fn)(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t), void *ctx);

/* mpivet_coll_in_place reports whether a buffer address is MPI_IN_PLACE. */
int mpivet_coll_in_place(uint64_t addr);

#endif
