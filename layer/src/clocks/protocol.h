/*
 * What the files of the clock protocol share (clocks/core.c says what the
 * protocol does, and which file does what). Not seen outside clocks/: the
 * wrappers see clocks.h. Everything declared here is hidden in the
 * library: none of it may take the place of a program's own symbol.
 */
#ifndef MPIVET_PROTOCOL_H
#define MPIVET_PROTOCOL_H

#include "clocks.h"
#include "../generated/ids.h"
#include "../signatures/signature.h"

#pragma GCC visibility push(hidden)

/* ---- The rank's clock and the protocol's state (core.c) ---- */

enum { OFF = MPIVET_CLOCKS_OFF, LAMPORT = MPIVET_CLOCKS_LAMPORT, VECTOR = MPIVET_CLOCKS_VECTOR };
extern int mode; /* from layer.conf: clocks=lamport|vector|off */
/* Piggybacks and event records are on (mode is not OFF). Without them the
 * hooks still track receives and communicators and count messages, for the
 * messages never received (unreceived.c). */
extern int clocking;
extern uint64_t nsent, nreceived; /* messages sent and received by this rank */
extern int me, np;                /* rank and size in MPI_COMM_WORLD */
extern uint64_t *clk;             /* 1 word (Lamport) or np words (vector) */
extern int pbn;                   /* clock words piggybacked */
extern int pbw;                   /* words piggybacked: the clock, the send's type signature and call site */
/* Wildcard events this thread started, numbered per thread: the thread's
 * identity (mpivet_thread_id, the same in every run; 0 for the initial
 * thread) in the high 32 bits, so that the main thread's events are
 * numbered 0, 1, 2... as with one. */
extern __thread uint64_t events __attribute__((tls_model("initial-exec")));
extern uint64_t newest;           /* own clock at the newest matched wildcard event */
extern int matched_any;           /* some wildcard event has matched */
extern int quiet;                 /* inside MPI_Pcontrol(0) ... MPI_Pcontrol(1): do not explore */

/* Guided replay: the forced sources of this rank's events, by event number,
 * with the kind of event each decision is for (0: any kind). A Waitsome can
 * be forced to a set of indexes: one line per index. */
extern uint64_t *forced_event;
extern int *forced_src, *forced_kind;
extern size_t nforced;

static inline uint64_t *own(void) { return mode == VECTOR ? &clk[me] : &clk[0]; }

void ck_log_event(unsigned id, const uint64_t *w, uint64_t n);

/* Several threads (MPI_THREAD_MULTIPLE): the hooks hold ck_mu while they
 * update the tables, never across the program's MPI call; what blocks for
 * other ranks (the layer's own collectives, a wait for another rank's
 * clock collective) runs with ck_mu released: ck_unlock, ck_relock. */
extern int ck_threads;
void ck_enter(void);
void ck_leave(void);
void ck_unlock(void);
void ck_relock(void);
void ck_merge(const uint64_t *pb);
void ck_record_clocks(int m, const char *why);

/* ---- Scale statistics (stats.c), printed when MPIVET_SCALE_STATS=1 ---- */

extern uint64_t ck_pb_msgs, ck_pb_bytes;     /* piggybacks sent, and their bytes */
extern uint64_t ck_coll_syncs, ck_coll_bytes; /* collectives' clock exchanges, and the clock bytes each rank gives */
void ck_print_stats(void);

/* ---- Shadow communicators (shadows.c) ---- */

struct shadow {
	uint64_t key; /* the program's communicator */
	MPI_Comm comm, sh;
	MPI_Group peers; /* the group sources are ranks of (remote group of an intercomm) */
	uint64_t serial; /* per-rank number: handles are reused, serials are not */
	int inter;
	int me; /* this rank in comm (-1: an intercommunicator, whose sends go to the other group) */
	/* The receives pending on it (struct req's sh): a communicator the
	 * program frees with receives pending lives on until they complete
	 * (MPI 4.0 §7.4.3), and so does its shadow, on which their piggybacks
	 * come. freed: the program has freed it (no longer found by handle). */
	int refs, freed; /* refs: also the clock collectives pending on it */
	/* Several threads' receives took messages on it at once: a piggyback
	 * taken may be another message's of the same source and tag, so the
	 * type signatures of its messages are no longer compared. */
	int inflight, mixed;
};
/* an open-addressing table of capshadows slots of the live shadows (NULL:
 * empty, ck_tomb: deleted) */
