/*
 * Deferred receives (deferred.c), above world.c: wildcard MPI_Irecv held
 * back from the MPI until decided.
 * Hidden in the library.
 */
#ifndef MPIVET_DT_DEFERRED_H
#define MPIVET_DT_DEFERRED_H

#include "internal.h"

#pragma GCC visibility push(hidden)

int dt_defers(struct dcomm *d, int source, int tag);
struct defer *dt_defer_args(struct dcomm *d, void *buf, int count, MPI_Datatype type, int *source, int *tag, MPI_Comm *comm);
void dt_defer_queue(struct defer *f, struct treq *t);
void dt_flush(struct dcomm *d, int tag);
void dt_defer_wait(struct treq *t);
int dt_defer_test(struct treq *t, uint64_t now);
void dt_defer_status(struct defer *f, MPI_Status *st);
void dt_defer_done(struct treq *t);
void dt_defer_drop(struct treq *t);
void dt_defer_release_all(struct dcomm *d);

#pragma GCC visibility pop

#endif
