/*
 * mpivet clock protocol: the per-rank half of the exploration of MPI
 * nondeterminism (seed 000, DAMPI, ch. 5). The Go side (package explore)
 * computes potential matches from what this file logs and decides which
 * replays to run; a rank only:
 *
 *   - keeps a lazy Lamport clock (LLCP) or a lazy vector clock (LVCP) with the
 *     update rules R1-R5 of §5.1.2;
 *   - piggybacks it on every message, as a separate message on a shadow
 *     communicator (a dup of each of the program's communicators);
 *   - logs each wildcard event (a receive or probe with MPI_ANY_SOURCE) when
 *     it starts and when it matches, with its final clock, and each incoming
 *     message whose clock says it may be late for an earlier wildcard event;
 *   - in a guided replay, rewrites the source of the wildcard events the
 *     decision file names (rank, event number, source), leaving later events
 *     free.
 *
 * Piggybacks travel separately, which works for collectives and costs no
 * datatype per message, but the seed (§2.4.2) shows how separate piggybacks
 * get attached to the wrong message once wildcard receives complete out of
 * order. Here the piggyback of a receive is received when the receive
 * completes, on the shadow communicator, from the message's source and with
 * its tag, and never before every earlier-posted receive that could have taken
 * that message has had its own: by the non-overtaking rule such a receive has
 * already matched, so its status is available (MPI_Request_get_status), and
 * piggybacks of one (source, tag) are then received in the order their
 * messages were matched, which is the order they were sent. The same step is
 * the seed's CompleteNow: pending wildcard receives that matched before a
 * completing receive get their final clocks first, in order.
 *
 * Synchronous sends carry their clock like any other send: no portable way
 * exists to return the receiver's clock with the acknowledgement (the seed
 * patched MPICH), so a receive's clock may be missing from events after the
 * matching synchronous send, which can only add potential matches; the
 * explorer recognises a forced match that cannot happen (the forced receive
 * never completes) and does not report it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clocks.h"
#include "../generated/ids.h"
#include "../signatures/signature.h"
#include "../record/conf.h"

int mpivet_ck_on;

enum { OFF = MPIVET_CLOCKS_OFF, LAMPORT = MPIVET_CLOCKS_LAMPORT, VECTOR = MPIVET_CLOCKS_VECTOR };
static int mode = LAMPORT; /* from layer.conf: clocks=lamport|vector|off */
/* Piggybacks and event records are on (mode is not OFF). Without them the
 * hooks still track receives and communicators and count messages, for the
 * messages never received (below). */
static int clocking;
static uint64_t nsent, nreceived; /* messages sent and received by this rank */
static int me, np;         /* rank and size in MPI_COMM_WORLD */
static uint64_t *clk;      /* 1 word (Lamport) or np words (vector) */
static int pbn;            /* clock words piggybacked */
static int pbw;            /* words piggybacked: the clock, the send's type signature and call site */
static uint64_t events;    /* wildcard events started */
static uint64_t newest;    /* own clock at the newest matched wildcard event */
static int matched_any;    /* some wildcard event has matched */
static int quiet;          /* inside MPI_Pcontrol(0) ... MPI_Pcontrol(1): do not explore */

/* Guided replay: the forced sources of this rank's events, by event number,
 * with the kind of event each decision is for (0: any kind). A Waitsome can
 * be forced to a set of indexes: one line per index. */
static uint64_t *forced_event;
static int *forced_src, *forced_kind;
static size_t nforced;

/* log_event logs a record of the clock protocol, when it is on. */
static void log_event(unsigned id, const uint64_t *w, uint64_t n)
{
	if (clocking)
		mpivet_meta(id, w, n);
}

static inline uint64_t *own(void) { return mode == VECTOR ? &clk[me] : &clk[0]; }

static void merge(const uint64_t *pb)
{
	for (int i = 0; i < pbn; i++)
		if (pb[i] > clk[i])
			clk[i] = pb[i];
}

/* record_clocks logs the clock mode, or 0 and why the protocol is off. */
static void record_clocks(int m, const char *why)
{
	size_t n = why ? strlen(why) : 0;
	uint64_t w[3 + 64] = {(uint64_t)m, (uint64_t)me, n};
	if (n > 64 * 8)
		n = w[2] = 64 * 8;
	if (n)
		memcpy(&w[3], why, n);
	mpivet_meta(MPIVET_META_CLOCKS, w, 3 + (n + 7) / 8);
}

/* ---- Shadow communicators ---- */

struct shadow {
	uint64_t key; /* the program's communicator (0: empty slot, 1: deleted) */
	MPI_Comm comm, sh;
	MPI_Group peers; /* the group sources are ranks of (remote group of an intercomm) */
	uint64_t serial; /* per-rank number: handles are reused, serials are not */
	int inter;
};
static struct shadow *shadows;
static size_t nshadows, capshadows;
static uint64_t serials;
static MPI_Group world_group;

static size_t hash(uint64_t k, size_t cap) { return (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1); }

static struct shadow *find(MPI_Comm c)
{
	uint64_t k = MPIVET_H(c);
	if (!capshadows)
		return NULL;
	for (size_t i = hash(k, capshadows);; i = (i + 1) & (capshadows - 1)) {
		if (shadows[i].key == k)
			return &shadows[i];
		if (shadows[i].key == 0)
			return NULL;
	}
}

static struct shadow *insert(MPI_Comm c)
{
	if ((nshadows + 1) * 2 > capshadows) {
		size_t cap = capshadows ? capshadows * 2 : 64;
		struct shadow *t = calloc(cap, sizeof *t), *old = shadows;
		for (size_t j = 0; j < capshadows; j++)
			if (old[j].key > 1) {
				size_t i = hash(old[j].key, cap);
				while (t[i].key)
					i = (i + 1) & (cap - 1);
				t[i] = old[j];
			}
		free(old);
		shadows = t, capshadows = cap;
	}
	uint64_t k = MPIVET_H(c);
	size_t i = hash(k, capshadows);
	while (shadows[i].key > 1 && shadows[i].key != k)
		i = (i + 1) & (capshadows - 1);
	if (shadows[i].key != k)
		nshadows++;
	memset(&shadows[i], 0, sizeof shadows[i]);
	shadows[i].key = k;
	return &shadows[i];
}

/* shadow_of gives c its shadow: a duplicate, collective over c's members,
 * made where all of them create c (none without the clock protocol: the
 * entry then only says that the layer knows c). */
static void shadow_of(MPI_Comm c, MPI_Comm sh)
{
	if (c == MPI_COMM_NULL)
		return;
	struct shadow *s = insert(c);
	s->comm = c;
	s->sh = sh;
	s->serial = ++serials;
	/* A piggyback for an erroneous send (to a rank that does not exist) must
	 * fail quietly: the program's own call then raises the error on the
	 * program's communicator, to the program's handler. */
	if (sh != MPI_COMM_NULL)
		PMPI_Comm_set_errhandler(sh, MPI_ERRORS_RETURN);
	PMPI_Comm_test_inter(c, &s->inter);
	if (s->inter)
		PMPI_Comm_remote_group(c, &s->peers);
	else
		PMPI_Comm_group(c, &s->peers);
}

static void shadow_dup(MPI_Comm c)
{
	MPI_Comm sh = MPI_COMM_NULL;
	if (c != MPI_COMM_NULL && (!clocking || PMPI_Comm_dup(c, &sh) == MPI_SUCCESS))
		shadow_of(c, sh);
}

static void shadow_free(MPI_Comm c)
{
	struct shadow *s = find(c);
	if (!s)
		return;
	if (s->sh != MPI_COMM_NULL)
		PMPI_Comm_free(&s->sh);
	PMPI_Group_free(&s->peers);
	s->key = 1;
}

