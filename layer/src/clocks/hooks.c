/*
 * The clock protocol's hooks (clocks.h): what each MPI call means to it.
 * The hooks see the wrapper's parameters by address (k[i] points to
 * parameter i; generated/ids.h names the positions) and may rewrite them
 * before the MPI call.
 */
#define _GNU_SOURCE
#include "protocol.h"
#include "../record/conf.h"
#include "../datatypes/walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Set-up ---- */

/* load_decisions reads the forced sources of this rank's events, and the
 * hold-backs of its threads' receives (holds.c), from the decision file
 * of a guided replay (layer.conf's decisions=PATH). */
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
		if (sscanf(line, "%ld %llu %ld %ld", &rank, &ev, &src, &kind) < 3 || rank != me || kind == MPIVET_WILD_BUFFER)
			continue;
		if (kind == MPIVET_WILD_HOLD) { /* src: the event that releases it */
			ck_add_hold(ev, (uint64_t)src);
			continue;
		}
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
	mpivet_ck_forcing = nforced > 0;
}

/* start starts the protocol once MPI is initialised. */
static void start(int provided)
{
	const char *m = mpivet_conf(MPIVET_CONF_CLOCKS); /* lamport (the default), vector, off */
	mode = m && strcmp(m, "vector") == 0 ? VECTOR : m && strcmp(m, "off") == 0 ? OFF : LAMPORT;
	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	PMPI_Comm_size(MPI_COMM_WORLD, &np);
	const char *why = NULL;
	/* Under MPI_THREAD_MULTIPLE the hooks take a lock (core.c), unless the
	 * run is made with threads=off (a replay of a run directory written
	 * when the protocol covered one thread only: it stays off). */
	const char *t = mpivet_conf(MPIVET_CONF_THREADS);
	int threads = provided == MPI_THREAD_MULTIPLE && t && strcmp(t, "off") == 0;
	if (threads)
		why = "several threads of the program call MPI (MPI_THREAD_MULTIPLE), and the run was made with the clock protocol off for them";
	else if (mode == OFF)
		why = "--clocks=off";
	ck_record_clocks(why ? 0 : mode, why);
	if (threads)
		return; /* the hooks' tables are not made for threads */
	clocking = mode != OFF;
	pbn = mode == VECTOR ? np : 1;
	pbw = pbn + 2;
	clk = calloc(pbn, 8);
	ck_ring_init();
	PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
	ck_shadow_dup(MPI_COMM_WORLD, MPIVET_ID_MPI_Init);
	ck_shadow_dup(MPI_COMM_SELF, MPIVET_ID_MPI_Init);
	PMPI_Comm_dup(MPI_COMM_WORLD, &fin_comm);
	if (clocking)
		load_decisions();
	ck_threads = provided == MPI_THREAD_MULTIPLE;
	mpivet_ck_on = 1;
}

/* ---- The hooks ---- */

#define ARG(T, name) (*(T *)k[name])

/* pre_p2p handles the entry of a send (its piggyback goes first), a
 * receive or a probe (a wildcard one is an event, maybe forced to a source)
 * or a start; 0 if the call is none of those. */
