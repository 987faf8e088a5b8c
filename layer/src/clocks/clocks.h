#ifndef MPIVET_CLOCKS_H
#define MPIVET_CLOCKS_H

#include "../record/record.h"

/* The clock protocol (clocks/): Lamport or vector clocks piggybacked on
 * every message through a shadow communicator, wildcard events and late
 * messages logged, guided replay of recorded decisions. The hooks see the
 * wrapper's parameters by address (k[i] points to parameter i; ids.h names
 * the positions) and may rewrite them before the MPI call. */
extern int mpivet_ck_on;
/* mpivet_ck_forcing is set when a guided replay decides some of the rank's
 * events: its hooks must see every poll before the MPI does. */
extern int mpivet_ck_forcing;
void mpivet_ck_pre(unsigned call, uint64_t logref, void **k);
void mpivet_ck_post(unsigned call, uint64_t logref, void **k, int rc);

/* mpivet_ck_foreign says whether c has processes that mpivet did not
 * launch (spawned, or met through a port or a socket), which run without
 * the layer: the layer must not add a collective of its own on c. */
int mpivet_ck_foreign(MPI_Comm c);

#endif