/* world is the MPI_COMM_WORLD rank of rank r of s's peers (rare path). */
static int world(struct shadow *s, int r)
{
	int w = -1;
	if (r >= 0 && PMPI_Group_translate_ranks(s->peers, 1, &r, world_group, &w) != MPI_SUCCESS)
		w = -1;
	return w;
}

/* ---- Sending piggybacks ---- */

/* A ring of piggyback send buffers; a slot is reused once its send is done. */
#define RING 256
#define PB_EAGER 64 /* bytes of a piggyback waited for: a shared-memory fast path in both MPIs */
static uint64_t *ring;
static MPI_Request ring_req[RING];
static unsigned ring_next;

/* send_pb counts a message to dest and sends its piggyback ahead of it. */
static void send_pb(int dest, int tag, MPI_Comm c, MPI_Datatype type)
{
	struct shadow *s;
	if (dest == MPI_PROC_NULL)
		return;
	nsent++;
	if (!clocking || !(s = find(c)))
		return;
	unsigned k = ring_next++ % RING;
	if (ring_req[k] != MPI_REQUEST_NULL)
		PMPI_Wait(&ring_req[k], MPI_STATUS_IGNORE);
	uint64_t *pb = &ring[(size_t)k * pbw];
	memcpy(pb, clk, pbn * 8);
	pb[pbn] = mpivet_sig(type);
	pb[pbn + 1] = mpivet_call_pc;
	PMPI_Isend(pb, pbw, MPI_UINT64_T, dest, tag, s->sh, &ring_req[k]);
	/* The piggyback leaves before its message: sent as soon as posted
	 * unless the transport is full (a shared-memory queue the receiver has
	 * not drained, a socket buffer), when it waits in the sender until the
	 * sender's next progress, and the message, on another communicator, may
	 * overtake it. A sender that then computes for seconds, or is stopped,
	 * would leave the receiver waiting for it. Waiting here costs one test
	 * when it has left, and never more than the message's own send would,
	 * which needs the same room. Only small piggybacks (Lamport clocks;
	 * vector clocks of up to 6 ranks) are waited for: a larger one takes
	 * the MPI's slower path for small messages, where waiting for it tripled
	 * the latency of 32 ranks' vector clocks, and one too large to go
	 * eagerly could need the receive that is posted after its message. */
	if (pbw * 8 <= PB_EAGER)
		PMPI_Wait(&ring_req[k], MPI_STATUS_IGNORE);
}

/* ---- Requests ---- */

enum { RECV = 1, PRECV, PSEND, COLL };

struct req {
	MPI_Request h;
	int kind, active, queued; /* queued: its piggyback is still to come */
	int wild, src, tag, orig_src; /* src as posted (after forcing); orig_src as the program wrote it */
	int dest;                     /* persistent send */
	struct shadow *sh;
	uint64_t event, before, logref, seq;
	struct req *qprev, *qnext; /* receives whose piggyback is still to come, in posting order */
	struct req *hnext;         /* hash chain */
	MPI_Request aux;           /* clock collective of a nonblocking collective */
	uint64_t pc;               /* the call site that posted it */
	uint64_t *buf;             /* its clocks */
	/* persistent receive, to re-create it with a forced source */
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
static struct req *rtab[RBUCKETS];
static struct req *qhead, *qtail;
static uint64_t seqs;

static struct req **rslot(MPI_Request h)
{
	uint64_t k = MPIVET_H(h);
	return &rtab[(size_t)((k * 0x9E3779B97F4A7C15ULL) >> 40) & (RBUCKETS - 1)];
}

static struct req *rfind(MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return NULL;
	for (struct req *r = *rslot(h); r; r = r->hnext)
		if (r->h == h)
			return r;
	return NULL;
}

static struct req *radd(MPI_Request h, int kind)
{
	struct req *r = calloc(1, sizeof *r);
	r->h = h;
	r->kind = kind;
	struct req **b = rslot(h);
	r->hnext = *b;
	*b = r;
	return r;
}

static void runhash(struct req *r)
{
	for (struct req **p = rslot(r->h); *p; p = &(*p)->hnext)
		if (*p == r) {
			*p = r->hnext;
			return;
		}
}

static void enqueue(struct req *r)
{
	r->seq = ++seqs;
	r->queued = 1;
	r->qnext = NULL;
	r->qprev = qtail;
	if (qtail)
		qtail->qnext = r;
	else
		qhead = r;
	qtail = r;
}

static void dequeue(struct req *r)
{
	if (!r->queued)
		return;
	r->queued = 0;
	if (r->qprev)
		r->qprev->qnext = r->qnext;
	else
		qhead = r->qnext;
	if (r->qnext)
		r->qnext->qprev = r->qprev;
	else
		qtail = r->qprev;
	r->qprev = r->qnext = NULL;
}

static void rfree(struct req *r)
{
	dequeue(r);
	runhash(r);
	free(r->buf);
	free(r);
}

/* ---- Wildcard events and the arrival of messages ---- */

enum { EV_RECV = MPIVET_WILD_RECV, EV_PROBE = MPIVET_WILD_PROBE, EV_ANY = MPIVET_WILD_ANY }; /* api.Wild* */

/* forced_set finds the decisions for event e of the given kind: it returns
 * how many there are, the first at *first. A decision for another kind of
 * event (the replay has diverged) is not applied. */
static size_t forced_set(uint64_t e, int kind, size_t *first)
{
	size_t lo = 0, hi = nforced;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (forced_event[m] < e)
			lo = m + 1;
		else
			hi = m;
	}
	size_t n = 0;
	while (lo + n < nforced && forced_event[lo + n] == e)
		n++;
	if (n && forced_kind[lo] && (forced_kind[lo] == EV_ANY) != (kind == EV_ANY))
		n = 0;
	*first = lo;
	return n;
}

/* forced returns the source decided for receive or probe event e, or
 * MPI_ANY_SOURCE. */
static int forced(uint64_t e, int kind)
{
	size_t i;
	return forced_set(e, kind, &i) ? forced_src[i] : MPI_ANY_SOURCE;
}

static void record_wildcard(uint64_t e, int kind, struct shadow *s, int tag, int src, uint64_t logref)
{
	uint64_t w[] = {e, (uint64_t)kind, s ? s->serial : 0, (uint64_t)(int64_t)tag, (uint64_t)(int64_t)src, logref, (uint64_t)quiet, mpivet_call_pc};
	log_event(MPIVET_META_WILDCARD, w, sizeof w / 8);
}

/* start_event numbers a wildcard event and logs it. */
static uint64_t start_event(int kind, struct shadow *s, int tag, int src, uint64_t logref)
{
	uint64_t e = events++;
	record_wildcard(e, kind, s, tag, src, logref);
	return e;
}

/* matched gives wildcard event e its final clock (rule R4). */
static void matched(uint64_t e, struct shadow *s, int src, int tag, int cancelled)
{
	uint64_t w[] = {e, (uint64_t)(int64_t)src, (uint64_t)(int64_t)world(s, src), (uint64_t)(int64_t)tag, *own(), (uint64_t)cancelled};
	log_event(MPIVET_META_MATCHED, w, sizeof w / 8);
	if (cancelled)
		return;
	newest = *own();
	matched_any = 1;
	++*own();
}

/* arrived applies the clock pb of a message from src with tag, taken by a
 * receive posted after `before` wildcard events (rule R4's last step), and
 * logs it if it may be late for one of them (Definition 5.1). */
