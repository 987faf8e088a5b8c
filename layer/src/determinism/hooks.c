/*
 * What each MPI call means to deterministic mode (world.c says what the
 * mode does). The hooks see the wrapper's parameters by address (k[i]
 * points to parameter i; generated/ids.h names the positions), like the
 * clock protocol's, and may rewrite them: a wildcard's source and tag, a
 * request hidden behind one that never completes, a request array of
 * which only the chosen one is shown.
 */
#define _GNU_SOURCE
#include "decide.h"
#include "deferred.h"
#include "requests.h"

#include <stdlib.h>
#include <string.h>

#define ARG(T, name) (*(T *)k[name])

/* The call in progress, between the pre and post hooks. */
static struct {
	struct prc *p;        /* the receive it posts, mirrored */
	int no_message;       /* an Iprobe decided to find nothing */
	MPI_Request *user;    /* the program's request (Test) or array (Testany, Waitany) */
	MPI_Request *scratch; /* ... and what the MPI is shown instead */
	int capscratch, chosen;
	struct treq **snap; /* the followed requests given, by index */
	int nsnap, capsnap;
	struct defer *df; /* an MPI_Irecv deferred (deferred.c) */
	char *in; /* Testsome, Waitsome: the requests shown */
	int capin;
} cur;

static void snapshot(MPI_Request *hs, int n)
{
	if (n > cur.capsnap) {
		cur.capsnap = n * 2;
		cur.snap = realloc(cur.snap, cur.capsnap * sizeof *cur.snap);
	}
	cur.nsnap = hs ? n : 0;
	for (int i = 0; i < cur.nsnap; i++)
		cur.snap[i] = dt_tfind(hs[i]);
}

/* decide_deferred: a blocking completion call first decides the deferred
 * receives it is given (their messages must come: deferred.c). */
static void decide_deferred(void)
{
	for (int i = 0; i < cur.nsnap; i++)
		if (cur.snap[i] && cur.snap[i]->df)
			dt_defer_wait(cur.snap[i]);
}

/* finished: the operation of snapshot index i has completed with status
 * st (a deferred receive's is the real receive's from here on). */
static void finished(int i, MPI_Status *st)
{
	struct treq *t = i >= 0 && i < cur.nsnap ? cur.snap[i] : NULL;
	if (!t)
		return;
	if (t->df) {
		dt_defer_status(t->df, (MPI_Status *)st);
		dt_defer_done(t);
	} else if (t->p)
		dt_complete(t->p);
	dt_tdrop(t);
	cur.snap[i] = NULL;
}

struct arrival {
	int src, tag;
	MPI_Comm c;
};

static int arrived(void *a)
{
	struct arrival *r = a;
	int flag = 0;
	PMPI_Iprobe(r->src, r->tag, r->c, &flag, MPI_STATUS_IGNORE);
	return flag;
}

/* receive handles the entry of a blocking receive or probe (claim: it
 * takes the message; await: it waits, answering Requests, until its
 * message is there: not a Sendrecv's, whose partner may send it in the
 * same call). Deferred receives before it that it could race with are
 * decided first; a wildcard is decided (on headers, not data). */
static void receive(int *src, int *tag, MPI_Comm c, int claim, int await)
{
	struct dcomm *d = dt_comm(c);
	if (!d || *src == MPI_PROC_NULL)
		return;
	if (d->qhead)
		dt_flush(d, *tag);
	if (*src == MPI_ANY_SOURCE) {
		dt_wild(d, src, tag, claim, &cur.p);
		return;
	}
	if (*src < 0 || *src >= d->size)
		return;
	if (claim)
		cur.p = dt_post_recv(d, d->world[*src], *tag);
	if (await) {
		struct arrival r = {*src, *tag, c};
		dt_wait_on(d, d->world[*src]);
		dt_wait(arrived, &r, 0);
		dt_wait_done();
	}
}

