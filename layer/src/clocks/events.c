/*
 * Wildcard events (receives and probes from MPI_ANY_SOURCE), forced to a
 * source in a guided replay; the arrival of messages, whose piggybacks are
 * taken in the order their receives matched; collectives as clock
 * synchronisations.
 */
#define _GNU_SOURCE
#include "protocol.h"
#include "../wait/wait.h"

#include <stdlib.h>
#include <string.h>

/* Several threads call MPI (mpivet_mt_guard cleared): a message one
 * thread takes may have been another thread's wildcard event's, whenever
 * that event started, since the threads run concurrently. So a message is
 * logged as possibly late when an event that matched could have taken it
 * (its clock is not above the newest match's), whichever thread's, or
 * while a wildcard receive or probe of the rank is still unmatched; the
 * explorer (explore.Potential) compares it with the other threads' events
 * by clock alone. Once no event is pending and the messages' clocks are
 * past the matches, nothing more is logged. */
static uint64_t pending; /* wildcard receives and probes started, not matched */
static int several(void) { return mpivet_mt && !__atomic_load_n(&mpivet_mt_guard, __ATOMIC_RELAXED); }

/* ck_forced_set finds the decisions for event e of the given kind: it returns
 * how many there are, the first at *first. A decision for another kind of
 * event (the replay has diverged) is not applied. */
size_t ck_forced_set(uint64_t e, int kind, size_t *first)
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

/* ck_forced returns the source decided for receive or probe event e, or
 * MPI_ANY_SOURCE. */
int ck_forced(uint64_t e, int kind)
{
	size_t i;
	return ck_forced_set(e, kind, &i) ? forced_src[i] : MPI_ANY_SOURCE;
}

void ck_record_wildcard(uint64_t e, int kind, struct shadow *s, int tag, int src, uint64_t logref)
{
	uint64_t w[] = {e, (uint64_t)kind, s ? s->serial : 0, (uint64_t)(int64_t)tag, (uint64_t)(int64_t)src, logref, (uint64_t)quiet, mpivet_call_pc};
	ck_log_event(MPIVET_META_WILDCARD, w, sizeof w / 8);
}

/* ck_start_event numbers a wildcard event and logs it. */
uint64_t ck_start_event(int kind, struct shadow *s, int tag, int src, uint64_t logref)
{
	uint64_t e = events++;
	pending += kind != EV_ANY;
	ck_record_wildcard(e, kind, s, tag, src, logref);
	return e;
}

/* matched gives wildcard event e its final clock (rule R4). */
static void matched(uint64_t e, struct shadow *s, int src, int tag, int cancelled)
{
	uint64_t w[] = {e, (uint64_t)(int64_t)src, (uint64_t)(int64_t)ck_world(s, src), (uint64_t)(int64_t)tag, *own(), (uint64_t)cancelled};
	ck_log_event(MPIVET_META_MATCHED, w, sizeof w / 8);
	pending -= pending > 0;
	ck_release(e);
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
	int threads = several();
	/* (threads && s->mixed): threads' receives on s ran at once, and a
	 * receive of another thread may have taken this message instead
	 * (explore.Competitions) */
	if ((matched_any && m <= newest && ((uint32_t)before > 0 || threads)) || (threads && (pending > 0 || s->mixed))) {
		uint64_t w[] = {(uint64_t)(int64_t)src, (uint64_t)(int64_t)ck_world(s, src), (uint64_t)(int64_t)tag, s->serial, m, before, logref, mpivet_call_pc};
		ck_log_event(MPIVET_META_LATE, w, sizeof w / 8);
	}
	ck_merge(pb);
}

/* ck_record_arrival logs the clock of the message candidate r took. */
void ck_record_arrival(struct req *r)
{
	if (r->logged_m)
		return;
	r->logged_m = 1;
	uint64_t w[] = {r->seq, r->m, (uint64_t)(int64_t)ck_world(r->sh, r->msrc)};
	ck_log_event(MPIVET_META_ARRIVAL, w, sizeof w / 8);
}

/* ck_settle_before gives the piggyback to every receive posted before seq on s
 * that could have taken a message from src with tag: they have matched. */