static int pre_p2p(unsigned call, uint64_t logref, void **k)
{
	switch (call) {
	/* Piggybacks go before their message: a synchronous send (or a
	 * standard one the MPI does not buffer) returns only once its receive
	 * has matched, and a receiver that claimed the message (MPI_Mprobe)
	 * waits for the piggyback before it receives. */
	case MPIVET_ID_MPI_Send: case MPIVET_ID_MPI_Bsend: case MPIVET_ID_MPI_Ssend: case MPIVET_ID_MPI_Rsend:
	case MPIVET_ID_MPI_Isend: case MPIVET_ID_MPI_Ibsend: case MPIVET_ID_MPI_Issend: case MPIVET_ID_MPI_Irsend:
		/* every send has datatype, dest, tag, comm as parameters 2, 3, 4, 5 */
		ck_send_pb(ARG(int, 3), ARG(int, 4), ARG(MPI_Comm, 5), mpivet_sig(ARG(MPI_Datatype, 2)));
		break;
	case MPIVET_ID_MPI_Recv:
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Recv_source), ARG(int, MPIVET_K_MPI_Recv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Recv_comm), logref);
		break;
	case MPIVET_ID_MPI_Irecv:
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Irecv_source), ARG(int, MPIVET_K_MPI_Irecv_tag), ARG(MPI_Comm, MPIVET_K_MPI_Irecv_comm), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv:
		ck_send_pb(ARG(int, MPIVET_K_MPI_Sendrecv_dest), ARG(int, MPIVET_K_MPI_Sendrecv_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), mpivet_sig(ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_sendtype)));
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Sendrecv_source), ARG(int, MPIVET_K_MPI_Sendrecv_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv_replace:
		ck_send_pb(ARG(int, MPIVET_K_MPI_Sendrecv_replace_dest), ARG(int, MPIVET_K_MPI_Sendrecv_replace_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), mpivet_sig(ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_replace_datatype)));
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Sendrecv_replace_source), ARG(int, MPIVET_K_MPI_Sendrecv_replace_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), logref);
		break;
	case MPIVET_ID_MPI_Isendrecv:
		ck_send_pb(ARG(int, MPIVET_K_MPI_Isendrecv_dest), ARG(int, MPIVET_K_MPI_Isendrecv_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_comm), mpivet_sig(ARG(MPI_Datatype, MPIVET_K_MPI_Isendrecv_sendtype)));
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Isendrecv_source), ARG(int, MPIVET_K_MPI_Isendrecv_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_comm), logref);
		break;
	case MPIVET_ID_MPI_Isendrecv_replace:
		ck_send_pb(ARG(int, MPIVET_K_MPI_Isendrecv_replace_dest), ARG(int, MPIVET_K_MPI_Isendrecv_replace_sendtag), ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_replace_comm), mpivet_sig(ARG(MPI_Datatype, MPIVET_K_MPI_Isendrecv_replace_datatype)));
		ck_wild_pre(EV_RECV, &ARG(int, MPIVET_K_MPI_Isendrecv_replace_source), ARG(int, MPIVET_K_MPI_Isendrecv_replace_recvtag), ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_replace_comm), logref);
		break;
	case MPIVET_ID_MPI_Probe:
		ck_wild_pre(EV_PROBE, &ARG(int, MPIVET_K_MPI_Probe_source), ARG(int, MPIVET_K_MPI_Probe_tag), ARG(MPI_Comm, MPIVET_K_MPI_Probe_comm), logref);
		break;
	case MPIVET_ID_MPI_Mprobe:
		ck_wild_pre(EV_PROBE, &ARG(int, MPIVET_K_MPI_Mprobe_source), ARG(int, MPIVET_K_MPI_Mprobe_tag), ARG(MPI_Comm, MPIVET_K_MPI_Mprobe_comm), logref);
		break;
	case MPIVET_ID_MPI_Iprobe:
	case MPIVET_ID_MPI_Improbe: {
		/* numbered only when a message is found; the decision for the next
		 * event applies to every attempt until then */
		int *src = call == MPIVET_ID_MPI_Iprobe ? &ARG(int, MPIVET_K_MPI_Iprobe_source) : &ARG(int, MPIVET_K_MPI_Improbe_source);
		cur.src = *src;
		cur.before = events;
		if (*src == MPI_ANY_SOURCE) {
			int f = ck_forced(events, EV_PROBE);
			if (f != MPI_ANY_SOURCE)
				*src = f;
		}
		break;
	}
	case MPIVET_ID_MPI_Start: {
		MPI_Request *h = ARG(MPI_Request *, MPIVET_K_MPI_Start_request);
		struct req *r = h ? ck_rfind(*h) : NULL;
		if (r && r->kind == PRECV)
			ck_start_precv(h, r, logref);
		ck_started_sends(h, h ? 1 : 0);
		break;
	}
	case MPIVET_ID_MPI_Startall: {
		int n = ARG(int, MPIVET_K_MPI_Startall_count);
		MPI_Request *hs = ARG(MPI_Request *, MPIVET_K_MPI_Startall_array_of_requests);
		for (int i = 0; hs && i < n; i++) {
			struct req *r = ck_rfind(hs[i]);
			if (r && r->kind == PRECV)
				ck_start_precv(&hs[i], r, logref);
		}
		ck_started_sends(hs, n);
		break;
	}
	default:
		return 0;
	}
	return 1;
}

