/*
 * Deferred receives: MPI_Irecv from MPI_ANY_SOURCE decided by the world
 * clock, not by the MPI (world.c says what the mode does).
 *
 * Posted to the MPI as it is, a wildcard MPI_Irecv would take whatever
 * message arrives first. So the MPI is shown instead a placeholder: a
 * receive from this rank on a private communicator (a dup of
 * MPI_COMM_SELF) with a tag of its own, which is the request the program
 * holds. The real receive is posted later, with the source and tag the
 * mode decides (the message of smallest (stamp, source key), as for a
 * blocking wildcard receive, once every other member's time has passed its
 * stamp), into the program's buffer; when the MPI has completed it, an
 * empty message to this rank completes the placeholder, and the status the
 * program sees is the real receive's (source, tag, count: hooks.c).
 *
 * The MPI matches receives in the order they are posted (non-overtaking):
 * a later receive on the same communicator whose tag overlaps must not
 * take a message the wildcard could have taken. So, while a wildcard is
 * undecided, later nonblocking receives on its communicator with an
 * overlapping tag wait behind it in a queue (placeholders too), posted in
 * order once it is decided; a blocking receive or a probe first decides
 * the queue (dt_flush), which may wait. A decision that has to be relaxed
 * (a deterministic deadlock, decide.c) leaves that wildcard to the MPI.
 *
 * A Test at time t sees the wildcard complete if a message stamped t - K
 * or earlier exists once every member has passed t - K (as an Iprobe
 * does): the decision is taken then. A Wait decides it as a blocking
 * receive does.
 */
#define _GNU_SOURCE
#include "deferred.h"
#include "../datatypes/walk.h"

#include <stdlib.h>

static int ptag; /* the last placeholder tag (1..32767; 0 is dt_dummy's) */
static struct defer *posted; /* deferred receives posted to the MPI, not yet fired */
static void progress(void);

static int tags_meet(int a, int b) { return a == MPI_ANY_TAG || b == MPI_ANY_TAG || a == b; }

/* blocked: a receive with tag on d must wait behind the queue. */
static int blocked(struct dcomm *d, int tag)
{
	for (struct defer *f = d->qhead; f; f = f->qnext)
		if (f->any && tags_meet(f->tag, tag))
			return 1;
	return 0;
}

/* dt_defers: a nonblocking receive (source, tag) on d posted now is
 * deferred: a wildcard, or one behind a wildcard it could race with. */
int dt_defers(struct dcomm *d, int source, int tag)
{
	return source == MPI_ANY_SOURCE || (source != MPI_PROC_NULL && blocked(d, tag));
}

/* dt_defer_args rewrites an MPI_Irecv's source, tag and communicator into
 * the placeholder's, and returns what the real receive needs. */
struct defer *dt_defer_args(struct dcomm *d, void *buf, int count, MPI_Datatype type, int *source, int *tag, MPI_Comm *comm)
{
	struct defer *f = calloc(1, sizeof *f);
	f->d = d, f->buf = buf, f->count = count;
	d->refs++;
	f->type = mpivet_type_hold(type); /* the program may free it before the receive is posted */
	f->any = *source == MPI_ANY_SOURCE, f->src = *source, f->tag = *tag;
	ptag = ptag % 32767 + 1;
	f->ptag = ptag;
	*source = 0, *tag = ptag, *comm = dt_selfc;
	return f;
}

/* dt_defer_queue: the placeholder was posted (t follows it): queue it. */
void dt_defer_queue(struct defer *f, struct treq *t)
{
	struct dcomm *d = f->d;
	f->t = t, t->df = f, f->queued = 1;
	if (d->qtail)
		d->qtail->qnext = f;
	else
		d->qhead = f;
	d->qtail = f;
}

/* release posts the real receive of the queue's head f: from src (a world
 * rank) with tag, mirrored; or, src MPI_ANY_SOURCE, left to the MPI. */
static void release(struct defer *f, int src, int tag)
{
	struct dcomm *d = f->d;
	if (!(d->qhead = f->qnext))
		d->qtail = NULL;
	f->qnext = NULL, f->queued = 0;
	int r = src;
	if (src != MPI_ANY_SOURCE) {
		f->t->p = dt_post_recv(d, src, tag);
		f->t->p->post = f->t->post;
		for (r = 0; r < d->size && d->world[r] != src; r++)
			;
	} else {
		dt_st_uncovered++;
	}
	PMPI_Irecv(f->buf, f->count, f->type, r, tag, d->c, &f->inner);
	f->next = posted, posted = f;
	dt_progress = progress; /* the drains have placeholders to complete */
}

/* advance releases the receives with a known source at the head of d's
 * queue (in posting order, as the MPI would have matched them). */
static void advance(struct dcomm *d)
{
	while (d->qhead && !d->qhead->any)
		release(d->qhead, d->world[d->qhead->src], d->qhead->tag);
}

/* decide decides the wildcard f at the head of its queue: with upto
 * finite, as an Iprobe at upto + K would (1: it takes a message stamped
 * upto at most, released; 0: it takes none such; -1: unknown yet, the
 * ranks behind asked); with upto UINT64_MAX, its message whenever that is
 * (1 or -1). Decisions are taken only here, at calls of the program
 * (Test, Wait, a receive after it), never as messages arrive: whether a
 * wildcard is decided at a given call is itself deterministic. */
