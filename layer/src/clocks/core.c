/*
 * clocks/: the clock protocol, the per-rank half of the exploration of MPI
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
 *
 * The protocol owns what a rank knows of the order of messages: it is the
 * one part of the layer that sends messages of its own (piggybacks, clock
 * collectives, on shadow communicators) and rewrites the program's
 * arguments (a forced source, requests hidden from a Waitany). It sees
 * every call through the hooks the wrappers call (clocks.h), and below it
 * only the recorder and the signatures.
 *
 * The files, from the bottom up: core.c (this: the rank's clock and the
 * protocol's state), shadows.c (the shadow communicators), piggybacks.c (sent ahead of
 * each message, taken when its receive completes), requests.c (the
 * program's requests the protocol follows, and the state of the call in
 * progress), events.c (wildcard receives and probes, the arrival of
 * messages, clock synchronisation by collectives), anyevents.c (the outcome
 * of Waitany, Testany, Waitsome, Testsome), holds.c (a thread's receive
 * held back until another thread's forced one has matched), unreceived.c (messages never
 * received, at MPI_Finalize), stats.c (what the protocol sent and the
 * rank's peak memory, printed at MPI_Finalize when MPIVET_SCALE_STATS=1
 * asks), hooks.c (what each MPI call means to the protocol, MPI_Init
 * starting it); protocol.h is what they share.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mpivet_ck_on;
int mpivet_ck_forcing;

int mode = LAMPORT;
int clocking;
uint64_t nsent, nreceived;
int me, np;
uint64_t *clk;
int pbn;
int pbw;
__thread uint64_t events __attribute__((tls_model("initial-exec")));
uint64_t newest;
int matched_any;
int quiet;
uint64_t *forced_event;
int *forced_src, *forced_kind;
size_t nforced;

/* ---- Threads ---- */

/* Under MPI_THREAD_MULTIPLE (set when the protocol starts, before a second
 * thread can be inside it) each hook runs holding ck_mu: the tables,
 * the ring of piggybacks, the rank's clock and the log's order of events are
 * the rank's, updated by one thread at a time. The program's MPI call runs
 * between two hooks, without it. A thread's first hook numbers its events
 * from its identity, the same in every run (protocol.h, events). */
int ck_threads;
static pthread_mutex_t ck_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int numbered __attribute__((tls_model("initial-exec")));

void ck_enter(void)
{
	pthread_mutex_lock(&ck_mu);
	if (!numbered) {
		numbered = 1;
		events = (uint64_t)mpivet_thread_id << 32;
	}
}

void ck_leave(void) { pthread_mutex_unlock(&ck_mu); }

void ck_unlock(void)
{
	if (ck_threads)
		pthread_mutex_unlock(&ck_mu);
}

void ck_relock(void)
{
	if (ck_threads)
		pthread_mutex_lock(&ck_mu);
}

/* ck_log_event logs a record of the clock protocol, when it is on. */
void ck_log_event(unsigned id, const uint64_t *w, uint64_t n)
{
	if (clocking)
		mpivet_meta(id, w, n);
}

void ck_merge(const uint64_t *pb)
{
	for (int i = 0; i < pbn; i++)
		if (pb[i] > clk[i])
			clk[i] = pb[i];
}

/* ck_record_clocks logs the clock mode, or 0 and why the protocol is off. */
void ck_record_clocks(int m, const char *why)
{
	size_t n = why ? strlen(why) : 0;
	uint64_t w[3 + 64] = {(uint64_t)m, (uint64_t)me, n};
	if (n > 64 * 8)
		n = w[2] = 64 * 8;
	if (n)
		memcpy(&w[3], why, n);
	mpivet_meta(MPIVET_META_CLOCKS, w, 3 + (n + 7) / 8);
}