/* pre_completion handles the entry of a completion call: the requests it is
 * given, statuses where the program ignores them, a Waitany-family event;
 * 0 if the call is none. */
static int pre_completion(unsigned call, uint64_t logref, void **k)
{
	switch (call) {
	case MPIVET_ID_MPI_Wait:
	case MPIVET_ID_MPI_Test: {
		MPI_Request *h = ARG(MPI_Request *, 0);
		ck_snapshot(h, h ? 1 : 0);
		break;
	}
	case MPIVET_ID_MPI_Request_get_status:
		ck_snapshot(&ARG(MPI_Request, 0), 1);
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany:
		ck_snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		ck_any_pre(ARG(MPI_Request *, 1), ARG(int, 0), call == MPIVET_ID_MPI_Waitany, logref);
		break;
	case MPIVET_ID_MPI_Waitall:
		ck_snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		ck_statuses(&ARG(MPI_Status *, MPIVET_K_MPI_Waitall_array_of_statuses), ARG(int, 0));
		break;
	case MPIVET_ID_MPI_Testall:
		ck_snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		ck_statuses(&ARG(MPI_Status *, MPIVET_K_MPI_Testall_array_of_statuses), ARG(int, 0));
		break;
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome:
		ck_snapshot(ARG(MPI_Request *, 1), ARG(int, 0));
		ck_statuses(&ARG(MPI_Status *, call == MPIVET_ID_MPI_Waitsome ? MPIVET_K_MPI_Waitsome_array_of_statuses : MPIVET_K_MPI_Testsome_array_of_statuses), ARG(int, 0));
		ck_any_pre(ARG(MPI_Request *, 1), ARG(int, 0), call == MPIVET_ID_MPI_Waitsome, logref);
		break;
	default:
		return 0;
	}
	return 1;
}