static int decide(struct defer *f, uint64_t upto)
{
	struct hdr *h = dt_earliest(f->d, MPI_ANY_SOURCE, f->tag, upto);
	if (upto != UINT64_MAX && !dt_settled(f->d, MPI_ANY_SOURCE, upto))
		return -1;
	if (!h)
		return upto == UINT64_MAX ? -1 : 0;
	if (upto == UINT64_MAX && !dt_settled(f->d, MPI_ANY_SOURCE, h->stamp))
		return -1;
	dt_st_wild++;
	release(f, h->src, h->tag);
	advance(f->d);
	return 1;
}

/* progress: the placeholders of real receives the MPI has completed are
 * completed by an empty message. Called at every entry and in every wait
 * (world.c's dt_drain, as dt_progress). */
static void progress(void)
{
	for (struct defer **q = &posted; *q;) {
		struct defer *f = *q;
		int flag = 0;
		PMPI_Test(&f->inner, &flag, &f->st);
		if (!flag) {
			q = &f->next;
			continue;
		}
		*q = f->next;
		f->fired = 1;
		PMPI_Send(NULL, 0, MPI_BYTE, 0, f->ptag, dt_selfc);
	}
}

static int head_decided(void *a)
{
	struct dcomm *d = a;
	return !d->qhead || decide(d->qhead, UINT64_MAX) > 0;
}

/* decide_head decides the wildcard at the head of d's queue, waiting for
 * its message; a decision that has to be relaxed (decide.c) leaves it to
 * the MPI. */
static void decide_head(struct dcomm *d)
{
	dt_wait_on(d, MPI_ANY_SOURCE);
	int exact = dt_wait(head_decided, d, 1);
	dt_wait_done();
	if (!exact && d->qhead)
		release(d->qhead, MPI_ANY_SOURCE, d->qhead->tag);
	advance(d);
}

/* dt_defer_release_all: the program frees d's communicator with receives
 * deferred on it: they are posted now, while it is valid, each wildcard
 * left to the MPI's matching (not waiting for a decision: its message may
 * come only after the free); d lives on until they end. */
void dt_defer_release_all(struct dcomm *d)
{
	while (d->qhead) {
		if (d->qhead->any)
			release(d->qhead, MPI_ANY_SOURCE, d->qhead->tag);
		advance(d);
	}
}

/* dt_flush: a blocking receive or probe with tag on d first decides every
 * wildcard before it that could take its message. */
void dt_flush(struct dcomm *d, int tag)
{
	while (blocked(d, tag))
		decide_head(d);
}

/* dt_defer_wait: a Wait, Waitall, Waitany or Waitsome on deferred receive
 * t first decides it (and what is queued before it). */
void dt_defer_wait(struct treq *t)
{
	while (t->df && t->df->queued)
		decide_head(t->df->d);
}

/* dt_defer_test: for a Test at time now of a queued receive t, the
 * wildcards queued before it and itself are decided as at now: 0 if t is
 * not complete by now, -1 if that depends on a peer's time, 2 if t was
 * released (then a receive like any, decided by dt_test_one). */
int dt_defer_test(struct treq *t, uint64_t now)
{
	struct defer *f = t->df;
	if (now < t->post + dt_k)
		return 0;
	while (f->queued) {
		if (!f->d->qhead->any) {
			advance(f->d);
			continue;
		}
		int r = decide(f->d->qhead, now - dt_k);
		if (r <= 0)
			return r;
	}
	return 2;
}

/* dt_defer_status gives the program the real receive's status in st. */
void dt_defer_status(struct defer *f, MPI_Status *st)
{
	if (!st || st == MPI_STATUS_IGNORE || !f->fired)
		return;
	int n = 0;
	st->MPI_SOURCE = f->st.MPI_SOURCE;
	st->MPI_TAG = f->st.MPI_TAG;
	st->MPI_ERROR = f->st.MPI_ERROR;
	PMPI_Get_count(&f->st, MPI_BYTE, &n);
	PMPI_Status_set_elements(st, MPI_BYTE, n);
}

/* dt_defer_done: the program has completed t: the mirrored matching
 * follows (a receive left to the MPI, from its status). */
void dt_defer_done(struct treq *t)
{
	struct defer *f = t->df;
	if (t->p)
		dt_complete(t->p);
	else if (f->fired)
		dt_complete_wild(f->d, f->st.MPI_SOURCE, f->st.MPI_TAG);
	t->p = NULL;
	mpivet_type_release(&f->type);
	dt_comm_unref(f->d);
	free(f);
	t->df = NULL;
}

/* dt_defer_drop: the program cancels or frees t before it completes: a
 * queued receive leaves the queue (it takes no message), a posted one is
 * cancelled. */
void dt_defer_drop(struct treq *t)
{
	struct defer *f = t->df;
	struct dcomm *d = f->d;
	struct defer *prev = NULL;
	for (struct defer *g = d->qhead; g; prev = g, g = g->qnext)
		if (g == f) {
			if (prev)
				prev->qnext = f->qnext;
			else
				d->qhead = f->qnext;
			if (d->qtail == f)
				d->qtail = prev;
			advance(d);
			break;
		}
	f->queued = 0;
	for (struct defer **q = &posted; *q; q = &(*q)->next)
		if (*q == f) {
			*q = f->next;
			PMPI_Cancel(&f->inner);
			PMPI_Wait(&f->inner, &f->st);
			int c = 0;
			PMPI_Test_cancelled(&f->st, &c);
			f->fired = !c;
			break;
		}
	if (f->fired)
		dt_defer_done(t);
	else {
		if (t->p)
			dt_unpost(t->p); /* cancelled: it took nothing */
		t->p = NULL;
		mpivet_type_release(&f->type);
		dt_comm_unref(f->d);
		free(f);
		t->df = NULL;
	}
}