static void arrived(const uint64_t *pb, struct shadow *s, int src, int tag, uint64_t before, uint64_t logref)
{
	uint64_t m = mode == VECTOR ? pb[me] : pb[0];
	if (matched_any && m <= newest && before > 0) {
		uint64_t w[] = {(uint64_t)(int64_t)src, (uint64_t)(int64_t)world(s, src), (uint64_t)(int64_t)tag, s->serial, m, before, logref, mpivet_call_pc};
		log_event(MPIVET_META_LATE, w, sizeof w / 8);
	}
	merge(pb);
}

/* check_types compares the type signature of a message (in its piggyback)
 * with the datatype it is received with, and logs a mismatch once per pair
 * of call sites. */
static void check_types(const uint64_t *pb, MPI_Datatype rtype, struct shadow *s, const MPI_Status *st, uint64_t pc)
{
	uint64_t ss = pb[pbn], rs;
	if (!ss || ss == (rs = mpivet_sig(rtype)) || !rs || mpivet_sig_packed(ss) || mpivet_sig_packed(rs))
		return;
	int bytes = 0;
	PMPI_Get_count(st, MPI_BYTE, &bytes);
	if (bytes <= 0)
		return; /* nothing was transferred */
	static uint64_t seen[256];
	uint64_t h = (pb[pbn + 1] * 0x9E3779B97F4A7C15ULL) ^ pc;
	for (int i = 0; i < 256; i++) {
		if (seen[i] == h)
			return;
		if (!seen[i]) {
			seen[i] = h;
			uint64_t w[] = {ss, rs, (uint64_t)(int64_t)world(s, st->MPI_SOURCE), (uint64_t)(int64_t)st->MPI_TAG, pb[pbn + 1], pc, (uint64_t)bytes};
			log_event(MPIVET_META_TYPES, w, sizeof w / 8);
			return;
		}
	}
}

/* await_pb receives the piggyback from src with tag on shadow sh into pb,
 * waiting for it at most limit seconds; 0 (and pb zero) if it did not come. */
static int await_pb(uint64_t *pb, int src, int tag, MPI_Comm sh, double limit)
{
	MPI_Request r;
	int flag = 0;
	PMPI_Irecv(pb, pbw, MPI_UINT64_T, src, tag, sh, &r);
	PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	double t0 = 0;
	for (unsigned i = 0; !flag; i++) {
		PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		if (!flag && (i & 1023) == 0) {
			double t = PMPI_Wtime();
			if (t0 == 0)
				t0 = t;
			else if (t - t0 > limit) {
				PMPI_Cancel(&r);
				PMPI_Wait(&r, MPI_STATUS_IGNORE);
				memset(pb, 0, pbw * 8);
				return 0;
			}
		}
	}
	return 1;
}

/* A piggyback leaves before its message (send_pb), so one that has not come
 * seconds after its message never will: the message was sent by a call the
 * layer did not see (one mpivet does not wrap, such as MPI-4's MPI_Isendrecv
 * or the large-count MPI_Send_c, or an MPI call made from inside another,
 * as from a reduction operation or an error handler). The rank must not
 * hang for it: it stops expecting piggybacks, and logs why, and the explorer
 * stops trusting this run's potential matches. */
static int broken;

static void take_pb(uint64_t *pb, int src, int tag, struct shadow *s)
{
	if (broken || !clocking) {
		memset(pb, 0, pbw * 8);
		return;
	}
	if (await_pb(pb, src, tag, s->sh, 5.0))
		return;
	broken = 1;
	char why[400];
	snprintf(why, sizeof why, "rank %d received a message from rank %d (tag %d) that was sent without its clock, by a call "
		 "mpivet does not see (one it does not wrap, such as MPI_Isendrecv or a large-count MPI_Send_c, or a send made "
		 "inside another MPI call, from a reduction operation or an error handler); from then on, its matches are not explored",
		 me, world(s, src), tag);
	record_clocks(0, why);
}

static uint64_t *scratch_pb(void)
{
	static uint64_t *b;
	if (!b)
		b = calloc(pbw, 8);
	return b;
}

static void finish(struct req *r, const MPI_Status *st);

/* record_arrival logs the clock of the message candidate r took. */
static void record_arrival(struct req *r)
{
	if (r->logged_m)
		return;
	r->logged_m = 1;
	uint64_t w[] = {r->seq, r->m, (uint64_t)(int64_t)world(r->sh, r->msrc)};
	log_event(MPIVET_META_ARRIVAL, w, sizeof w / 8);
}

/* settle_before gives the piggyback to every receive posted before seq on s
 * that could have taken a message from src with tag: they have matched. */
static void settle_before(uint64_t seq, struct shadow *s, int src, int tag)
{
again:
	for (struct req *y = qhead; y && y->seq < seq; y = y->qnext) {
		if (y->sh != s || (y->src != MPI_ANY_SOURCE && y->src != src) || (y->tag != MPI_ANY_TAG && y->tag != tag))
			continue;
		MPI_Status st;
		int flag = 0;
		while (!flag)
			if (PMPI_Request_get_status(y->h, &flag, &st) != MPI_SUCCESS)
				break;
		if (!flag) {
			dequeue(y); /* an error: nothing more can be learnt from it */
			goto again;
		}
		finish(y, &st);
		goto again; /* finish may have settled others */
	}
}

/* receive_pb takes the piggyback of the message a receive (posted at seq)
 * took from src with tag, after those of earlier receives. */
static void receive_pb(uint64_t seq, struct shadow *s, int src, int tag, uint64_t *pb)
{
	settle_before(seq, s, src, tag);
	take_pb(pb, src, tag, s);
}

/* finish handles a nonblocking receive that has matched, with its status. */
static void finish(struct req *r, const MPI_Status *st)
{
	if (!r->queued)
		return;
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	/* MPICH 4.0 completes a nonblocking receive from MPI_PROC_NULL with
	 * source 0 and tag 0 in its status: the posted source says. */
	int null = r->src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0;
	if (cancelled || null || !r->sh) {
		if (r->wild && r->sh)
			matched(r->event, r->sh, st->MPI_SOURCE, st->MPI_TAG, 1);
		nreceived += !cancelled && !null;
		dequeue(r);
		return;
	}
	nreceived++;
	dequeue(r); /* before settling others: it is being settled */
	uint64_t *pb = scratch_pb();
	settle_before(r->seq, r->sh, st->MPI_SOURCE, st->MPI_TAG);
	take_pb(pb, st->MPI_SOURCE, st->MPI_TAG, r->sh);
	check_types(pb, r->type, r->sh, st, r->pc);
	r->m = mode == VECTOR ? pb[me] : pb[0];
	r->msrc = st->MPI_SOURCE;
	r->has_m = 1;
	if (r->cand)
		record_arrival(r);
	if (r->wild)
		matched(r->event, r->sh, st->MPI_SOURCE, st->MPI_TAG, 0);
	arrived(pb, r->sh, st->MPI_SOURCE, st->MPI_TAG, r->before, r->logref);
}

/* ---- Per-call state between the pre and post hooks ---- */

static struct {
	int wild;           /* the call is a wildcard receive or probe */
	int src;            /* source as the program wrote it */
	uint64_t event;     /* its event, if wild and already numbered */
	uint64_t before;    /* wildcard events started before it */
	MPI_Request *snap;  /* request handles on entry (completion calls) */
	int nsnap, capsnap;
	MPI_Status *sts;    /* statuses supplied where the program ignores them */
	int capsts;
	MPI_Status *user_sts; /* the program's statuses argument */
	struct req **started; /* persistent sends being started, found on entry */
	int nstarted, capstarted;
} cur;

/* started_sends remembers the persistent sends among hs[0..n) on entry (an
 * MPI may give a request a new handle when it is started wrongly) and sends
 * their piggybacks, ahead of their messages. */
