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

#endif
