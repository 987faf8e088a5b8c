/*
 * What the files of deterministic mode share: its structures, and the
 * world clock and control channel of world.c, the bottom file (world.c says
 * what the mode does and which file does what). The files above it have a
 * header each, including this one: requests.h, deferred.h, decide.h; hooks.c
 * is the top. Hidden in the library.
 */
#ifndef MPIVET_DT_INTERNAL_H
#define MPIVET_DT_INTERNAL_H

#include "determinism.h"
#include "../generated/ids.h"

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* ---- The world clock and the control channel (world.c) ---- */

/* A communicator the mode knows: every member agreed on its id when it was
 * created, so a header names it across ranks. */
struct dcomm {
	MPI_Comm c;
	uint64_t id;
	int size, rank;
	int *world; /* world rank of each member */
	struct defer *qhead, *qtail; /* receives deferred behind a wildcard (deferred.c) */
	struct dcomm *next;
	/* deferred receives on it not yet ended: a communicator the program
	 * frees with receives pending lives on until they complete (freed) */
	int refs, freed;
};

struct prc;

/* A header: a message some rank sent this one, announced on the control
 * channel before the message itself, with its logical time. */
struct hdr {
	struct hdr *next, *prev;
	uint64_t stamp, cid;
	int src; /* world rank */
	int tag;
	struct prc *claim; /* the receive that takes it (the MPI's matching, mirrored) */
};

/* A posted receive with a known source, in posting order: it takes the
 * first header of its source that it matches and no earlier receive took. */
struct prc {
	struct prc *next, *prev;
	uint64_t cid, post; /* post: the logical time it was posted */
	int src, tag;       /* world rank; tag or MPI_ANY_TAG */
	struct hdr *h;
};

/* A receive deferred.c holds back from the MPI: the program holds a
 * placeholder; the real one is posted once decided. */
struct defer {
	struct dcomm *d;
	struct treq *t;
	struct defer *qnext; /* d's queue, in posting order */
	struct defer *next;  /* posted, not yet fired */
	void *buf;
	int count;
	MPI_Datatype type;
	int any, src, tag; /* a wildcard; else the source (a rank of d) */
	int ptag;          /* the placeholder's tag */
	int queued, fired; /* in the queue; its placeholder completed */
	MPI_Request inner; /* the real receive, once posted */
	MPI_Status st;     /* ... and its status */
};

/* A nonblocking operation the mode follows, by handle. */
struct treq {
	struct treq *next;
	MPI_Request h;
	uint64_t post;
	struct prc *p;    /* a receive's (mirrored); NULL for a send or an undecided deferred receive */
	struct defer *df; /* a deferred receive */
};

extern uint64_t dt_lt;       /* the rank's logical time: +1 at every call */
extern int dt_me, dt_np;
extern uint64_t *dt_lb;      /* the world clock: every later message of rank k has a stamp > dt_lb[k] */
extern uint64_t dt_k;     /* K: a completion is seen K logical steps after the call */
extern uint64_t dt_seed;
extern MPI_Request dt_dummy; /* a receive that never completes, shown to a Test that must fail */
extern struct hdr *dt_hhead, *dt_htail;
extern struct prc *dt_phead, *dt_ptail;
extern struct dcomm *dt_comms;
extern MPI_Comm dt_selfc;
extern uint64_t dt_st_wild, dt_st_polls, dt_st_relaxed, dt_st_ctl, dt_st_uncovered;

/* The sources the rank is blocked on (world ranks), for the answers. */
extern int *dt_wsrc, dt_nwsrc, dt_capwsrc;

void dt_start(void);
void dt_finish(void);
struct dcomm *dt_comm(MPI_Comm c);
void dt_comm_new(MPI_Comm c);
void dt_comm_free(MPI_Comm c);
void dt_comm_unref(struct dcomm *d);
void dt_header(int dest, int tag, MPI_Comm c);
void dt_drain(void);
void dt_answer_all(void);
void dt_need(int k, uint64_t t);
uint64_t dt_key(int world);
struct prc *dt_post_recv(struct dcomm *d, int world, int tag);
void dt_claim(struct prc *p, struct hdr *h);
void dt_complete(struct prc *p);
void dt_complete_wild(struct dcomm *d, int src, int tag);
void dt_unpost(struct prc *p);
void dt_wait_add(int world);
void dt_wait_on(struct dcomm *d, int world);
void dt_wait_done(void);

/* dt_progress, when set, is run at every entry and in every wait
 * (dt_drain): the work a file above has to do then (deferred.c's
 * placeholders of completed receives). */
extern void (*dt_progress)(void);

/* What the world clock tells a decision: the earliest message, whether
 * every possible source has passed a time (decide.c, deferred.c). While
 * dt_relaxing (a decision taken relaxed), every rank counts as having
 * passed every time. */
extern int dt_relaxing;
struct hdr *dt_earliest(struct dcomm *d, int world, int tag, uint64_t upto);
int dt_settled(struct dcomm *d, int world, uint64_t t);

/* A wait of the mode: spin on the MPI, the control channel and the
 * answers until ready says so; 0 if it had to give up (a deterministic
 * deadlock: the caller relaxes its decision). */
typedef int (*dt_ready)(void *arg);
int dt_wait(dt_ready ready, void *arg, int relaxable);

#pragma GCC visibility pop

#endif