static void started_sends(MPI_Request *hs, int n)
{
	cur.nstarted = 0;
	for (int i = 0; hs && i < n; i++) {
		struct req *r = rfind(hs[i]);
		if (!r || r->kind != PSEND)
			continue;
		if (cur.nstarted == cur.capstarted) {
			cur.capstarted = cur.capstarted ? 2 * cur.capstarted : 16;
			cur.started = realloc(cur.started, cur.capstarted * sizeof *cur.started);
		}
		cur.started[cur.nstarted++] = r;
		send_pb(r->dest, r->tag, r->comm, r->type);
	}
}

static void snapshot(const MPI_Request *rs, int n)
{
	if (n < 0 || !rs)
		n = 0;
	if (n > cur.capsnap) {
		free(cur.snap);
		cur.capsnap = n * 2;
		cur.snap = malloc(cur.capsnap * sizeof *cur.snap);
	}
	if (n)
		memcpy(cur.snap, rs, n * sizeof *rs);
	cur.nsnap = n;
}

/* statuses makes *p (a statuses argument) a real array of n. */
static void statuses(MPI_Status **p, int n)
{
	cur.user_sts = *p;
	if (*p != MPI_STATUSES_IGNORE)
		return;
	if (n > cur.capsts) {
		free(cur.sts);
		cur.capsts = n * 2;
		cur.sts = malloc(cur.capsts * sizeof *cur.sts);
	}
	*p = cur.sts;
}

/* completed handles request handle h (as it was on entry) completing with st. */
static void completed(MPI_Request h, const MPI_Status *st)
{
	struct req *r = rfind(h);
	if (!r)
		return;
	switch (r->kind) {
	case RECV:
		finish(r, st);
		rfree(r);
		break;
	case PRECV:
		if (r->active)
			finish(r, st);
		r->active = 0;
		break;
	case PSEND:
		r->active = 0;
		break;
	case COLL:
		PMPI_Wait(&r->aux, MPI_STATUS_IGNORE);
		if (r->newcomm) { /* MPI_Comm_idup: its shadow is ready too */
			if (*r->newcomm != MPI_COMM_NULL)
				shadow_of(*r->newcomm, r->idup);
		} else if (r->active)
			merge(r->buf);
		rfree(r);
		break;
	}
}

/* ---- Waitany, Testany, Waitsome, Testsome ---- */

/* Which of several requests completes first is nondeterminism too. A
 * Waitany-family call over at least two live requests that returns something
 * is an event, numbered with the wildcard events (blocking calls on entry,
 * Testany and Testsome when they return something). Its outcome is the set
 * of indexes it returned; its candidates are the receives in the array that
 * it did not return alone, each logged with the clock of the message it takes
 * when it takes it (an arrival). A candidate whose message is not causally
 * after the event (its clock is not above the event's) could have been
 * returned instead: the explorer forces that by a decision naming the index,
 * and the call is then made with every other request hidden (MPI_REQUEST_NULL
 * for its duration), so that the MPI can only return the forced ones. */

#define MAXCAND 32 /* candidates logged per event */

static struct {
	int event;     /* the call is an event */
	int numbered;  /* ... and has its number, e */
	uint64_t e;
	size_t nf, f0; /* forced indexes: forced_src[f0 .. f0+nf) */
	int hid;       /* requests hidden from the call: any_hidden */
	int keep;      /* Testsome: the one incomplete forced request left, or -1 */
	MPI_Request *hs;
	int n;
	uint64_t logref;
} any;
static uint64_t any_prelogged; /* event number + 1 of a polling call whose record is written */

/* live reports whether h is a request a completion call can return. */
static int live(MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return 0;
	struct req *r = rfind(h);
	return !r || (r->kind != PRECV && r->kind != PSEND) || r->active;
}

static int any_forced(int i)
{
	for (size_t j = 0; j < any.nf; j++)
		if (forced_src[any.f0 + j] == i)
			return 1;
	return 0;
}

/* any_hidden reports whether the request at index i is hidden from the call:
 * all but the forced ones, or all but keep. */
static int any_hidden(int i)
{
	return any.hid && (any.keep >= 0 ? i != any.keep : !any_forced(i));
}