static void pre_hook(unsigned call, uint64_t logref, void **k)
{
	cur.insh = NULL;
	cur.wild = 0;
	cur.src = MPI_ANY_SOURCE + 1;
	cur.user_sts = NULL;
	cur.nstarted = 0;
	ck_snapshot_done(); /* (left by a call whose return was not seen) */
	if (pre_p2p(call, logref, k) || pre_completion(call, logref, k))
		return;
	switch (call) {
	case MPIVET_ID_MPI_Request_free: {
		MPI_Request *h = ARG(MPI_Request *, 0);
		struct req *r = h ? ck_rfind(*h) : NULL;
		/* a receive freed while pending takes its piggyback with it: it can
		 * no longer be settled (see the notes) */
		if (r && r->kind == PCOLL)
			ck_free_pcoll(r);
		else if (r && r->kind != COLL) /* a collective's buffers stay with its clock collective */
			ck_rfree(r);
		break;
	}
	case MPIVET_ID_MPI_Comm_free:
	case MPIVET_ID_MPI_Comm_disconnect: {
		MPI_Comm *c = ARG(MPI_Comm *, 0);
		struct shadow *s = c ? ck_find(*c) : NULL;
		if (s)
			ck_claim_unreceived(s, 1);
		if (c)
			ck_shadow_free(*c);
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
		ck_unreceived();
		ck_ring_flush();
		ck_print_stats();
		mpivet_ck_on = 0;
		break;
	}
}

/* post_irecv follows the receive of an MPI_Irecv, or of an
 * MPI_Isendrecv(_replace) (MPI 4.0: nostatus, its request's status says
 * nothing): its piggyback is taken when the request completes. */
static void post_irecv(MPI_Request *h, int *src, int tag, MPI_Comm c, MPI_Datatype type, uint64_t logref, int ok, int nostatus)
{
	if (ok && h && *h != MPI_REQUEST_NULL) {
		struct req *r = ck_post_recv(*h, RECV, *src, tag, c, logref);
		r->sig = mpivet_sig(type);
		r->nostatus = nostatus;
		ck_enqueue(r);
	}
	*src = cur.src;
}

/* post_psend follows the persistent send *h whose datatype is parameter
 * dt, followed by dest, tag and communicator: MPI_Send_init's (and its
 * modes'), MPI_Psend_init's. */
static void post_psend(MPI_Request *h, void **k, int dt)
{
	if (!h || *h == MPI_REQUEST_NULL)
		return;
	struct req *r = ck_radd(*h, PSEND);
	r->dest = ARG(int, dt + 1), r->tag = ARG(int, dt + 2), r->comm = ARG(MPI_Comm, dt + 3), r->sig = mpivet_sig(ARG(MPI_Datatype, dt));
}

/* post_precv follows the persistent receive *h whose buffer, count and
 * datatype are the parameters buf, count and buf+dt, followed by source,
 * tag and communicator: MPI_Recv_init's, MPI_Precv_init's. */
static void post_precv(MPI_Request *h, void **k, int buf, int count, int dt)
{
	if (!h || *h == MPI_REQUEST_NULL)
		return;
	struct req *r = ck_radd(*h, PRECV);
	r->sh = ck_find(ARG(MPI_Comm, dt + 3));
	ck_shadow_hold(r->sh);
	r->src = r->orig_src = ARG(int, dt + 1), r->tag = ARG(int, dt + 2), r->comm = ARG(MPI_Comm, dt + 3);
	r->pbuf = ARG(void *, buf), r->count = count;
	r->type = mpivet_type_hold(ARG(MPI_Datatype, dt)), r->sig = mpivet_sig(r->type);
	r->pc = mpivet_call_pc;
}

/* post_p2p handles the return of a persistent request's creation, a
 * start, a receive or a probe; 0 if the call is none of those. */
static int post_p2p(unsigned call, uint64_t logref, void **k, int ok)
{
	switch (call) {
	case MPIVET_ID_MPI_Send_init: case MPIVET_ID_MPI_Bsend_init: case MPIVET_ID_MPI_Ssend_init: case MPIVET_ID_MPI_Rsend_init:
		if (ok)
			post_psend(ARG(MPI_Request *, 6), k, 2);
		break;
	case MPIVET_ID_MPI_Psend_init: /* partitioned (MPI 4.0): buf, partitions, count, type, dest, tag, comm */
		if (ok)
			post_psend(ARG(MPI_Request *, MPIVET_K_MPI_Psend_init_request), k, 3);
		break;
	case MPIVET_ID_MPI_Recv_init:
		if (ok)
			post_precv(ARG(MPI_Request *, 6), k, 0, ARG(int, 1), 2);
		break;
	case MPIVET_ID_MPI_Precv_init: /* never a wildcard: pbuf and count are not used */
		if (ok)
			post_precv(ARG(MPI_Request *, MPIVET_K_MPI_Precv_init_request), k, 0, 0, 3);
		break;
	case MPIVET_ID_MPI_Start: case MPIVET_ID_MPI_Startall: {
		for (int i = 0; ok && i < cur.nstarted; i++)
			if (cur.started[i]->kind == PCOLL)
				ck_start_pcoll(cur.started[i]);
			else
				cur.started[i]->active = 1;
		break;
	}
	case MPIVET_ID_MPI_Recv:
		if (ok)
			ck_recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Recv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Recv_datatype), &ARG(int, MPIVET_K_MPI_Recv_source), ARG(MPI_Status *, MPIVET_K_MPI_Recv_status), logref);
		break;
	case MPIVET_ID_MPI_Sendrecv:
		if (ok) {
			ck_recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_recvtype), &ARG(int, MPIVET_K_MPI_Sendrecv_source), ARG(MPI_Status *, MPIVET_K_MPI_Sendrecv_status), logref);
		}
		break;
	case MPIVET_ID_MPI_Sendrecv_replace:
		if (ok) {
			ck_recv_post(ARG(MPI_Comm, MPIVET_K_MPI_Sendrecv_replace_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Sendrecv_replace_datatype), &ARG(int, MPIVET_K_MPI_Sendrecv_replace_source), ARG(MPI_Status *, MPIVET_K_MPI_Sendrecv_replace_status), logref);
		}
		break;
	case MPIVET_ID_MPI_Irecv:
		post_irecv(ARG(MPI_Request *, MPIVET_K_MPI_Irecv_request), &ARG(int, MPIVET_K_MPI_Irecv_source), ARG(int, MPIVET_K_MPI_Irecv_tag),
		           ARG(MPI_Comm, MPIVET_K_MPI_Irecv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Irecv_datatype), logref, ok, 0);
		break;
	case MPIVET_ID_MPI_Isendrecv:
		post_irecv(ARG(MPI_Request *, MPIVET_K_MPI_Isendrecv_request), &ARG(int, MPIVET_K_MPI_Isendrecv_source), ARG(int, MPIVET_K_MPI_Isendrecv_recvtag),
		           ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Isendrecv_recvtype), logref, ok, 1);
		break;
	case MPIVET_ID_MPI_Isendrecv_replace:
		post_irecv(ARG(MPI_Request *, MPIVET_K_MPI_Isendrecv_replace_request), &ARG(int, MPIVET_K_MPI_Isendrecv_replace_source), ARG(int, MPIVET_K_MPI_Isendrecv_replace_recvtag),
		           ARG(MPI_Comm, MPIVET_K_MPI_Isendrecv_replace_comm), ARG(MPI_Datatype, MPIVET_K_MPI_Isendrecv_replace_datatype), logref, ok, 1);
		break;
	case MPIVET_ID_MPI_Probe:
		if (ok)
			ck_probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Probe_comm), &ARG(int, MPIVET_K_MPI_Probe_source), ARG(MPI_Status *, MPIVET_K_MPI_Probe_status), 0, logref);
		break;
	case MPIVET_ID_MPI_Mprobe:
		if (ok)
			ck_probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Mprobe_comm), &ARG(int, MPIVET_K_MPI_Mprobe_source), ARG(MPI_Status *, MPIVET_K_MPI_Mprobe_status), 1, logref);
		break;
	case MPIVET_ID_MPI_Iprobe:
		if (ok && *ARG(int *, MPIVET_K_MPI_Iprobe_flag))
			ck_probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Iprobe_comm), &ARG(int, MPIVET_K_MPI_Iprobe_source), ARG(MPI_Status *, MPIVET_K_MPI_Iprobe_status), 0, logref);
		ARG(int, MPIVET_K_MPI_Iprobe_source) = cur.src;
		break;
	case MPIVET_ID_MPI_Improbe:
		if (ok && *ARG(int *, MPIVET_K_MPI_Improbe_flag))
			ck_probe_post(ARG(MPI_Comm, MPIVET_K_MPI_Improbe_comm), &ARG(int, MPIVET_K_MPI_Improbe_source), ARG(MPI_Status *, MPIVET_K_MPI_Improbe_status), 1, logref);
		ARG(int, MPIVET_K_MPI_Improbe_source) = cur.src;
		break;
	default:
		return 0;
	}
	return 1;
}