void ck_settle_before(uint64_t seq, struct shadow *s, int src, int tag)
{
	int threads = several();
	if (threads && s->inflight - (cur.insh == s) > 0)
		s->mixed = 1; /* another thread's receive on s is in progress */
again:
	for (struct req *y = qhead; y && y->seq < seq; y = y->qnext) {
		if (y->sh != s || (y->src != MPI_ANY_SOURCE && y->src != src) || (y->tag != MPI_ANY_TAG && y->tag != tag))
			continue;
		MPI_Status st;
		int flag = 0;
		if (threads && y->owner != mpivet_thread_no) {
			/* another thread's request: it may be inside a completion
			 * call that frees it, and its place in the order of posting
			 * is not known (it was numbered after its MPI call) */
			s->mixed = 1;
			continue;
		}
		/* one of this thread's: posted before the receive being settled,
		 * so it has matched (non-overtaking) */
		while (!flag)
			if (PMPI_Request_get_status(y->h, &flag, &st) != MPI_SUCCESS)
				break;
		if (!flag) {
			ck_dequeue(y); /* an error: nothing more can be learnt from it */
			goto again;
		}
		ck_finish(y, &st);
		goto again; /* ck_finish may have settled others */
	}
}

/* receive_pb takes the piggyback of the message a receive (posted at seq)
 * took from src with tag, after those of earlier receives. */
static void receive_pb(uint64_t seq, struct shadow *s, int src, int tag, uint64_t *pb)
{
	ck_settle_before(seq, s, src, tag);
	ck_take_pb(pb, src, tag, s);
}

/* posted_status is the status of the receive of an MPI_Isendrecv(_replace)
 * r: MPICH 4.0 leaves the status of its request unset (source, tag and
 * count), so what it matched is what it named; NULL for a receive from
 * MPI_ANY_SOURCE or with MPI_ANY_TAG, whose match the layer cannot learn. */
static const MPI_Status *posted_status(const struct req *r, const MPI_Status *st, MPI_Status *fixed)
{
	if (r->src == MPI_ANY_SOURCE || r->tag == MPI_ANY_TAG)
		return NULL;
	*fixed = *st;
	fixed->MPI_SOURCE = r->src, fixed->MPI_TAG = r->tag;
	return fixed;
}

/* ck_finish handles a nonblocking receive that has matched, with its status. */
void ck_finish(struct req *r, const MPI_Status *st)
{
	if (!r->queued)
		return;
	MPI_Status fixed;
	if (r->nostatus && r->src != MPI_PROC_NULL && !(st = posted_status(r, st, &fixed))) {
		ck_dequeue(r);
		if (!broken)
			ck_break("a wildcard receive of MPI_Isendrecv or MPI_Isendrecv_replace completed: the MPI does not say which message it "
				 "matched (MPICH 4.0 leaves the status of their requests unset), so this rank's matches are not explored from then on");
		return;
	}
	int cancelled = 0;
	PMPI_Test_cancelled(st, &cancelled);
	/* MPICH 4.0 completes a nonblocking receive from MPI_PROC_NULL with
	 * source 0 and tag 0 in its status: the posted source says. */
	int null = r->src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0;
	if (cancelled || null || !r->sh) {
		if (r->wild && r->sh)
			matched(r->event, r->sh, st->MPI_SOURCE, st->MPI_TAG, 1);
		nreceived += !cancelled && !null;
		ck_dequeue(r);
		return;
	}
	nreceived++;
	ck_dequeue(r); /* before settling others: it is being settled */
	uint64_t *pb = ck_scratch_pb();
	ck_settle_before(r->seq, r->sh, st->MPI_SOURCE, st->MPI_TAG);
	ck_take_pb(pb, st->MPI_SOURCE, st->MPI_TAG, r->sh);
	ck_check_types(pb, r->sig, r->sh, st, r->pc);
	r->m = mode == VECTOR ? pb[me] : pb[0];
	r->msrc = st->MPI_SOURCE;
	r->has_m = 1;
	if (r->cand)
		ck_record_arrival(r);
	if (r->wild)
		matched(r->event, r->sh, st->MPI_SOURCE, st->MPI_TAG, 0);
	else if (ck_threads)
		ck_release_named(r->before);
	arrived(pb, r->sh, st->MPI_SOURCE, st->MPI_TAG, r->before, r->logref);
}

/* ck_completed handles request r (the one its handle was on entry,
 * cur.rsnap) completing with st. */