static int done_now(MPI_Request h)
{
	int flag = 0;
	if (PMPI_Request_get_status(h, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return 1; /* let the call itself report the error */
	return flag;
}

/* any_pre numbers the event and applies its decision (cur.snap holds the
 * requests on entry). */
static void any_pre(MPI_Request *hs, int n, int blocking, uint64_t logref)
{
	memset(&any, 0, sizeof any);
	int nlive = 0;
	for (int i = 0; i < cur.nsnap; i++)
		nlive += live(cur.snap[i]);
	if (nlive < 2)
		return;
	any.event = 1;
	any.hs = hs, any.n = n, any.logref = logref;
	any.nf = forced_set(events, EV_ANY, &any.f0);
	for (size_t j = 0; j < any.nf; j++) {
		int i = forced_src[any.f0 + j];
		if (i < 0 || i >= cur.nsnap || !live(cur.snap[i]))
			any.nf = 0; /* the replay has diverged: run free */
	}
	int first = any.nf ? forced_src[any.f0] : MPI_ANY_SOURCE;
	if (blocking) {
		any.e = start_event(EV_ANY, NULL, n, first, logref);
		any.numbered = 1;
	} else if (any.nf && any_prelogged != events + 1) {
		/* a forced request that cannot complete would make the program
		 * poll forever: logged now, the explorer recognises that */
		record_wildcard(events, EV_ANY, NULL, n, first, logref);
		any_prelogged = events + 1;
	}
	if (!any.nf)
		return;
	any.keep = -1;
	if (any.nf > 1) { /* the call must return all of them, not some */
		for (size_t j = 0; j < any.nf; j++) {
			int i = forced_src[any.f0 + j];
			while (!done_now(hs[i]) && blocking)
				sched_yield();
			if (!blocking && !done_now(hs[i])) {
				any.keep = i;
				break;
			}
		}
	}
	any.hid = 1;
	for (int i = 0; i < n; i++)
		if (any_hidden(i))
			hs[i] = MPI_REQUEST_NULL;
}

/* any_restore gives the program back the requests hidden from the call
 * (the call itself saw none of them, so none has completed). */
static void any_restore(void)
{
	for (int i = 0; i < any.n && i < cur.nsnap; i++)
		if (any_hidden(i))
			any.hs[i] = cur.snap[i];
	any.hid = 0;
}

/* any_candidates logs, with the event, the receives that could have been
 * returned instead of idx[0..k); the arrivals of their messages follow. */
static void any_candidates(const int *idx, int k)
{
	if (!any.numbered) { /* Testany, Testsome: numbered now */
		if (any_prelogged == events + 1)
			any.e = events++;
		else
			any.e = start_event(EV_ANY, NULL, any.n, MPI_ANY_SOURCE, any.logref);
	}
	any_prelogged = 0;
	uint64_t w[3 + 3 * MAXCAND];
	size_t n = 0;
	w[n++] = any.e;
	w[n++] = (uint64_t)(k < MAXCAND ? k : MAXCAND);
	for (int j = 0; j < k && j < MAXCAND; j++)
		w[n++] = (uint64_t)idx[j];
	size_t at = n++, nc = 0;
	for (int i = 0; i < cur.nsnap && nc < MAXCAND; i++) {
		struct req *r = rfind(cur.snap[i]);
		if (!r || !(r->kind == RECV || (r->kind == PRECV && r->active)))
			continue;
		if (k == 1 && idx[0] == i)
			continue;
		w[n++] = (uint64_t)i;
		w[n++] = r->seq;
		nc++;
		r->cand = 1;
		if (r->has_m)
			record_arrival(r);
	}
	w[at] = nc;
	log_event(MPIVET_META_CHOICE, w, n);
}

/* any_matched gives the event its outcome (first index returned) and clock;
 * the world rank of the first returned message, if a receive, names it in
 * reports. */
static void any_matched(int first, int world, int tag)
{
	uint64_t w[] = {any.e, (uint64_t)(int64_t)first, (uint64_t)(int64_t)world, (uint64_t)(int64_t)tag, *own(), 0};
	log_event(MPIVET_META_MATCHED, w, sizeof w / 8);
	++*own();
}

/* any_complete finishes a Waitany-family call that returned the k requests
 * at idx, with their statuses. */
static void any_complete(const int *idx, int k, MPI_Status *sts)
{
	int event = any.event && k > 0;
	int w = -1, tag = -1;
	if (event) {
		any_candidates(idx, k);
		struct req *r = idx[0] < cur.nsnap ? rfind(cur.snap[idx[0]]) : NULL;
		if (r && r->sh && (r->kind == RECV || r->kind == PRECV) && r->src != MPI_PROC_NULL && sts[0].MPI_SOURCE >= 0)
			w = world(r->sh, sts[0].MPI_SOURCE), tag = sts[0].MPI_TAG;
	}
	for (int j = 0; j < k; j++)
		if (idx[j] >= 0 && idx[j] < cur.nsnap)
			completed(cur.snap[idx[j]], &sts[j]);
	if (event)
		any_matched(idx[0], w, tag);
}

/* ---- Receives and probes ---- */

/* wild_pre numbers a wildcard receive or probe and applies a decision. */
static void wild_pre(int kind, int *src, int tag, MPI_Comm c, uint64_t logref)
{
	cur.wild = *src == MPI_ANY_SOURCE;
	cur.src = *src;
	cur.before = events;
	if (!cur.wild)
		return;
	int f = forced(events, kind);
	cur.event = start_event(kind, find(c), tag, f, logref);
	if (f != MPI_ANY_SOURCE)
		*src = f;
}

/* recv_post handles a blocking receive that returned status st. */
static void recv_post(MPI_Comm c, MPI_Datatype type, int *src, const MPI_Status *st, uint64_t logref)
{
	struct shadow *s = find(c);
	*src = cur.src;
	if (cur.src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
		return;
	nreceived++;
	if (!s)
		return;
	uint64_t *pb = scratch_pb();
	receive_pb(seqs + 1, s, st->MPI_SOURCE, st->MPI_TAG, pb);
	check_types(pb, type, s, st, mpivet_call_pc);
	if (cur.wild)
		matched(cur.event, s, st->MPI_SOURCE, st->MPI_TAG, 0);
	arrived(pb, s, st->MPI_SOURCE, st->MPI_TAG, cur.before, logref);
}

/* probe_post handles a probe that found a message (flag true); claim: the
 * message is now the program's (MPI_Mprobe), so its piggyback comes now. */
static void probe_post(MPI_Comm c, int *src, const MPI_Status *st, int claim, uint64_t logref)
{
	struct shadow *s = find(c);
	int wild = cur.src == MPI_ANY_SOURCE;
	*src = cur.src;
	if (cur.src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
		return;
	nreceived += claim;
	if (!s)
		return;
	if (wild && !cur.wild) /* MPI_Iprobe: an event only when it finds a message */
		cur.event = start_event(EV_PROBE, s, st->MPI_TAG, forced(events, EV_PROBE), logref);
	settle_before(seqs + 1, s, st->MPI_SOURCE, st->MPI_TAG);
	if (wild)
		matched(cur.event, s, st->MPI_SOURCE, st->MPI_TAG, 0);
	if (claim) {
		uint64_t *pb = scratch_pb();
		take_pb(pb, st->MPI_SOURCE, st->MPI_TAG, s);
		arrived(pb, s, st->MPI_SOURCE, st->MPI_TAG, cur.before, logref);
	}
}

static struct req *post_recv(MPI_Request h, int kind, int src, int tag, MPI_Comm c, uint64_t logref)
{
	struct req *r = radd(h, kind);
	r->sh = find(c);
	r->src = src;
	r->orig_src = cur.src;
	r->tag = tag;
	r->wild = cur.wild;
	r->event = cur.event;
	r->before = cur.before;
	r->logref = logref;
	r->pc = mpivet_call_pc;
	return r;
}

/* start_precv starts persistent receive *h: a wildcard one is an event, and
 * a forced one is re-created with the decided source (the program's handle
 * variable gets the new request). */
static void start_precv(MPI_Request *h, struct req *r, uint64_t logref)
{
	r->wild = r->orig_src == MPI_ANY_SOURCE;
	r->before = events;
	if (r->wild) {
		int f = forced(events, EV_RECV);
		r->event = start_event(EV_RECV, r->sh, r->tag, f, logref);
		int want = f != MPI_ANY_SOURCE ? f : MPI_ANY_SOURCE;
		if (want != r->src) {
			MPI_Request n;
			if (PMPI_Recv_init(r->pbuf, r->count, r->type, want, r->tag, r->comm, &n) == MPI_SUCCESS) {
				PMPI_Request_free(h);
				runhash(r);
				r->h = *h = n;
				struct req **b = rslot(n);
				r->hnext = *b;
				*b = r;
				r->src = want;
			}
		}
	}
	r->active = 1;
	r->cand = r->has_m = r->logged_m = 0;
	enqueue(r);
}

/* ---- Collectives ---- */

/* sync makes a collective a clock synchronisation (Fig. 5.7): the clocks of
 * those the data flows from reach those it flows to. Nonblocking: started
 * now, applied when the program's request completes. */
static void clock_sync(unsigned call, void **k, int rc)
{
	int kc = mpivet_call_k_comm[call], kr = mpivet_call_k_root[call], kq = mpivet_call_k_request[call];
	if (rc != MPI_SUCCESS || kc < 0)
		return;
	MPI_Comm c = *(MPI_Comm *)k[kc];
	struct shadow *s = find(c);
	if (!s || !clocking)
		return;
	int root = kr >= 0 ? *(int *)k[kr] : -1, rank = 0;
	PMPI_Comm_rank(c, &rank);
	enum { ALL, FROM_ROOT, TO_ROOT } how = ALL;
	switch (call) {
	case MPIVET_ID_MPI_Bcast: case MPIVET_ID_MPI_Scatter: case MPIVET_ID_MPI_Scatterv:
	case MPIVET_ID_MPI_Ibcast: case MPIVET_ID_MPI_Iscatter: case MPIVET_ID_MPI_Iscatterv:
		how = FROM_ROOT;
		break;
	case MPIVET_ID_MPI_Gather: case MPIVET_ID_MPI_Gatherv: case MPIVET_ID_MPI_Reduce:
	case MPIVET_ID_MPI_Igather: case MPIVET_ID_MPI_Igatherv: case MPIVET_ID_MPI_Ireduce:
		how = TO_ROOT;
		break;
	}
	if (s->inter)
		how = ALL; /* both groups' clocks: more than needed, never less */
	int brings = how != TO_ROOT || rank == root; /* whether clocks come here */
	uint64_t local[2 * pbn], *in = local; /* what comes in, then what goes out */
	MPI_Request *aux = NULL;
	if (kq >= 0) { /* both buffers live until the program's request completes */
		MPI_Request *user = *(MPI_Request **)k[kq];
		if (!user || *user == MPI_REQUEST_NULL)
			return;
		struct req *r = radd(*user, COLL);
		in = r->buf = malloc(2 * (size_t)pbn * 8);
		r->active = brings;
		aux = &r->aux;
	}
	uint64_t *out = in + pbn;
	memcpy(in, clk, pbn * 8);
	memcpy(out, clk, pbn * 8);
	if (how == FROM_ROOT)
		aux ? PMPI_Ibcast(in, pbn, MPI_UINT64_T, root, s->sh, aux) : PMPI_Bcast(in, pbn, MPI_UINT64_T, root, s->sh);
	else if (how == TO_ROOT)
		aux ? PMPI_Ireduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, root, s->sh, aux) : PMPI_Reduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, root, s->sh);
	else
		aux ? PMPI_Iallreduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, s->sh, aux) : PMPI_Allreduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, s->sh);
	if (!aux && brings)
		merge(in);
}