extern struct shadow **shadows, ck_tomb;
extern size_t nshadows, capshadows;
extern MPI_Group world_group;

struct shadow *ck_find(MPI_Comm c);
void ck_shadow_of(MPI_Comm c, MPI_Comm sh);
void ck_shadow_dup(MPI_Comm c, unsigned call);
void ck_joined(int n, unsigned call);
void ck_shadow_free(MPI_Comm c);
void ck_shadow_hold(struct shadow *s);
void ck_shadow_release(struct shadow *s);
int ck_world(struct shadow *s, int r);

/* ---- Piggybacks (piggybacks.c) ---- */

extern int broken; /* a message came without its piggyback: none is expected any more */

void ck_ring_init(void);
void ck_ring_flush(void);
void ck_send_pb(int dest, int tag, MPI_Comm c, uint64_t sig);
int ck_await_pb(uint64_t *pb, int src, int tag, MPI_Comm sh, double limit);
void ck_take_pb(uint64_t *pb, int src, int tag, struct shadow *s);
void ck_break(const char *why);
uint64_t *ck_scratch_pb(void);
void ck_check_types(const uint64_t *pb, uint64_t rsig, struct shadow *s, const MPI_Status *st, uint64_t pc);

/* ---- Requests and the call in progress (requests.c) ---- */

enum { RECV = 1, PRECV, PSEND, COLL, PCOLL }; /* PCOLL: a persistent collective (MPI 4.0) */

struct req {
	MPI_Request h;
	/* busy: the thread (number + 1) whose completion call has it, at
	 * cur.rsnap[snapi]; while that call is in the MPI, which may have freed
	 * its handle, another thread's lookups skip it (ck_rfind) */
	unsigned busy;
	int snapi;
	int kind, active, queued; /* queued: its piggyback is still to come */
	int brings;                /* PCOLL: its clock collective brings clocks here */
	int nostatus;              /* MPI_Isendrecv(_replace): the MPI's status of it says nothing (MPICH 4.0) */
	int wild, src, tag, orig_src; /* src as posted (after forcing); orig_src as the program wrote it */
	int dest;                     /* persistent send */
	struct shadow *sh;
	uint64_t event, before, logref, seq;
	struct req *qprev, *qnext; /* receives whose piggyback is still to come, in posting order */
	struct req *hnext;         /* hash chain */
	MPI_Request aux;           /* clock collective of a nonblocking collective */
	uint64_t pc;               /* the call site that posted it */
	uint64_t *buf;             /* its clocks */
	unsigned owner;            /* the thread that posted it (mpivet_thread_no) */
	/* The signature of its datatype, taken when it was made: the program
	 * may free the datatype while the request is pending, or persistent. */
	uint64_t sig;
	/* persistent receive, to re-create it with a forced source (type: the
	 * layer's own reference, mpivet_type_hold) */
	void *pbuf;
	int count;
	MPI_Datatype type;
	MPI_Comm comm;
	MPI_Comm *newcomm; /* MPI_Comm_idup: the new communicator, valid at completion */
	MPI_Comm idup;     /* ... and its shadow, valid once aux completes */
	/* a receive that a Waitany-family event could have returned instead */
	int cand, has_m, logged_m;
	uint64_t m; /* the clock of the message it took (own component) */
	int msrc;   /* its source, a rank of sh's communicator */
};

#define RBUCKETS 4096
extern struct req *qhead; /* the receives whose piggyback is still to come, oldest first */
extern uint64_t seqs;     /* receives posted */