void ck_completed(struct req *r, const MPI_Status *st)
{
	if (!r)
		return;
	switch (r->kind) {
	case RECV:
		ck_finish(r, st);
		ck_rfree(r);
		break;
	case PRECV:
		if (r->active)
			ck_finish(r, st);
		r->active = 0;
		break;
	case PSEND:
		r->active = 0;
		break;
	case PCOLL:
		if (r->active) {
			ck_unlock();
			mpivet_pmpi_Wait(&r->aux, MPI_STATUS_IGNORE);
			ck_relock();
			if (r->brings)
				ck_merge(r->buf);
		}
		r->active = 0;
		break;
	case COLL:
		ck_unlock();
		mpivet_pmpi_Wait(&r->aux, MPI_STATUS_IGNORE);
		ck_relock();
		if (r->newcomm) { /* MPI_Comm_idup: its shadow is ready too */
			if (*r->newcomm != MPI_COMM_NULL)
				ck_shadow_of(*r->newcomm, r->idup);
		} else if (r->active)
			ck_merge(r->buf);
		ck_rfree(r);
		break;
	}
}

/* ---- Receives and probes ---- */

/* ck_wild_pre numbers a wildcard receive or probe and applies a decision. */
void ck_wild_pre(int kind, int *src, int tag, MPI_Comm c, uint64_t logref)
{
	if (kind == EV_RECV)
		ck_hold(*src);
	if (ck_threads && (cur.insh = ck_find(c))) {
		cur.insh->inflight++;
		ck_shadow_hold(cur.insh);
	}
	cur.wild = *src == MPI_ANY_SOURCE;
	cur.src = *src;
	cur.before = events;
	if (!cur.wild)
		return;
	int f = ck_forced(events, kind);
	cur.event = ck_start_event(kind, ck_find(c), tag, f, logref);
	if (f != MPI_ANY_SOURCE)
		*src = f;
}