/* hide_all shows the MPI only request `chosen` of a Testany or Waitany (or,
 * with -1, a receive that never completes: the Testany finds nothing). */
static void hide_all(void **k, int at, MPI_Request *hs, int n, int chosen)
{
	if (n > cur.capscratch) {
		cur.capscratch = n * 2;
		cur.scratch = realloc(cur.scratch, cur.capscratch * sizeof *cur.scratch);
	}
	for (int i = 0; i < n; i++)
		cur.scratch[i] = MPI_REQUEST_NULL;
	if (chosen >= 0)
		cur.scratch[chosen] = hs[chosen];
	else
		cur.scratch[0] = dt_dummy;
	cur.user = hs;
	cur.chosen = chosen;
	ARG(MPI_Request *, at) = cur.scratch;
}

/* pre_some decides a Testsome, Testall or Waitsome (all three have the
 * count and the array as parameters 0 and 1): the MPI is shown only the
 * requests decided complete (a receive that never completes if none). */
static void pre_some(unsigned call, void **k)
{
	MPI_Request *hs = ARG(MPI_Request *, 1);
	int n = ARG(int, 0);
	snapshot(hs, n);
	if (!hs || n <= 0)
		return;
	if (n > cur.capin) {
		cur.capin = n * 2;
		cur.in = realloc(cur.in, cur.capin);
	}
	int mode = call == MPIVET_ID_MPI_Testall ? DT_TESTALL : call == MPIVET_ID_MPI_Waitsome ? DT_WAITSOME : DT_TESTSOME;
	if (mode == DT_WAITSOME)
		decide_deferred();
	int r = dt_pick_set(hs, n, mode, cur.in);
	if (r == -2 || (mode == DT_TESTALL && r == n))
		return; /* the MPI decides, or it completes them all */
	hide_all(k, 1, hs, n, -1);
	for (int i = 0; r > 0 && i < n; i++)
		cur.scratch[i] = cur.in[i] ? hs[i] : MPI_REQUEST_NULL;
	cur.chosen = r > 0 ? -2 : -1; /* -2: the shown ones are copied back */
}

static void pre_completion(unsigned call, void **k)
{
	switch (call) {
	case MPIVET_ID_MPI_Wait: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Wait_request);
		snapshot(h, 1);
		decide_deferred();
		if (h)
			dt_sync_wait(h, 1);
		break;
	}
	case MPIVET_ID_MPI_Waitall: {
		MPI_Request *hs = ARG(MPI_Request *, MPIVET_K_MPI_Waitall_array_of_requests);
		int n = ARG(int, MPIVET_K_MPI_Waitall_count);
		snapshot(hs, n);
		decide_deferred();
		if (hs)
			dt_sync_wait(hs, n);
		break;
	}
	case MPIVET_ID_MPI_Test: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Test_request);
		snapshot(h, 1);
		if (h && dt_pick(h, 1, 0) == -1) {
			cur.user = h;
			ARG(MPI_Request *, MPIVET_K_MPI_Test_request) = &dt_dummy;
		}
		break;
	}
	case MPIVET_ID_MPI_Request_get_status: {
		/* as MPI_Test, without freeing: the request (by value) is the
		 * wrapper's copy, shown as dt_dummy while not complete */
		MPI_Request *h = &ARG(MPI_Request, MPIVET_K_MPI_Request_get_status_request);
		snapshot(h, 1);
		if (dt_pick(h, 1, 0) == -1)
			*h = dt_dummy;
		break;
	}
	case MPIVET_ID_MPI_Testany:
	case MPIVET_ID_MPI_Waitany: {
		MPI_Request *hs = ARG(MPI_Request *, 1);
		int n = ARG(int, 0), blocking = call == MPIVET_ID_MPI_Waitany;
		snapshot(hs, n);
		if (blocking)
			decide_deferred();
		int r = hs && n > 0 ? dt_pick(hs, n, blocking) : -2;
		if (r >= 0 || (r == -1 && !blocking))
			hide_all(k, 1, hs, n, r);
		break;
	}
	case MPIVET_ID_MPI_Testall: case MPIVET_ID_MPI_Waitsome: case MPIVET_ID_MPI_Testsome:
		pre_some(call, k);
		break;
	case MPIVET_ID_MPI_Request_free:
	case MPIVET_ID_MPI_Cancel: {
		MPI_Request *h = ARG(MPI_Request *, 0);
		struct treq *t = h ? dt_tfind(*h) : NULL;
		if (t && t->df)
			dt_defer_drop(t);
		if (t && call == MPIVET_ID_MPI_Request_free)
			dt_tdrop(t);
		if (h && call == MPIVET_ID_MPI_Request_free)
			dt_pers_free(*h);
		break;
	}
	case MPIVET_ID_MPI_Mprobe: case MPIVET_ID_MPI_Improbe:
		dt_st_uncovered++;
		cur.nsnap = 0;
		break;
	}
}

