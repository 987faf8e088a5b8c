#ifndef MPIVET_SIGNATURE_H
#define MPIVET_SIGNATURE_H

#include <mpi.h>
#include <stdint.h>

/* Datatype signatures (signatures/signature.c): 0 unknown, else comparable
 * words (api.Sig*). */
uint64_t mpivet_sig(MPI_Datatype t);
void mpivet_sig_forget(MPI_Datatype t);
int mpivet_sig_packed(uint64_t s);
void mpivet_coll_types(unsigned call, uint64_t logref, void **k);

#endif