/* ---- Messages never received ---- */

/* A message that no receive matches before MPI_Finalize is an error (MPI 3.1
 * §8.7: every communication must be complete). A send may well have
 * completed (buffered, or sent eagerly), so nothing in the sender says so;
 * the message waits at its destination, where MPI_Improbe finds it, once the
 * program can no longer receive it: inside its MPI_Finalize, or inside the
 * MPI_Comm_free of its communicator. Each rank counts the messages it sends
 * and receives (the receives the hooks see complete), and one reduction of
 * both over MPI_COMM_WORLD, in MPI_Finalize, tells whether any message is
 * unreceived; only then do the ranks probe the communicators they know, until
 * they have found them all or for at most half a second (a message may still
 * be on its way), agreeing by a reduction after each round. Each message is
 * logged with its send's call site, from its piggyback (unknown without the
 * clock protocol), and received into the layer's buffer: the program is done
 * with MPI by then. One freed before MPI_Finalize is claimed (MPI_Improbe)
 * when its communicator is freed, and received in MPI_Finalize: receiving it
 * at once could complete a send the program leaves blocked. */

#define UNRECEIVED_LOGGED 1024 /* messages logged per rank; the rest are received and counted */
#define UNRECEIVED_WAIT 0.5    /* seconds for messages still on their way */

static MPI_Comm fin_comm = MPI_COMM_NULL; /* a duplicate of MPI_COMM_WORLD for the reductions */
static unsigned nlogged;
static struct claimed {
	MPI_Message m;
	int bytes;
} *claimed; /* claimed from freed communicators, to receive in MPI_Finalize */
static size_t nclaimed, capclaimed;

/* drain receives message m into the layer's buffer. */
static void drain(MPI_Message *m, int bytes)
{
	static char *buf;
	static int cap;
	if (bytes > cap) {
		free(buf);
		cap = bytes;
		if (!(buf = malloc(cap)))
			cap = 0;
	}
	PMPI_Mrecv(buf, bytes <= cap ? bytes : 0, MPI_BYTE, m, MPI_STATUS_IGNORE);
}

/* claim_unreceived claims (MPI_Improbe) every message waiting on s's
 * communicator, logs it, and receives it, or keeps it for MPI_Finalize
 * (freed: the communicator is being freed). It returns how many it found. */
static int64_t claim_unreceived(struct shadow *s, int freed)
{
	int64_t n = 0;
	for (;;) {
		int flag = 0, bytes = 0;
		MPI_Message m;
		MPI_Status st;
		if (PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, &m, &st) != MPI_SUCCESS || !flag)
			return n;
		n++;
		PMPI_Get_count(&st, MPI_BYTE, &bytes);
		uint64_t pc = 0;
		if (clocking && !broken) {
			uint64_t *pb = scratch_pb();
			settle_before(seqs + 1, s, st.MPI_SOURCE, st.MPI_TAG);
			if (await_pb(pb, st.MPI_SOURCE, st.MPI_TAG, s->sh, UNRECEIVED_WAIT))
				pc = pb[pbn + 1];
		}
		if (nlogged++ < UNRECEIVED_LOGGED) {
			uint64_t w[] = {(uint64_t)(int64_t)world(s, st.MPI_SOURCE), (uint64_t)(int64_t)st.MPI_SOURCE, (uint64_t)(int64_t)st.MPI_TAG,
					MPIVET_H(s->comm), pc, (uint64_t)bytes, (uint64_t)freed};
			mpivet_meta(MPIVET_META_UNRECEIVED, w, sizeof w / 8);
		}
		if (!freed) {
			drain(&m, bytes);
			continue;
		}
		nreceived++; /* accounted for: MPI_Finalize does not look for it */
		if (nclaimed == capclaimed) {
			capclaimed = capclaimed ? 2 * capclaimed : 16;
			claimed = realloc(claimed, capclaimed * sizeof *claimed);
		}
		claimed[nclaimed++] = (struct claimed){m, bytes};
	}
}

/* unreceived runs at MPI_Finalize, before the MPI's. */
static void unreceived(void)
{
	if (fin_comm == MPI_COMM_NULL)
		return;
	for (size_t i = 0; i < nclaimed; i++)
		drain(&claimed[i].m, claimed[i].bytes);
	int64_t l[2] = {(int64_t)nsent, (int64_t)nreceived}, g[2];
	if (PMPI_Allreduce(l, g, 2, MPI_INT64_T, MPI_SUM, fin_comm) != MPI_SUCCESS || g[0] <= g[1])
		return;
	int64_t missing = g[0] - g[1], found = 0;
	double t0 = PMPI_Wtime();
	for (;;) {
		for (size_t i = 0; i < capshadows; i++)
			if (shadows[i].key > 1)
				found += claim_unreceived(&shadows[i], 0);
		l[0] = found, l[1] = PMPI_Wtime() - t0 > UNRECEIVED_WAIT;
		if (PMPI_Allreduce(l, g, 2, MPI_INT64_T, MPI_SUM, fin_comm) != MPI_SUCCESS || g[0] >= missing || g[1])
			return;
	}
}

/* ---- Set-up ---- */

/* load_decisions reads the forced sources of this rank's events from the
 * decision file of a guided replay (layer.conf's decisions=PATH). */
static void load_decisions(void)
{
	const char *path = mpivet_conf(MPIVET_CONF_DECISIONS);
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	size_t cap = 0;
	char line[128];
	while (fgets(line, sizeof line, f)) {
		long rank, src, kind = 0;
		unsigned long long ev;
		if (sscanf(line, "%ld %llu %ld %ld", &rank, &ev, &src, &kind) < 3 || rank != me)
			continue;
		if (nforced == cap) {
			cap = cap ? cap * 2 : 64;
			forced_event = realloc(forced_event, cap * sizeof *forced_event);
			forced_src = realloc(forced_src, cap * sizeof *forced_src);
			forced_kind = realloc(forced_kind, cap * sizeof *forced_kind);
		}
		forced_event[nforced] = ev;
		forced_kind[nforced] = (int)kind;
		forced_src[nforced++] = (int)src;
	}
	fclose(f);
	/* sorted by event number: the file lists a rank's events in order */
}

static void start(int provided)
{
	const char *m = mpivet_conf(MPIVET_CONF_CLOCKS); /* lamport (the default), vector, off */
	mode = m && strcmp(m, "vector") == 0 ? VECTOR : m && strcmp(m, "off") == 0 ? OFF : LAMPORT;
	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	PMPI_Comm_size(MPI_COMM_WORLD, &np);
	const char *why = NULL;
	if (provided == MPI_THREAD_MULTIPLE)
		why = "the program runs MPI_THREAD_MULTIPLE, which the clock protocol does not cover yet";
	else if (mode == OFF)
		why = "--clocks=off";
	record_clocks(why ? 0 : mode, why);
	if (provided == MPI_THREAD_MULTIPLE)
		return; /* the hooks' tables are not made for threads */
	clocking = mode != OFF;
	pbn = mode == VECTOR ? np : 1;
	pbw = pbn + 2;
	clk = calloc(pbn, 8);
	ring = calloc((size_t)RING * pbw, 8);
	for (int i = 0; i < RING; i++)
		ring_req[i] = MPI_REQUEST_NULL;
	PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
	shadow_dup(MPI_COMM_WORLD);
	shadow_dup(MPI_COMM_SELF);
	PMPI_Comm_dup(MPI_COMM_WORLD, &fin_comm);
	if (clocking)
		load_decisions();
	mpivet_ck_on = 1;
}