/* ck_recv_post handles a blocking receive that returned status st. */
void ck_recv_post(MPI_Comm c, MPI_Datatype type, int *src, const MPI_Status *st, uint64_t logref)
{
	struct shadow *s = ck_find(c);
	*src = cur.src;
	if (cur.src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
		return;
	nreceived++;
	if (!s)
		return;
	uint64_t *pb = ck_scratch_pb();
	receive_pb(seqs + 1, s, st->MPI_SOURCE, st->MPI_TAG, pb);
	ck_check_types(pb, mpivet_sig(type), s, st, mpivet_call_pc);
	if (cur.wild)
		matched(cur.event, s, st->MPI_SOURCE, st->MPI_TAG, 0);
	else if (ck_threads)
		ck_release_named(cur.before);
	arrived(pb, s, st->MPI_SOURCE, st->MPI_TAG, cur.before, logref);
}

/* ck_probe_post handles a probe that found a message (flag true); claim: the
 * message is now the program's (MPI_Mprobe), so its piggyback comes now. */
void ck_probe_post(MPI_Comm c, int *src, const MPI_Status *st, int claim, uint64_t logref)
{
	struct shadow *s = ck_find(c);
	int wild = cur.src == MPI_ANY_SOURCE;
	*src = cur.src;
	if (cur.src == MPI_PROC_NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
		return;
	nreceived += claim;
	if (!s)
		return;
	if (wild && !cur.wild) /* MPI_Iprobe: an event only when it finds a message */
		cur.event = ck_start_event(EV_PROBE, s, st->MPI_TAG, ck_forced(events, EV_PROBE), logref);
	ck_settle_before(seqs + 1, s, st->MPI_SOURCE, st->MPI_TAG);
	if (wild)
		matched(cur.event, s, st->MPI_SOURCE, st->MPI_TAG, 0);
	if (claim) {
		uint64_t *pb = ck_scratch_pb();
		ck_take_pb(pb, st->MPI_SOURCE, st->MPI_TAG, s);
		arrived(pb, s, st->MPI_SOURCE, st->MPI_TAG, cur.before, logref);
	}
}

struct req *ck_post_recv(MPI_Request h, int kind, int src, int tag, MPI_Comm c, uint64_t logref)
{
	struct req *r = ck_radd(h, kind);
	r->sh = ck_find(c);
	ck_shadow_hold(r->sh);
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

/* ck_start_precv starts persistent receive *h: a wildcard one is an event, and
 * a forced one is re-created with the decided source (the program's handle
 * variable gets the new request). */
void ck_start_precv(MPI_Request *h, struct req *r, uint64_t logref)
{
	ck_hold(r->orig_src);
	r->wild = r->orig_src == MPI_ANY_SOURCE;
	r->before = events;
	if (r->wild) {
		int f = ck_forced(events, EV_RECV);
		r->event = ck_start_event(EV_RECV, r->sh, r->tag, f, logref);
		int want = f != MPI_ANY_SOURCE ? f : MPI_ANY_SOURCE;
		if (want != r->src) {
			MPI_Request n;
			if (PMPI_Recv_init(r->pbuf, r->count, r->type, want, r->tag, r->comm, &n) == MPI_SUCCESS) {
				PMPI_Request_free(h);
				ck_runhash(r);
				r->h = *h = n;
				struct req **b = ck_rslot(n);
				r->hnext = *b;
				*b = r;
				r->src = want;
			}
		}
	}
	r->active = 1;
	r->cand = r->has_m = r->logged_m = 0;
	ck_enqueue(r);
}

/* ---- Collectives ---- */

/* How a collective's data flows, and so its clocks (Fig. 5.7). */
enum { ALL, FROM_ROOT, TO_ROOT };

static int flow(unsigned call, struct shadow *s)
{
	if (s->inter)
		return ALL; /* both groups' clocks: more than needed, never less */
	switch (call) {
	case MPIVET_ID_MPI_Bcast: case MPIVET_ID_MPI_Scatter: case MPIVET_ID_MPI_Scatterv:
	case MPIVET_ID_MPI_Ibcast: case MPIVET_ID_MPI_Iscatter: case MPIVET_ID_MPI_Iscatterv:
	case MPIVET_ID_MPI_Bcast_init: case MPIVET_ID_MPI_Scatter_init: case MPIVET_ID_MPI_Scatterv_init:
		return FROM_ROOT;
	case MPIVET_ID_MPI_Gather: case MPIVET_ID_MPI_Gatherv: case MPIVET_ID_MPI_Reduce:
	case MPIVET_ID_MPI_Igather: case MPIVET_ID_MPI_Igatherv: case MPIVET_ID_MPI_Ireduce:
	case MPIVET_ID_MPI_Gather_init: case MPIVET_ID_MPI_Gatherv_init: case MPIVET_ID_MPI_Reduce_init:
		return TO_ROOT;
	}
	return ALL;
}

/* sync makes a collective a clock synchronisation (Fig. 5.7): the clocks of
 * those the data flows from reach those it flows to. Nonblocking: started
 * now, applied when the program's request completes. */
void ck_clock_sync(unsigned call, void **k, int rc)
{
	int kc = mpivet_call_k_comm[call], kr = mpivet_call_k_root[call], kq = mpivet_call_k_request[call];
	if (rc != MPI_SUCCESS || kc < 0)
		return;
	MPI_Comm c = *(MPI_Comm *)k[kc];
	struct shadow *s = ck_find(c);
	if (!s || !clocking)
		return;
	int root = kr >= 0 ? *(int *)k[kr] : -1, rank = 0;
	PMPI_Comm_rank(c, &rank);
	int how = flow(call, s);
	int brings = how != TO_ROOT || rank == root; /* whether clocks come here */
	uint64_t local[2 * pbn], *in = local; /* what comes in, then what goes out */
	MPI_Request *aux = NULL;
	if (kq >= 0) { /* both buffers live until the program's request completes */
		MPI_Request *user = *(MPI_Request **)k[kq];
		if (!user || *user == MPI_REQUEST_NULL)
			return;
		struct req *r = ck_radd(*user, COLL);
		r->sh = s; /* its clock collective is pending on s's shadow */
		ck_shadow_hold(s);
		in = r->buf = malloc(2 * (size_t)pbn * 8);
		r->active = brings;
		aux = &r->aux;
	}
	/* A blocking collective's clocks travel on a nonblocking one waited
	 * for at once where ranks sleep in their waits: MPICH's blocking
	 * collectives poll, and with more ranks than cores the members that
	 * arrive first spin until the last is scheduled. */
	MPI_Request now;
	int wait_now = !aux && mpivet_wait_sleep;
	if (wait_now)
		aux = &now;
	uint64_t *out = in + pbn;
	memcpy(in, clk, pbn * 8);
	memcpy(out, clk, pbn * 8);
	ck_coll_syncs++, ck_coll_bytes += (uint64_t)pbn * 8;
	int unlocked = !aux || wait_now;
	if (unlocked)
		ck_unlock(); /* the other ranks' threads may need their locks to get here */
	if (how == FROM_ROOT)
		aux ? PMPI_Ibcast(in, pbn, MPI_UINT64_T, root, s->sh, aux) : PMPI_Bcast(in, pbn, MPI_UINT64_T, root, s->sh);
	else if (how == TO_ROOT)
		aux ? PMPI_Ireduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, root, s->sh, aux) : PMPI_Reduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, root, s->sh);
	else
		aux ? PMPI_Iallreduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, s->sh, aux) : PMPI_Allreduce(out, in, pbn, MPI_UINT64_T, MPI_MAX, s->sh);
	if (wait_now)
		mpivet_pmpi_Wait(aux, MPI_STATUS_IGNORE), aux = NULL;
	if (unlocked)
		ck_relock();
	if (!aux && brings)
		ck_merge(in);
}