/* post_init: a persistent request with a known peer is followed
 * (requests.c); MPI_PROC_NULL and MPI_ANY_SOURCE are left to the MPI. */
static void post_init(unsigned call, void **k)
{
	/* the peer, tag and communicator follow the datatype: parameter 2, or
	 * 3 for the partitioned ones (MPI 4.0), whose counts are per partition */
	int dt = call == MPIVET_ID_MPI_Psend_init || call == MPIVET_ID_MPI_Precv_init ? 3 : 2;
	MPI_Request *h = ARG(MPI_Request *, mpivet_call_k_request[call]);
	struct dcomm *d = dt_comm(ARG(MPI_Comm, dt + 3));
	int peer = ARG(int, dt + 1), send = call != MPIVET_ID_MPI_Recv_init && call != MPIVET_ID_MPI_Precv_init;
	if (!h || !d || peer < 0 || peer >= d->size)
		return; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
	dt_pers_new(*h, d, send, peer, ARG(int, dt + 2));
}

static void start(MPI_Request h)
{
	struct pers *p = dt_pers_find(h);
	if (!p) {
		dt_st_uncovered++;
		return;
	}
	if (p->send)
		dt_header(p->peer, p->tag, p->d->c);
	dt_track(h, p->send ? NULL : dt_post_recv(p->d, p->d->world[p->peer], p->tag));
}

/* pre_irecv: an MPI_Irecv from any source, or behind an undecided one on
 * its communicator, is deferred: the MPI sees a placeholder (deferred.c);
 * others are mirrored as posted. */
static void pre_irecv(void **k)
{
	int *src = &ARG(int, MPIVET_K_MPI_Irecv_source), *tag = &ARG(int, MPIVET_K_MPI_Irecv_tag);
	MPI_Comm *c = &ARG(MPI_Comm, MPIVET_K_MPI_Irecv_comm);
	struct dcomm *d = dt_comm(*c);
	if (!d || *src == MPI_PROC_NULL || (*src != MPI_ANY_SOURCE && (*src < 0 || *src >= d->size)))
		return;
	if (dt_defers(d, *src, *tag))
		cur.df = dt_defer_args(d, ARG(void *, MPIVET_K_MPI_Irecv_buf), ARG(int, MPIVET_K_MPI_Irecv_count),
		                       ARG(MPI_Datatype, MPIVET_K_MPI_Irecv_datatype), src, tag, c);
	else
		cur.p = dt_post_recv(d, d->world[*src], *tag);
}

/* pre_isendrecv: MPI_Isendrecv(_replace) (MPI 4.0) sends with its header
 * first; its receive from a known source is mirrored as posted, one from
 * MPI_ANY_SOURCE left to the MPI (uncovered: the MPI sees the request, no
 * placeholder can stand for half of it). */