/* ---- The hooks ---- */

#define ARG(T, name) (*(T *)k[name])

void mpivet_ck_pre(unsigned call, uint64_t logref, void **k)
{
	cur.wild = 0;
	cur.src = MPI_ANY_SOURCE + 1;
	cur.user_sts = NULL;
	cur.nstarted = 0;
	switch (call) {
	/* Piggybacks go before their message: a synchronous send (or a
	 * standard one the MPI does not buffer) returns only once its receive
	 * has matched, and a receiver that claimed the message (MPI_Mprobe)
	 * waits for the piggyback before it receives. */
	case MPIVET_ID_MPI_Send: case MPIVET_ID_MPI_Bsend: case MPIVET_ID_MPI_Ssend: case MPIVET_ID_MPI_Rsend:
	case MPIVET_ID_MPI_Isend: case MPIVET_ID_MPI_Ibsend: case MPIVET_ID_MPI_Issend: case MPIVET_ID_MPI_Irsend:
		/* every send has datatype, dest, tag, comm as parameters 2, 3, 4, 5 */
		send_pb(ARG(int, 3), ARG(int, 4), ARG(MPI_Comm, 5), ARG(MPI_Datatype, 2));
		break;
	case MPIVET_ID_MPI_Recv:
		wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Recv_source), ARG(int, MPIVET_K_MPI_Recv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Recv_comm), logref);
		break;
	case MPIVET_ID_MPI_Irecv:
		wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Irecv_source), ARG(int, MPIVET_K_MPI_Irecv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Irecv_comm), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv:
		send_pb(ARG(int, MPIVET_K_MPI_Sendrecv_dest), ARG(int, MPIVET_K_MPI_Sendrecv_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_sendtype));
		wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Sendrecv_source), ARG(int, MPIVET_K_MPI_Sendrecv_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv_replace:
		send_pb(ARG(int, MPIVET_K_MPI_Sendrecv_replace_dest), ARG(int, MPIVET_K_MPI_Sendrecv_replace_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_replace_datatype));
		wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Sendrecv_replace_source), ARG(int, MPIVET_K_MPI_Sendrecv_replace_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), logref);
		break;
	case MPIVET_ID_MPI_Probe:
		wild_pre(EV_PROBE, &ARG(int, MPIVET_K_MPI_Probe_source), ARG(int, MPIVET_K_MPI_Probe_tag), ARG(MPI_Comm, MPIVET_K_MPI_Probe_comm), logref);
		break;
	case MPIVET_ID_MPI_Mprobe:
		wild_pre(EV_PROBE, &ARG(int, MPIVET_K_MPI_Mprobe_source), ARG(int, MPIVET_K_MPI_Mprobe_tag), ARG(MPI_Comm, MPIVET_K_MPI_Mprobe_comm), logref);
		break;
	case MPIVET_ID_MPI_Iprobe:
	case MPIVET_ID_MPI_Improbe: {
		/* numbered only when a message is found; the decision for the next
		 * event applies to every attempt until then */
		int *src = call == MPIVET_ID_MPI_Iprobe ? &ARG(int, MPIVET_K_MPI_Iprobe_source) : &ARG(int, MPIVET_K_MPI_Improbe_source);
		cur.src = *src;
		cur.before = events;
		if (*src == MPI_ANY_SOURCE) {
			int f = forced(events, EV_PROBE);
			if (f != MPI_ANY_SOURCE)
				*src = f;
		}
		break;
	}
	case MPIVET_ID_MPI_Start: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Start_request);
		struct req *r = h ? rfind(*h) : NULL;
		if (r && r->kind == PRECV)
			start_precv(h, r, logref);
		started_sends(h, h ? 1 : 0);
		break;
	}
	case MPIVET_ID_MPI_Startall: {
		int n = ARG(int, MPIVET_K_MPI_Startall_count);
		MPI_Request *hs = ARG(MPI_Request *, MPIVET_K_MPI_Startall_array_of_requests);
		for (int i = 0; hs && i < n; i++) {
			struct req *r = rfind(hs[i]);
			if (r && r->kind == PRECV)
				start_precv(&hs[i], r, logref);
		}
		started_sends(hs, n);
		break;
	}
	case MPIVET_ID_MPI_Wait:
	case MPIVET_ID_MPI_Test: {
		MPI_Request *h = ARG(MPI_Request *, 0);
		snapshot(h, h ? 1 : 0);
		break;
	}
	case MPIVET_ID_MPI_Request_get_status:
		snapshot(&ARG(MPI_Request, 0), 1);
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany:
		snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		any_pre(ARG(MPI_Request *, 1), ARG(int, 0), call == MPIVET_ID_MPI_Waitany, logref);
		break;
	case MPIVET_ID_MPI_Waitall:
		snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		statuses(&ARG(MPI_Status *, MPIVET_K_MPI_Waitall_array_of_statuses), ARG(int, 0));
		break;
	case MPIVET_ID_MPI_Testall:
		snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		statuses(&ARG(MPI_Status *, MPIVET_K_MPI_Testall_array_of_statuses), ARG(int, 0));
		break;
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome:
		snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		statuses(&ARG(MPI_Status *, call == MPIVET_ID_MPI_Waitsome ? MPIVET_K_MPI_Waitsome_array_of_statuses : MPIVET_K_MPI_Testsome_array_of_statuses), ARG(int, 0));
		any_pre(ARG(MPI_Request *, 1), ARG(int, 0), call == MPIVET_ID_MPI_Waitsome, logref);
		break;
	case MPIVET_ID_MPI_Request_free: {
		MPI_Request *h = ARG(MPI_Request *, 0);
		struct req *r = h ? rfind(*h) : NULL;
		/* a receive freed while pending takes its piggyback with it: it can
		 * no longer be settled (see the notes) */
		if (r && r->kind != COLL) /* a collective's buffers stay with its clock collective */
			rfree(r);
		break;
	}
	case MPIVET_ID_MPI_Comm_free:
	case MPIVET_ID_MPI_Comm_disconnect: {
		MPI_Comm *c = ARG(MPI_Comm *, 0);
		struct shadow *s = c ? find(*c) : NULL;
		if (s)
			claim_unreceived(s, 1);
		if (c)
			shadow_free(*c);
		break;
	}
	case MPIVET_ID_MPI_Pcontrol:
		quiet = ARG(const int, 0) == 0;
		break;
	case MPIVET_ID_MPI_Type_free: {
		MPI_Datatype *t = ARG(MPI_Datatype *, 0);
		if (t)
			mpivet_sig_forget(*t);
		break;
	}
	case MPIVET_ID_MPI_Finalize:
		unreceived();
		for (int i = 0; i < RING; i++)
			if (ring_req[i] != MPI_REQUEST_NULL)
				PMPI_Wait(&ring_req[i], MPI_STATUS_IGNORE);
		mpivet_ck_on = 0;
		break;
	}
}