/* ck_clock_persistent gives a persistent collective (MPI 4.0), as it is
 * initialized, a persistent clock collective of its own on the shadow:
 * every member initializes its persistent collectives in the same order,
 * but may start them in any order (MPI 4.0 §6.13), so the clocks travel
 * on a request matched as the program's is. ck_start_pcoll starts it with
 * each start of the program's, ck_completed applies it when that
 * completes, as for a nonblocking collective. */
void ck_clock_persistent(unsigned call, void **k, int rc)
{
#if MPI_VERSION >= 4
	int kc = mpivet_call_k_comm[call], kr = mpivet_call_k_root[call], kq = mpivet_call_k_request[call];
	if (rc != MPI_SUCCESS || kc < 0 || kq < 0 || !clocking)
		return;
	MPI_Comm c = *(MPI_Comm *)k[kc];
	MPI_Request *user = *(MPI_Request **)k[kq];
	struct shadow *s = ck_find(c);
	if (!s || !user || *user == MPI_REQUEST_NULL)
		return;
	int root = kr >= 0 ? *(int *)k[kr] : -1, rank = 0, how = flow(call, s);
	PMPI_Comm_rank(c, &rank);
	struct req *r = ck_radd(*user, PCOLL);
	r->sh = s;
	ck_shadow_hold(s);
	r->buf = malloc(2 * (size_t)pbn * 8);
	r->brings = how != TO_ROOT || rank == root;
	uint64_t *in = r->buf, *out = r->buf + pbn;
	int e;
	if (how == FROM_ROOT)
		e = PMPI_Bcast_init(in, pbn, MPI_UINT64_T, root, s->sh, MPI_INFO_NULL, &r->aux);
	else if (how == TO_ROOT)
		e = PMPI_Reduce_init(out, in, pbn, MPI_UINT64_T, MPI_MAX, root, s->sh, MPI_INFO_NULL, &r->aux);
	else
		e = PMPI_Allreduce_init(out, in, pbn, MPI_UINT64_T, MPI_MAX, s->sh, MPI_INFO_NULL, &r->aux);
	if (e != MPI_SUCCESS)
		r->aux = MPI_REQUEST_NULL;
#else
	(void)call, (void)k, (void)rc;
#endif
}

/* ck_start_pcoll starts the clock collective of persistent collective r,
 * which the program has just started, with the rank's clock now. */
void ck_start_pcoll(struct req *r)
{
	if (r->aux == MPI_REQUEST_NULL)
		return;
	memcpy(r->buf, clk, pbn * 8);
	memcpy(r->buf + pbn, clk, pbn * 8);
	ck_coll_syncs++, ck_coll_bytes += (uint64_t)pbn * 8;
	r->active = PMPI_Start(&r->aux) == MPI_SUCCESS;
}

/* ck_free_pcoll forgets persistent collective r, which the program frees;
 * one freed while active (erroneous) keeps its clock collective. */
void ck_free_pcoll(struct req *r)
{
	if (r->active)
		return;
	if (r->aux != MPI_REQUEST_NULL)
		PMPI_Request_free(&r->aux);
	ck_rfree(r);
}
