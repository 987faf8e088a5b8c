/*
 * The program's requests the protocol follows (receives, persistent
 * operations, nonblocking collectives' clock collectives), by handle, and
 * the receives whose piggyback is still to come, in posting order; the
 * state of the call in progress between its two hooks.
 */
#define _GNU_SOURCE
#include "protocol.h"
#include "../datatypes/walk.h"

#include <stdlib.h>
#include <string.h>

static struct req *rtab[RBUCKETS];
struct req *qhead;
static struct req *qtail;
uint64_t seqs;

struct req **ck_rslot(MPI_Request h)
{
	uint64_t k = MPIVET_H(h);
	return &rtab[(size_t)((k * 0x9E3779B97F4A7C15ULL) >> 40) & (RBUCKETS - 1)];
}

struct req *ck_rfind(MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return NULL;
	for (struct req *r = *ck_rslot(h); r; r = r->hnext)
		if (r->h == h && (!r->busy || r->busy == mpivet_thread_no + 1))
			return r;
	return NULL;
}

struct req *ck_radd(MPI_Request h, int kind)
{
	struct req *r = calloc(1, sizeof *r);
	r->h = h;
	r->kind = kind;
	r->type = MPI_DATATYPE_NULL;
	r->owner = mpivet_thread_no;
	struct req **b = ck_rslot(h);
	r->hnext = *b;
	*b = r;
	return r;
}

void ck_runhash(struct req *r)
{
	for (struct req **p = ck_rslot(r->h); *p; p = &(*p)->hnext)
		if (*p == r) {
			*p = r->hnext;
			return;
		}
}

void ck_enqueue(struct req *r)
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

void ck_dequeue(struct req *r)
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

void ck_rfree(struct req *r)
{
	if (r->busy == mpivet_thread_no + 1 && r->snapi < cur.nsnap && cur.rsnap[r->snapi] == r)
		cur.rsnap[r->snapi] = NULL;
	ck_dequeue(r);
	ck_runhash(r);
	ck_shadow_release(r->sh);
	if (r->type != MPI_DATATYPE_NULL)
		mpivet_type_release(&r->type);
	free(r->buf);
	free(r);
}

/* ---- Per-call state between the pre and post hooks ---- */

__thread struct ck_call cur __attribute__((tls_model("initial-exec")));

/* ck_started_sends remembers the persistent sends and collectives among
 * hs[0..n) on entry (an MPI may give a request a new handle when it is
 * started wrongly) and sends the sends' piggybacks, ahead of their
 * messages; the collectives' clocks go once they are started. */
void ck_started_sends(MPI_Request *hs, int n)
{
	cur.nstarted = 0;
	for (int i = 0; hs && i < n; i++) {
		struct req *r = ck_rfind(hs[i]);
		if (!r || (r->kind != PSEND && r->kind != PCOLL))
			continue;
		if (cur.nstarted == cur.capstarted) {
			cur.capstarted = cur.capstarted ? 2 * cur.capstarted : 16;
			cur.started = realloc(cur.started, cur.capstarted * sizeof *cur.started);
		}
		cur.started[cur.nstarted++] = r;
		if (r->kind == PSEND)
			ck_send_pb(r->dest, r->tag, r->comm, r->sig);
	}
}

/* ck_snapshot keeps the n request handles rs on entry to a completion call,
 * and the protocol's requests they are: the call's return is handled with
 * those, never by looking its handles up again, since a handle the MPI
 * freed may by then be another thread's new request. Until the call's
 * return is handled they are busy: a lookup of their handle by another
 * thread (whose new request, one the protocol does not follow, may have
 * it) does not find them. */
void ck_snapshot(const MPI_Request *rs, int n)
{
	if (n < 0 || !rs)
		n = 0;
	if (n > cur.capsnap) {
		free(cur.snap);
		free(cur.rsnap);
		cur.capsnap = n * 2;
		cur.snap = malloc(cur.capsnap * sizeof *cur.snap);
		cur.rsnap = malloc(cur.capsnap * sizeof *cur.rsnap);
	}
	for (int i = 0; i < n; i++) {
		struct req *r = ck_rfind(rs[i]);
		if (r && r->busy) /* (twice in the array: an error the MPI reports) */
			r = NULL;
		if (r)
			r->busy = mpivet_thread_no + 1, r->snapi = i;
		cur.snap[i] = rs[i];
		cur.rsnap[i] = r;
	}
	cur.nsnap = n;
}

/* ck_snapshot_done ends the completion call in progress: its requests that
 * live on are anyone's to look up again. */
void ck_snapshot_done(void)
{
	for (int i = 0; i < cur.nsnap; i++)
		if (cur.rsnap[i])
			cur.rsnap[i]->busy = 0;
	cur.nsnap = 0;
}

/* ck_statuses makes *p (a statuses argument) a real array of n. */
void ck_statuses(MPI_Status **p, int n)
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