void mpivet_ck_post(unsigned call, uint64_t logref, void **k, int rc)
{
	if (call == MPIVET_ID_MPI_Init || call == MPIVET_ID_MPI_Init_thread) {
		int provided = MPI_THREAD_SINGLE;
		if (rc == MPI_SUCCESS && call == MPIVET_ID_MPI_Init_thread)
			provided = *ARG(int *, MPIVET_K_MPI_Init_thread_provided);
		if (rc == MPI_SUCCESS)
			start(provided);
		return;
	}
	int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
	switch (call) {
	case MPIVET_ID_MPI_Send_init: case MPIVET_ID_MPI_Bsend_init: case MPIVET_ID_MPI_Ssend_init: case MPIVET_ID_MPI_Rsend_init: {
		MPI_Request *h = ARG(MPI_Request *, 6);
		if (ok && h && *h != MPI_REQUEST_NULL) {
			struct req *r = radd(*h, PSEND);
			r->dest = ARG(int, 3), r->tag = ARG(int, 4), r->comm = ARG(MPI_Comm, 5), r->type = ARG(MPI_Datatype, 2);
		}
		break;
	}
	case MPIVET_ID_MPI_Recv_init: {
		MPI_Request *h = ARG(MPI_Request *, 6);
		if (ok && h && *h != MPI_REQUEST_NULL) {
			struct req *r = radd(*h, PRECV);
			r->sh = find(ARG(MPI_Comm, 5));
			r->src = r->orig_src = ARG(int, 3), r->tag = ARG(int, 4), r->comm = ARG(MPI_Comm, 5);
			r->pbuf = ARG(void *, 0), r->count = ARG(int, 1), r->type = ARG(MPI_Datatype, 2);
			r->pc = mpivet_call_pc;
		}
		break;
	}
	case MPIVET_ID_MPI_Start: case MPIVET_ID_MPI_Startall: {
		for (int i = 0; ok && i < cur.nstarted; i++)
			cur.started[i]->active = 1;
		break;
	}
	case MPIVET_ID_MPI_Recv:
		if (ok)
			recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Recv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Recv_datatype), &ARG(int, MPIVET_K_MPI_Recv_source), ARG(MPI_Status *, MPIVET_K_MPI_Recv_status), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv:
		if (ok) {
			recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_recvtype), &ARG(int, MPIVET_K_MPI_Sendrecv_source), ARG(MPI_Status *, MPIVET_K_MPI_Sendrecv_status), logref);
		}
		break;
	case MPIVET_ID_MPI_Sendrecv_replace:
		if (ok) {
			recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_replace_datatype), &ARG(int, MPIVET_K_MPI_Sendrecv_replace_source), ARG(MPI_Status *, MPIVET_K_MPI_Sendrecv_replace_status), logref);
		}
		break;
	case MPIVET_ID_MPI_Irecv: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Irecv_request);
		int *src = &ARG(int, MPIVET_K_MPI_Irecv_source);
		if (ok && h && *h != MPI_REQUEST_NULL) {
			struct req *r = post_recv(*h, RECV, *src, ARG(int, MPIVET_K_MPI_Irecv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Irecv_comm), logref);
			r->type = ARG(MPI_Datatype, MPIVET_K_MPI_Irecv_datatype);
			enqueue(r);
		}
		*src = cur.src;
		break;
	}
	case MPIVET_ID_MPI_Probe:
		if (ok)
			probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Probe_comm), &ARG(int, MPIVET_K_MPI_Probe_source), ARG(MPI_Status *, MPIVET_K_MPI_Probe_status), 0, logref);
		break;
	case MPIVET_ID_MPI_Mprobe:
		if (ok)
			probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Mprobe_comm), &ARG(int, MPIVET_K_MPI_Mprobe_source), ARG(MPI_Status *, MPIVET_K_MPI_Mprobe_status), 1, logref);
		break;
	case MPIVET_ID_MPI_Iprobe:
		if (ok && *ARG(int *, MPIVET_K_MPI_Iprobe_flag))
			probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Iprobe_comm), &ARG(int, MPIVET_K_MPI_Iprobe_source), ARG(MPI_Status *, MPIVET_K_MPI_Iprobe_status), 0, logref);
		ARG(int, MPIVET_K_MPI_Iprobe_source) = cur.src;
		break;
	case MPIVET_ID_MPI_Improbe:
		if (ok && *ARG(int *, MPIVET_K_MPI_Improbe_flag))
			probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Improbe_comm), &ARG(int, MPIVET_K_MPI_Improbe_source), ARG(MPI_Status *, MPIVET_K_MPI_Improbe_status), 1, logref);
		ARG(int, MPIVET_K_MPI_Improbe_source) = cur.src;
		break;
	case MPIVET_ID_MPI_Wait:
		if (ok && cur.nsnap)
			completed(cur.snap[0], ARG(MPI_Status *, 1));
		break;
	case MPIVET_ID_MPI_Test:
		if (ok && cur.nsnap && *ARG(int *, 1))
			completed(cur.snap[0], ARG(MPI_Status *, 2));
		break;
	case MPIVET_ID_MPI_Request_get_status:
		if (ok && *ARG(int *, 1)) {
			struct req *r = rfind(cur.snap[0]);
			if (r && (r->kind == RECV || r->kind == PRECV)) {
				finish(r, ARG(MPI_Status *, 2)); /* its Wait will find it settled */
			}
		}
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany: {
		int *idx = ARG(int *, 2);
		int flag = call == MPIVET_ID_MPI_Waitany || *ARG(int *, 3);
		MPI_Status *st = ARG(MPI_Status *, call == MPIVET_ID_MPI_Waitany ? 3 : 4);
		any_restore();
		if (ok && flag && idx && *idx != MPI_UNDEFINED && *idx >= 0 && *idx < cur.nsnap)
			any_complete(idx, 1, st);
		break;
	}
	case MPIVET_ID_MPI_Waitall:
	case MPIVET_ID_MPI_Testall: {
		MPI_Status **stp = &ARG(MPI_Status *, 2);
		int flag = call == MPIVET_ID_MPI_Waitall || *ARG(int *, 2);
		if (call == MPIVET_ID_MPI_Testall)
			stp = &ARG(MPI_Status *, 3);
		if (ok && flag)
			for (int i = 0; i < cur.nsnap; i++)
				completed(cur.snap[i], &(*stp)[i]);
		*stp = cur.user_sts;
		break;
	}
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome: {
		int out = *ARG(int *, 2);
		int *idx = ARG(int *, 3);
		MPI_Status **stp = &ARG(MPI_Status *, 4);
		any_restore();
		if (ok && out != MPI_UNDEFINED && out > 0)
			any_complete(idx, out, *stp);
		*stp = cur.user_sts;
		break;
	}
	default:
		if (!ok)
			break;
		if (mpivet_call_k_newcomm[call] >= 0) {
			MPI_Comm *c = ARG(MPI_Comm *, mpivet_call_k_newcomm[call]);
			if (c)
				shadow_dup(*c);
			break;
		}
		if (call == MPIVET_ID_MPI_Comm_idup) {
			/* the shadow is an idup of the parent, completed with the program's */
			MPI_Request *h = ARG(MPI_Request *, 2);
			struct shadow *s = find(ARG(MPI_Comm, 0));
			if (h && *h != MPI_REQUEST_NULL && s) {
				struct req *r = radd(*h, COLL);
				r->newcomm = ARG(MPI_Comm *, 1);
				r->idup = MPI_COMM_NULL, r->aux = MPI_REQUEST_NULL;
				if (clocking)
					PMPI_Comm_idup(s->comm, &r->idup, &r->aux);
			}
			break;
		}
		if (mpivet_call_flags[call] & MPIVET_CALL_COLL)
			clock_sync(call, k, rc);
		break;
	}
}