static void pre_isendrecv(int dest, int sendtag, int src, int tag, MPI_Comm c)
{
	dt_header(dest, sendtag, c);
	struct dcomm *d = dt_comm(c);
	if (!d || src == MPI_PROC_NULL)
		return;
	if (d->qhead)
		dt_flush(d, tag);
	if (src == MPI_ANY_SOURCE)
		dt_st_uncovered++;
	else if (src >= 0 && src < d->size)
		cur.p = dt_post_recv(d, d->world[src], tag);
}

void mpivet_dt_pre(unsigned call, uint64_t logref, void **k)
{
	(void)logref;
	cur.p = NULL, cur.no_message = 0, cur.user = NULL, cur.nsnap = 0, cur.df = NULL;
	dt_lt++;
	switch (call) {
	/* every send has datatype, dest, tag, comm as parameters 2, 3, 4, 5;
	 * its header goes first, before any Answer of this call */
	case MPIVET_ID_MPI_Send: case MPIVET_ID_MPI_Bsend: case MPIVET_ID_MPI_Ssend: case MPIVET_ID_MPI_Rsend:
	case MPIVET_ID_MPI_Isend: case MPIVET_ID_MPI_Ibsend: case MPIVET_ID_MPI_Issend: case MPIVET_ID_MPI_Irsend:
		dt_header(ARG(int, 3), ARG(int, 4), ARG(MPI_Comm, 5));
		break;
	case MPIVET_ID_MPI_Sendrecv:
		dt_header(ARG(int, MPIVET_K_MPI_Sendrecv_dest), ARG(int, MPIVET_K_MPI_Sendrecv_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm));
		receive(&ARG(int, MPIVET_K_MPI_Sendrecv_source), &ARG(int, MPIVET_K_MPI_Sendrecv_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), 1, 0);
		break;
	case MPIVET_ID_MPI_Sendrecv_replace:
		dt_header(ARG(int, MPIVET_K_MPI_Sendrecv_replace_dest), ARG(int, MPIVET_K_MPI_Sendrecv_replace_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm));
		receive(&ARG(int, MPIVET_K_MPI_Sendrecv_replace_source), &ARG(int, MPIVET_K_MPI_Sendrecv_replace_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), 1, 0);
		break;
	case MPIVET_ID_MPI_Recv:
		receive(&ARG(int, MPIVET_K_MPI_Recv_source), &ARG(int, MPIVET_K_MPI_Recv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Recv_comm), 1, 1);
		break;
	case MPIVET_ID_MPI_Irecv:
		pre_irecv(k);
		break;
	case MPIVET_ID_MPI_Isendrecv:
		pre_isendrecv(ARG(int, MPIVET_K_MPI_Isendrecv_dest), ARG(int, MPIVET_K_MPI_Isendrecv_sendtag), ARG(int, MPIVET_K_MPI_Isendrecv_source),
		              ARG(int, MPIVET_K_MPI_Isendrecv_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_comm));
		break;
	case MPIVET_ID_MPI_Isendrecv_replace:
		pre_isendrecv(ARG(int, MPIVET_K_MPI_Isendrecv_replace_dest), ARG(int, MPIVET_K_MPI_Isendrecv_replace_sendtag),
		              ARG(int, MPIVET_K_MPI_Isendrecv_replace_source), ARG(int, MPIVET_K_MPI_Isendrecv_replace_recvtag),
		              ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_replace_comm));
		break;
	case MPIVET_ID_MPI_Probe:
		receive(&ARG(int, MPIVET_K_MPI_Probe_source), &ARG(int, MPIVET_K_MPI_Probe_tag), ARG(MPI_Comm, MPIVET_K_MPI_Probe_comm), 0, 1);
		break;
	case MPIVET_ID_MPI_Iprobe: {
		struct dcomm *d = dt_comm(ARG(MPI_Comm, MPIVET_K_MPI_Iprobe_comm));
		int *src = &ARG(int, MPIVET_K_MPI_Iprobe_source);
		if (d && *src != MPI_PROC_NULL && (*src == MPI_ANY_SOURCE || (*src >= 0 && *src < d->size)))
			cur.no_message = !dt_iprobe(d, src, &ARG(int, MPIVET_K_MPI_Iprobe_tag), d->c);
		break;
	}
	case MPIVET_ID_MPI_Start: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Start_request);
		if (h)
			start(*h);
		break;
	}
	case MPIVET_ID_MPI_Startall: {
		MPI_Request *hs = ARG(MPI_Request *, MPIVET_K_MPI_Startall_array_of_requests);
		for (int i = 0; hs && i < ARG(int, MPIVET_K_MPI_Startall_count); i++)
			start(hs[i]);
		break;
	}
	case MPIVET_ID_MPI_Comm_free: {
		MPI_Comm *c = ARG(MPI_Comm *, 0);
		struct dcomm *d = c ? dt_comm(*c) : NULL;
		if (d)
			dt_defer_release_all(d);
		if (c)
			dt_comm_free(*c);
		break;
	}
	case MPIVET_ID_MPI_Finalize:
		dt_finish();
		return;
	default:
		pre_completion(call, k);
	}
	dt_drain();
	dt_answer_all();
}

