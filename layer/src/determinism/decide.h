/*
 * The decisions of deterministic mode (decide.c), above deferred.c and
 * requests.c.
 * Hidden in the library.
 */
#ifndef MPIVET_DT_DECIDE_H
#define MPIVET_DT_DECIDE_H

#include "internal.h"

#pragma GCC visibility push(hidden)

int dt_wild(struct dcomm *d, int *src, int *tag, int claim, struct prc **pp);
int dt_iprobe(struct dcomm *d, int *src, int *tag, MPI_Comm c);
int dt_test_one(struct treq *t, uint64_t now, uint64_t *when);
int dt_left(struct treq *t);
int dt_pick(MPI_Request *hs, int n, int blocking);
enum { DT_TESTSOME, DT_TESTALL, DT_WAITSOME };
int dt_pick_set(MPI_Request *hs, int n, int mode, char *in);
void dt_sync_wait(MPI_Request *hs, int n);

#pragma GCC visibility pop

#endif
