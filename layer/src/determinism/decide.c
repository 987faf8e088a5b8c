/*
 * The decisions of deterministic mode (world.c says what the mode does):
 * which message a wildcard receive or probe takes, whether an Iprobe finds
 * one, which request a Test, Testany or Waitany completes. Each waits
 * until the answer follows from logical times alone; a wait that finds a
 * deterministic deadlock gives up and decides on what has arrived.
 */
#define _GNU_SOURCE
#include "decide.h"
#include "deferred.h"
#include "requests.h"

#include <stdlib.h>

/* is_send: t is a send (a receive has its mirror, or is deferred). */
static int is_send(struct treq *t) { return !t->p && !t->df; }

/* dt_left: t is a deferred receive whose decision had to be relaxed: the
 * MPI matches it, and completes it when it will. */
int dt_left(struct treq *t) { return t->df && !t->df->queued && !t->p; }

static int rank_in(struct dcomm *d, int world)
{
	for (int i = 0; i < d->size; i++)
		if (d->world[i] == world)
			return i;
	return MPI_ANY_SOURCE;
}

/* relaxed takes a decision relaxed (a deterministic wait gave up): every
 * rank counts as having passed every time (dt_relaxing). */
static void relaxed(dt_ready ready, void *arg)
{
	dt_relaxing = 1;
	ready(arg);
	dt_relaxing = 0;
}

struct wild {
	struct dcomm *d;
	int world, tag;
	uint64_t upto;
	struct hdr *best;
	MPI_Comm c;
	int src;
};

static int wild_ready(void *a)
{
	struct wild *w = a;
	w->best = dt_earliest(w->d, MPI_ANY_SOURCE, w->tag, UINT64_MAX);
	return w->best && dt_settled(w->d, MPI_ANY_SOURCE, w->best->stamp);
}

static int any_header(void *a)
{
	struct wild *w = a;
	return (w->best = dt_earliest(w->d, MPI_ANY_SOURCE, w->tag, UINT64_MAX)) != NULL;
}

/* dt_wild decides a blocking wildcard receive (claim: it takes the message,
 * mirrored in *pp) or probe: *src and *tag become the earliest message's. */
int dt_wild(struct dcomm *d, int *src, int *tag, int claim, struct prc **pp)
{
	struct wild w = {.d = d, .tag = *tag};
	dt_wait_on(d, MPI_ANY_SOURCE);
	int exact = dt_wait(wild_ready, &w, 1);
	if (!exact)
		dt_wait(any_header, &w, 0); /* relaxed: the earliest of those here */
	dt_wait_done();
	dt_st_wild++;
	*src = rank_in(d, w.best->src);
	*tag = w.best->tag;
	if (claim)
		*pp = dt_post_recv(d, w.best->src, w.best->tag);
	return exact;
}

static int probe_ready(void *a)
{
	struct wild *w = a;
	if (!dt_settled(w->d, w->world, w->upto))
		return 0;
	w->best = dt_earliest(w->d, w->world, w->tag, w->upto);
	return 1;
}

static int arrived(void *a)
{
	struct wild *w = a;
	int flag = 0;
	PMPI_Iprobe(w->src, w->tag, w->c, &flag, MPI_STATUS_IGNORE);
	return flag;
}

/* dt_iprobe: an Iprobe at time dt_lt sees the messages stamped dt_lt - K or
 * earlier, the earliest of them; 1 with *src, *tag set to it (and the
 * message arrived), or 0. */
int dt_iprobe(struct dcomm *d, int *src, int *tag, MPI_Comm c)
{
	dt_st_polls++;
	if (dt_lt <= dt_k)
		return 0;
	struct wild w = {.d = d, .tag = *tag, .upto = dt_lt - dt_k, .world = MPI_ANY_SOURCE};
	if (*src != MPI_ANY_SOURCE)
		w.world = d->world[*src];
	if (!dt_wait(probe_ready, &w, 1))
		w.best = dt_earliest(d, w.world, w.tag, w.upto);
	if (!w.best)
		return 0;
	*src = w.src = rank_in(d, w.best->src);
	*tag = w.tag = w.best->tag;
	w.c = c;
	dt_wait(arrived, &w, 0);
	return 1;
}

/* dt_test_one: does the operation t complete by time now? 1 (at *when),
 * 0, or -1 if that depends on a peer's time (asked). */