static void post_completion(unsigned call, void **k, int ok)
{
	switch (call) {
	case MPIVET_ID_MPI_Wait:
		if (ok)
			finished(0, ARG(MPI_Status *, MPIVET_K_MPI_Wait_status));
		break;
	case MPIVET_ID_MPI_Waitall:
		for (int i = 0; ok && i < cur.nsnap; i++) {
			MPI_Status *sts = ARG(MPI_Status *, MPIVET_K_MPI_Waitall_array_of_statuses);
			finished(i, sts && sts != MPI_STATUSES_IGNORE ? &sts[i] : NULL);
		}
		break;
	case MPIVET_ID_MPI_Test:
		if (cur.user)
			ARG(MPI_Request *, MPIVET_K_MPI_Test_request) = cur.user;
		else if (ok && *ARG(int *, MPIVET_K_MPI_Test_flag))
			finished(0, ARG(MPI_Status *, MPIVET_K_MPI_Test_status));
		break;
	case MPIVET_ID_MPI_Request_get_status: {
		/* complete: a deferred receive's status is the real receive's;
		 * the request stays the program's, completed later by a Wait or
		 * Test (finished) */
		int *flag = ARG(int *, MPIVET_K_MPI_Request_get_status_flag);
		struct treq *t = cur.nsnap ? cur.snap[0] : NULL;
		if (ok && flag && *flag && t && t->df)
			dt_defer_status(t->df, ARG(MPI_Status *, MPIVET_K_MPI_Request_get_status_status));
		break;
	}
	case MPIVET_ID_MPI_Testall: {
		if (cur.user) {
			ARG(MPI_Request *, MPIVET_K_MPI_Testall_array_of_requests) = cur.user;
			break; /* not all are complete yet */
		}
		MPI_Status *sts = ARG(MPI_Status *, MPIVET_K_MPI_Testall_array_of_statuses);
		int *flag = ARG(int *, MPIVET_K_MPI_Testall_flag);
		for (int i = 0; ok && flag && *flag && i < cur.nsnap; i++)
			finished(i, sts && sts != MPI_STATUSES_IGNORE ? &sts[i] : NULL);
		break;
	}
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome: {
		if (cur.user) {
			ARG(MPI_Request *, 1) = cur.user;
			for (int i = 0; cur.chosen == -2 && i < ARG(int, 0); i++)
				if (cur.in[i])
					cur.user[i] = cur.scratch[i];
		}
		int *outc = ARG(int *, 2), *idx = ARG(int *, 3);
		MPI_Status *sts = ARG(MPI_Status *, 4);
		for (int j = 0; ok && outc && *outc != MPI_UNDEFINED && j < *outc; j++)
			finished(idx[j], sts && sts != MPI_STATUSES_IGNORE ? &sts[j] : NULL);
		break;
	}
	case MPIVET_ID_MPI_Testany:
	case MPIVET_ID_MPI_Waitany: {
		if (cur.user) {
			ARG(MPI_Request *, 1) = cur.user;
			if (cur.chosen >= 0)
				cur.user[cur.chosen] = cur.scratch[cur.chosen];
		}
		int *idx = ARG(int *, 2);
		MPI_Status *st = ARG(MPI_Status *, call == MPIVET_ID_MPI_Waitany ? MPIVET_K_MPI_Waitany_status : MPIVET_K_MPI_Testany_status);
		if (ok && idx && *idx != MPI_UNDEFINED)
			finished(*idx, st);
		break;
	}
	}
}