struct req **ck_rslot(MPI_Request h);
struct req *ck_rfind(MPI_Request h);
struct req *ck_radd(MPI_Request h, int kind);
void ck_runhash(struct req *r);
void ck_enqueue(struct req *r);
void ck_dequeue(struct req *r);
void ck_rfree(struct req *r);

/* The call in progress, between the pre and post hooks. */
extern __thread struct ck_call {
	int wild;           /* the call is a wildcard receive or probe */
	int src;            /* source as the program wrote it */
	uint64_t event;     /* its event, if wild and already numbered */
	uint64_t before;    /* wildcard events started before it */
	MPI_Request *snap;  /* request handles on entry (completion calls) */
	struct req **rsnap; /* ... and the protocol's requests they were, found on entry under the lock: once
	                     * the MPI has freed a handle, another thread's new request may have it */
	int nsnap, capsnap;
	MPI_Status *sts;    /* statuses supplied where the program ignores them */
	int capsts;
	MPI_Status *user_sts; /* the program's statuses argument */
	struct shadow *insh;  /* several threads: the receive's or probe's communicator, counted in its inflight */
	struct req **started; /* persistent sends being started, found on entry */
	int nstarted, capstarted;
} cur __attribute__((tls_model("initial-exec"))); /* per thread: between its two hooks the lock is not held */

void ck_started_sends(MPI_Request *hs, int n);
void ck_snapshot(const MPI_Request *rs, int n);
void ck_statuses(MPI_Status **p, int n);
void ck_snapshot_done(void);

/* ---- Wildcard events, arrivals, collectives (events.c) ---- */

enum { EV_RECV = MPIVET_WILD_RECV, EV_PROBE = MPIVET_WILD_PROBE, EV_ANY = MPIVET_WILD_ANY }; /* api.Wild* */

size_t ck_forced_set(uint64_t e, int kind, size_t *first);
int ck_forced(uint64_t e, int kind);
void ck_record_wildcard(uint64_t e, int kind, struct shadow *s, int tag, int src, uint64_t logref);
uint64_t ck_start_event(int kind, struct shadow *s, int tag, int src, uint64_t logref);
void ck_record_arrival(struct req *r);
void ck_settle_before(uint64_t seq, struct shadow *s, int src, int tag);
void ck_finish(struct req *r, const MPI_Status *st);
void ck_completed(struct req *r, const MPI_Status *st);
void ck_wild_pre(int kind, int *src, int tag, MPI_Comm c, uint64_t logref);
void ck_recv_post(MPI_Comm c, MPI_Datatype type, int *src, const MPI_Status *st, uint64_t logref);
void ck_probe_post(MPI_Comm c, int *src, const MPI_Status *st, int claim, uint64_t logref);
struct req *ck_post_recv(MPI_Request h, int kind, int src, int tag, MPI_Comm c, uint64_t logref);
void ck_start_precv(MPI_Request *h, struct req *r, uint64_t logref);
void ck_clock_sync(unsigned call, void **k, int rc);
void ck_clock_persistent(unsigned call, void **k, int rc);
void ck_start_pcoll(struct req *r);
void ck_free_pcoll(struct req *r);

/* ---- Hold-backs of competing receives of several threads (holds.c) ---- */

void ck_add_hold(uint64_t pos, uint64_t release);
void ck_release(uint64_t e);
void ck_release_named(uint64_t pos);
void ck_hold(int src);

/* ---- Waitany, Testany, Waitsome, Testsome (anyevents.c) ---- */

void ck_any_pre(MPI_Request *hs, int n, int blocking, uint64_t logref);
void ck_any_restore(void);
void ck_any_complete(const int *idx, int k, MPI_Status *sts);

/* ---- Messages never received (unreceived.c) ---- */

extern MPI_Comm fin_comm; /* a duplicate of MPI_COMM_WORLD for the reductions */
int64_t ck_claim_unreceived(struct shadow *s, int freed);
void ck_unreceived(void);

#pragma GCC visibility pop

#endif