int dt_test_one(struct treq *t, uint64_t now, uint64_t *when)
{
	if (t->df && t->df->queued) {
		int r = dt_defer_test(t, now);
		if (r != 2)
			return r;
	}
	if (now < t->post + dt_k)
		return 0;
	if (!t->p) {
		*when = t->post + dt_k;
		return 1;
	}
	struct prc *p = t->p;
	if (p->h) {
		uint64_t s = p->h->stamp > t->post ? p->h->stamp : t->post;
		*when = s + dt_k;
		return *when <= now;
	}
	if (p->src == dt_me || dt_lb[p->src] >= now - dt_k || dt_relaxing)
		return 0;
	dt_need(p->src, now - dt_k);
	return -1;
}

struct pick {
	MPI_Request *hs;
	int n, blocking, chosen;
};

/* pick_ready decides among the requests: for a Test at time dt_lt, the
 * earliest (time, index) completing by dt_lt; for a Waitany, the earliest of
 * all, once no receive still without its message can be earlier. */
static int pick_ready(void *a)
{
	struct pick *pk = a;
	uint64_t best = UINT64_MAX, when;
	pk->chosen = -1;
	int undecided = 0;
	for (int i = 0; i < pk->n; i++) {
		struct treq *t = dt_tfind(pk->hs[i]);
		if (!t)
			continue;
		if (!pk->blocking) {
			int r = dt_test_one(t, dt_lt, &when);
			if (r < 0)
				undecided = 1;
			else if (r > 0 && when < best)
				best = when, pk->chosen = i;
			continue;
		}
		if (!t->p || t->p->h) {
			dt_test_one(t, UINT64_MAX, &when);
			if (when < best)
				best = when, pk->chosen = i;
		}
	}
	if (!pk->blocking)
		return !undecided;
	if (pk->chosen < 0)
		return 0;
	/* no receive still without its message may come earlier */
	int ok = 1;
	for (int i = 0; i < pk->n; i++) {
		struct treq *t = dt_tfind(pk->hs[i]);
		if (!t || !t->p || t->p->h || t->p->src == dt_me)
			continue;
		uint64_t post = t->post, lbw = dt_lb[t->p->src] + 1;
		uint64_t low = (lbw > post ? lbw : post) + dt_k;
		if (low < best || (low == best && i < pk->chosen)) {
			dt_need(t->p->src, best - dt_k);
			ok = 0;
		}
	}
	return ok;
}

static int complete(void *a)
{
	struct pick *pk = a;
	int flag = 0;
	PMPI_Request_get_status(pk->hs[pk->chosen], &flag, MPI_STATUS_IGNORE);
	return flag;
}

/* followed counts the active requests of hs, which the mode follows: -1
 * (counted as uncovered) if one is active and not followed (persistent,
 * collective) or left to the MPI, 0 if none is active. A completion call
 * the mode decides needs a positive count; otherwise the MPI decides it. */
static int followed(MPI_Request *hs, int n)
{
	int active = 0;
	for (int i = 0; i < n; i++)
		if (hs[i] != MPI_REQUEST_NULL && !dt_inactive(hs[i])) {
			struct treq *t = dt_tfind(hs[i]);
			if (!t || dt_left(t)) {
				dt_st_uncovered++;
				return -1;
			}
			active++;
		}
	return active;
}

/* dt_pick chooses the request a Test, Testany (blocking 0) or Waitany
 * completes, and waits until the MPI has completed it: its index or -1.
 * Requests the mode does not follow (persistent, collectives) leave the
 * call to the MPI: -2. */
int dt_pick(MPI_Request *hs, int n, int blocking)
{
	if (followed(hs, n) <= 0)
		return -2;
	dt_st_polls++;
	struct pick pk = {.hs = hs, .n = n, .blocking = blocking};
	if (blocking) {
		for (int i = 0; i < n; i++) {
			struct treq *t = dt_tfind(hs[i]);
			if (t && is_send(t)) { /* a send may complete without a message */
				dt_nwsrc = 0;
				break;
			}
			if (t)
				dt_wait_add(t->p->src);
		}
	}
	int exact = dt_wait(pick_ready, &pk, 1);
	dt_wait_done();
	if (!exact)
		relaxed(pick_ready, &pk);
	if (!exact && pk.chosen < 0 && blocking)
		return -2; /* relaxed: the MPI decides */
	if (pk.chosen < 0)
		return -1;
	struct treq *t = dt_tfind(hs[pk.chosen]);
	if (!dt_wait(complete, &pk, is_send(t)) && !blocking)
		return -1; /* a send that cannot complete yet: relaxed */
	return pk.chosen;
}

