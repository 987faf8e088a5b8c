/*
 * The requests deterministic mode follows (requests.c), above world.c.
 * Hidden in the library.
 */
#ifndef MPIVET_DT_REQUESTS_H
#define MPIVET_DT_REQUESTS_H

#include "internal.h"

#pragma GCC visibility push(hidden)

struct treq *dt_track(MPI_Request h, struct prc *p);
struct treq *dt_tfind(MPI_Request h);
void dt_tdrop(struct treq *t);

/* Persistent requests (MPI_*_init) with a known peer: each MPI_Start of
 * one is a send (its header goes first) or a receive (mirrored) the mode
 * follows like an MPI_Isend or MPI_Irecv. A persistent receive from
 * MPI_ANY_SOURCE is left to the MPI (counted): a placeholder cannot stand
 * for a request the MPI starts again and again. */
struct pers {
	MPI_Request h;
	struct dcomm *d;
	int send, peer, tag; /* peer: a rank of d */
	struct pers *next;
};
void dt_pers_new(MPI_Request h, struct dcomm *d, int send, int peer, int tag);
struct pers *dt_pers_find(MPI_Request h);
void dt_pers_free(MPI_Request h);
int dt_inactive(MPI_Request h);

#pragma GCC visibility pop

#endif
