/*
 * mpivet interposition layer: what one-sided calls need beyond their
 * parameters (rma.c). Called by the generated wrappers only.
 */
#ifndef MPIVET_RMA_H
#define MPIVET_RMA_H

#include <mpi.h>
#include <stdint.h>

void mpivet_rma_span(uint64_t logref, int tcount, MPI_Datatype ttype, int ocount, MPI_Datatype otype);
void mpivet_rma_group(uint64_t logref, MPI_Group group);
/* mpivet_rma_world_ranks gives the world ranks of group g's members (n of
 * them), malloc'ed; NULL for none or on failure. Shared with values.c. */
int *mpivet_rma_world_ranks(MPI_Group g, int *n);

/* values.c: the target's stores into a fence epoch's Put bytes */
void mpivet_rma_created(MPI_Win win, void *base, MPI_Aint size, int disp_unit, MPI_Comm comm);
void mpivet_rma_freed(MPI_Win win);
void mpivet_rma_sync(MPI_Win win);
void mpivet_rma_put(uint64_t logref, const void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
		    MPI_Datatype ttype, MPI_Win win);
void mpivet_rma_fence_pre(MPI_Win win);
void mpivet_rma_fence_post(uint64_t logref, int assertion, MPI_Win win);
void mpivet_rma_start(MPI_Group group, MPI_Win win);
void mpivet_rma_complete(MPI_Win win);
void mpivet_rma_post(MPI_Group group, MPI_Win win);
void mpivet_rma_wait(uint64_t logref, MPI_Win win);

#endif