void mpivet_dt_post(unsigned call, uint64_t logref, void **k, int rc)
{
	(void)logref;
	if (call == MPIVET_ID_MPI_Init || call == MPIVET_ID_MPI_Init_thread) {
		int provided = MPI_THREAD_SINGLE;
		if (rc == MPI_SUCCESS && call == MPIVET_ID_MPI_Init_thread)
			provided = *ARG(int *, MPIVET_K_MPI_Init_thread_provided);
		if (rc == MPI_SUCCESS && provided != MPI_THREAD_MULTIPLE)
			dt_start();
		return;
	}
	if (!mpivet_dt_on)
		return;
	int ok = rc == MPI_SUCCESS;
	switch (call) {
	case MPIVET_ID_MPI_Recv: case MPIVET_ID_MPI_Sendrecv: case MPIVET_ID_MPI_Sendrecv_replace:
		if (cur.p && ok)
			dt_complete(cur.p);
		return;
	case MPIVET_ID_MPI_Irecv: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Irecv_request);
		if (cur.df && (!ok || !h))
			free(cur.df);
		else if (cur.df)
			dt_defer_queue(cur.df, dt_track(*h, NULL));
		else if (ok && h && cur.p)
			dt_track(*h, cur.p);
		return;
	}
	case MPIVET_ID_MPI_Isendrecv: case MPIVET_ID_MPI_Isendrecv_replace: {
		MPI_Request *h = ARG(MPI_Request *, call == MPIVET_ID_MPI_Isendrecv ? MPIVET_K_MPI_Isendrecv_request : MPIVET_K_MPI_Isendrecv_replace_request);
		if (ok && h)
			dt_track(*h, cur.p);
		return;
	}
	case MPIVET_ID_MPI_Isend: case MPIVET_ID_MPI_Ibsend: case MPIVET_ID_MPI_Issend: case MPIVET_ID_MPI_Irsend: {
		MPI_Request *h = ARG(MPI_Request *, 6);
		if (ok && h && ARG(int, 3) != MPI_PROC_NULL && dt_comm(ARG(MPI_Comm, 5)))
			dt_track(*h, NULL);
		return;
	}
	case MPIVET_ID_MPI_Send_init: case MPIVET_ID_MPI_Bsend_init: case MPIVET_ID_MPI_Ssend_init:
	case MPIVET_ID_MPI_Rsend_init: case MPIVET_ID_MPI_Recv_init:
	case MPIVET_ID_MPI_Psend_init: case MPIVET_ID_MPI_Precv_init:
		if (ok)
			post_init(call, k);
		return;
	case MPIVET_ID_MPI_Iprobe:
		if (cur.no_message)
			*ARG(int *, MPIVET_K_MPI_Iprobe_flag) = 0;
		return;
	}
	if (mpivet_call_k_newcomm[call] >= 0 && mpivet_call_k_idupcomm[call] < 0) { /* idup's is not made yet: not followed */
		MPI_Comm *c = ARG(MPI_Comm *, mpivet_call_k_newcomm[call]);
		if (ok && c)
			dt_comm_new(*c);
		return;
	}
	post_completion(call, k, ok);
}