/* post_completion handles the return of a completion call: the requests it
 * completed, the event's outcome, the program's statuses given back; 0 if
 * the call is none. */
static int post_completion(unsigned call, void **k, int ok)
{
	switch (call) {
	case MPIVET_ID_MPI_Wait:
		if (ok && cur.nsnap)
			ck_completed(cur.rsnap[0], ARG(MPI_Status *, 1));
		break;
	case MPIVET_ID_MPI_Test:
		if (ok && cur.nsnap && *ARG(int *, 1))
			ck_completed(cur.rsnap[0], ARG(MPI_Status *, 2));
		break;
	case MPIVET_ID_MPI_Request_get_status:
		if (ok && *ARG(int *, 1)) {
			struct req *r = cur.rsnap[0];
			if (r && (r->kind == RECV || r->kind == PRECV)) {
				ck_finish(r, ARG(MPI_Status *, 2)); /* its Wait will find it settled */
			}
		}
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany: {
		int *idx = ARG(int *, 2);
		int flag = call == MPIVET_ID_MPI_Waitany || *ARG(int *, 3);
		MPI_Status *st = ARG(MPI_Status *, call == MPIVET_ID_MPI_Waitany ? 3 : 4);
		ck_any_restore();
		if (ok && flag && idx && *idx != MPI_UNDEFINED && *idx >= 0 && *idx < cur.nsnap)
			ck_any_complete(idx, 1, st);
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
				ck_completed(cur.rsnap[i], &(*stp)[i]);
		*stp = cur.user_sts;
		break;
	}
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome: {
		int out = *ARG(int *, 2);
		int *idx = ARG(int *, 3);
		MPI_Status **stp = &ARG(MPI_Status *, 4);
		ck_any_restore();
		if (ok && out != MPI_UNDEFINED && out > 0)
			ck_any_complete(idx, out, *stp);
		*stp = cur.user_sts;
		break;
	}
	default:
		return 0;
	}
	return 1;
}

