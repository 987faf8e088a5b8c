/*
 * The outcome of Waitany, Testany, Waitsome and Testsome, an event too.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <sched.h>
#include <string.h>

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

static __thread struct {
	int event;     /* the call is an event */
	int numbered;  /* ... and has its number, e */
	uint64_t e;
	size_t nf, f0; /* ck_forced indexes: forced_src[f0 .. f0+nf) */
	int hid;       /* requests hidden from the call: any_hidden */
	int keep;      /* Testsome: the one incomplete forced request left, or -1 */
	MPI_Request *hs;
	int n;
	uint64_t logref;
} any __attribute__((tls_model("initial-exec")));
static __thread uint64_t any_prelogged __attribute__((tls_model("initial-exec"))); /* event number + 1 of a polling call whose record is written */

/* live reports whether h is a request a completion call can return. */
static int live(MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return 0;
	struct req *r = ck_rfind(h);
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

/* ck_any_pre numbers the event and applies its decision (cur.snap holds the
 * requests on entry). */
void ck_any_pre(MPI_Request *hs, int n, int blocking, uint64_t logref)
{
	memset(&any, 0, sizeof any);
	int nlive = 0;
	for (int i = 0; i < cur.nsnap; i++)
		nlive += live(cur.snap[i]);
	if (nlive < 2)
		return;
	any.event = 1;
	any.hs = hs, any.n = n, any.logref = logref;
	any.nf = ck_forced_set(events, EV_ANY, &any.f0);
	for (size_t j = 0; j < any.nf; j++) {
		int i = forced_src[any.f0 + j];
		if (i < 0 || i >= cur.nsnap || !live(cur.snap[i]))
			any.nf = 0; /* the replay has diverged: run free */
	}
	int first = any.nf ? forced_src[any.f0] : MPI_ANY_SOURCE;
	if (blocking) {
		any.e = ck_start_event(EV_ANY, NULL, n, first, logref);
		any.numbered = 1;
	} else if (any.nf && any_prelogged != events + 1) {
		/* a forced request that cannot complete would make the program
		 * poll forever: logged now, the explorer recognises that */
		ck_record_wildcard(events, EV_ANY, NULL, n, first, logref);
		any_prelogged = events + 1;
	}
	if (!any.nf)
		return;
	any.keep = -1;
	if (any.nf > 1) { /* the call must return all of them, not some */
		for (size_t j = 0; j < any.nf; j++) {
			int i = forced_src[any.f0 + j];
			ck_unlock();
			while (!done_now(hs[i]) && blocking)
				sched_yield();
			ck_relock();
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

/* ck_any_restore gives the program back the requests hidden from the call
 * (the call itself saw none of them, so none has completed). */
void ck_any_restore(void)
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
			any.e = ck_start_event(EV_ANY, NULL, any.n, MPI_ANY_SOURCE, any.logref);
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
		struct req *r = cur.rsnap[i];
		if (!r || !(r->kind == RECV || (r->kind == PRECV && r->active)))
			continue;
		if (k == 1 && idx[0] == i)
			continue;
		w[n++] = (uint64_t)i;
		w[n++] = r->seq;
		nc++;
		r->cand = 1;
		if (r->has_m)
			ck_record_arrival(r);
	}
	w[at] = nc;
	ck_log_event(MPIVET_META_CHOICE, w, n);
}

/* any_matched gives the event its outcome (first index returned) and clock;
 * the world rank of the first returned message, if a receive, names it in
 * reports. */
static void any_matched(int first, int world, int tag)
{
	uint64_t w[] = {any.e, (uint64_t)(int64_t)first, (uint64_t)(int64_t)world, (uint64_t)(int64_t)tag, *own(), 0};
	ck_log_event(MPIVET_META_MATCHED, w, sizeof w / 8);
	++*own();
}

/* ck_any_complete finishes a Waitany-family call that returned the k requests
 * at idx, with their statuses. */
void ck_any_complete(const int *idx, int k, MPI_Status *sts)
{
	int event = any.event && k > 0;
	int w = -1, tag = -1;
	if (event) {
		any_candidates(idx, k);
		struct req *r = idx[0] < cur.nsnap ? cur.rsnap[idx[0]] : NULL;
		if (r && r->sh && (r->kind == RECV || r->kind == PRECV) && r->src != MPI_PROC_NULL && sts[0].MPI_SOURCE >= 0)
			w = ck_world(r->sh, sts[0].MPI_SOURCE), tag = sts[0].MPI_TAG;
	}
	for (int j = 0; j < k; j++)
		if (idx[j] >= 0 && idx[j] < cur.nsnap)
			ck_completed(cur.rsnap[idx[j]], &sts[j]);
	if (event)
		any_matched(idx[0], w, tag);
}