struct some {
	MPI_Request *hs;
	int n, mode;
	char *in; /* in[i]: request i is in the outcome */
	int count;
};

/* some_ready decides a Testsome, Testall (at time dt_lt: the requests
 * complete by then) or Waitsome (at T, the later of dt_lt and the earliest
 * completion time known: the requests complete by T, once no receive still
 * without its message can complete by T). */
static int some_ready(void *a)
{
	struct some *s = a;
	uint64_t when, upto = dt_lt;
	int undecided = 0;
	if (s->mode == DT_WAITSOME) {
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < s->n; i++) {
			struct treq *t = dt_tfind(s->hs[i]);
			if (t && (!t->p || t->p->h)) {
				dt_test_one(t, UINT64_MAX, &when);
				if (when < best)
					best = when;
			}
		}
		if (best == UINT64_MAX)
			return 0; /* nothing known yet: a header will come */
		if (best > upto)
			upto = best;
	}
	s->count = 0;
	for (int i = 0; i < s->n; i++) {
		struct treq *t = dt_tfind(s->hs[i]);
		s->in[i] = 0;
		if (!t)
			continue;
		int r = dt_test_one(t, upto, &when);
		if (r < 0)
			undecided = 1;
		else if (r > 0)
			s->in[i] = 1, s->count++;
	}
	return !undecided;
}

static int some_done(void *a)
{
	struct some *s = a;
	for (int i = 0; i < s->n; i++) {
		int flag = 1;
		if (s->in[i])
			PMPI_Request_get_status(s->hs[i], &flag, MPI_STATUS_IGNORE);
		if (!flag)
			return 0;
	}
	return 1;
}

/* dt_pick_set decides which requests a Testsome, Testall or Waitsome
 * (mode) completes, marks them in in[], and waits until the MPI has
 * completed them: their number (for Testall, n when all complete, else
 * 0), or -2 where the call is left to the MPI (requests the mode does not
 * follow; a Waitsome whose decision had to be relaxed). */
int dt_pick_set(MPI_Request *hs, int n, int mode, char *in)
{
	int active = followed(hs, n);
	if (active <= 0)
		return -2;
	dt_st_polls++;
	struct some s = {.hs = hs, .n = n, .mode = mode, .in = in};
	int sends = 0;
	for (int i = 0; i < n; i++) {
		struct treq *t = dt_tfind(hs[i]);
		if (t && is_send(t))
			sends = 1;
		else if (t && t->p && mode == DT_WAITSOME && !sends)
			dt_wait_add(t->p->src);
	}
	if (sends)
		dt_nwsrc = 0; /* a send may complete without a message */
	int exact = dt_wait(some_ready, &s, 1);
	dt_wait_done();
	if (!exact)
		relaxed(some_ready, &s);
	if (!exact && mode == DT_WAITSOME && s.count == 0)
		return -2; /* relaxed: the MPI decides */
	if (mode == DT_TESTALL && s.count < active)
		return 0;
	if (s.count == 0)
		return 0;
	if (!dt_wait(some_done, &s, sends)) { /* a send that cannot complete yet: relaxed */
		s.count = 0;
		for (int i = 0; i < n; i++) {
			int flag = 0;
			if (in[i])
				PMPI_Request_get_status(hs[i], &flag, MPI_STATUS_IGNORE);
			in[i] = (char)flag;
			s.count += flag;
		}
		if (mode == DT_TESTALL && s.count < active)
			return 0;
		if (s.count == 0 && mode == DT_WAITSOME)
			return -2;
	}
	return mode == DT_TESTALL ? n : s.count;
}

static int all_done(void *a)
{
	struct pick *pk = a;
	for (int i = 0; i < pk->n; i++) {
		int flag = 1;
		if (pk->hs[i] != MPI_REQUEST_NULL)
			PMPI_Request_get_status(pk->hs[i], &flag, MPI_STATUS_IGNORE);
		if (!flag)
			return 0;
	}
	return 1;
}

/* dt_sync_wait: a Wait or Waitall waits here, answering Requests, until the
 * MPI has completed every request; a receive among them is a source it
 * waits on. */
void dt_sync_wait(MPI_Request *hs, int n)
{
	struct pick pk = {.hs = hs, .n = n};
	dt_nwsrc = 0;
	for (int i = 0; i < n; i++) {
		struct treq *t = dt_tfind(hs[i]);
		if (t && t->p) {
			dt_wait_add(t->p->src);
			break; /* one receive it cannot do without is enough for a bound */
		}
	}
	dt_wait(all_done, &pk, 0);
	dt_wait_done();
}