/* post_other handles the return of any other call: communicators created,
 * collectives (clock synchronisations). */
static void post_other(unsigned call, void **k, int rc, int ok)
{
	if (!ok)
		return;
	if (mpivet_call_k_newcomm[call] >= 0) {
		MPI_Comm *c = ARG(MPI_Comm *, mpivet_call_k_newcomm[call]);
		if (c)
			ck_shadow_dup(*c, call);
		return;
	}
	if (mpivet_call_k_idupcomm[call] >= 0) {
		/* the shadow is an idup of the parent's shadow (which has none of
		 * the program's attributes to copy, nor the program's info),
		 * completed with the program's */
		MPI_Request *h = ARG(MPI_Request *, mpivet_call_k_request[call]);
		struct shadow *s = ck_find(ARG(MPI_Comm, 0));
		if (h && *h != MPI_REQUEST_NULL && s) {
			struct req *r = ck_radd(*h, COLL);
			r->sh = s;
			ck_shadow_hold(s);
			r->newcomm = ARG(MPI_Comm *, mpivet_call_k_idupcomm[call]);
			r->idup = MPI_COMM_NULL, r->aux = MPI_REQUEST_NULL;
			if (clocking && s->sh != MPI_COMM_NULL)
				PMPI_Comm_idup(s->sh, &r->idup, &r->aux);
		}
		return;
	}
	if (mpivet_call_flags[call] & MPIVET_CALL_COLL)
		ck_clock_sync(call, k, rc);
	else if (mpivet_call_flags[call] & MPIVET_CALL_COLLINIT)
		ck_clock_persistent(call, k, rc);
	return;
}

static void post_hook(unsigned call, uint64_t logref, void **k, int rc)
{
	int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
	if (post_completion(call, k, ok)) {
		ck_snapshot_done();
		return;
	}
	if (!post_p2p(call, logref, k, ok))
		post_other(call, k, rc, ok);
}

/* The hooks hold the protocol's lock under MPI_THREAD_MULTIPLE (core.c). */
void mpivet_ck_pre(unsigned call, uint64_t logref, void **k)
{
	if (!ck_threads) {
		pre_hook(call, logref, k);
		return;
	}
	ck_enter();
	pre_hook(call, logref, k);
	ck_leave();
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
	if (!ck_threads) {
		post_hook(call, logref, k, rc);
		return;
	}
	ck_enter();
	post_hook(call, logref, k, rc);
	if (cur.insh) {
		cur.insh->inflight--;
		ck_shadow_release(cur.insh);
		cur.insh = NULL;
	}
	ck_leave();
}
