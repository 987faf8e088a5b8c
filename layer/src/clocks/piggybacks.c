/*
 * Piggybacks: a message of the layer's own, on the shadow communicator,
 * ahead of each message the program sends, with the sender's clock, the
 * send's type signature and its call site; received when the message's
 * receive completes.
 */
#define _GNU_SOURCE
#include "protocol.h"
#include "../wait/wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ring of piggyback send buffers; a slot is reused once its send is done.
 * A piggyback a rank sends itself is done only once received (MPICH),
 * which its message's receive does, maybe never: one still pending when
 * its slot comes round again is let go with its buffer (ring_buf[k] gets
 * a new one), never waited for; its request is kept (spills) and tested
 * when another is let go. MPICH 4.0 loses a send to self whose request is
 * freed before it is received, and the message's receive after it. */
#define RING 256
#define PB_EAGER 64 /* bytes of a piggyback waited for: a shared-memory fast path in both MPIs */
static uint64_t *ring_buf[RING];
static MPI_Request ring_req[RING];
static unsigned char ring_self[RING];
static unsigned ring_next;
static MPI_Request *spills;
static int nspills, capspills;

/* spill keeps the request of a piggyback to this rank let go, having
 * dropped those received since; 0 if there is no room (then waited for). */
static int spill(MPI_Request r)
{
	int n = 0;
	for (int i = 0; i < nspills; i++) {
		int done = 0;
		if (PMPI_Test(&spills[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done)
			spills[n++] = spills[i];
	}
	nspills = n;
	if (nspills == capspills) {
		int cap = capspills ? 2 * capspills : 64;
		MPI_Request *p = realloc(spills, (size_t)cap * sizeof *p);
		if (!p)
			return 0;
		spills = p, capspills = cap;
	}
	spills[nspills++] = r;
	return 1;
}

/* ck_ring_init makes the ring once the piggyback's size is known. */
void ck_ring_init(void)
{
	uint64_t *ring = calloc((size_t)RING * pbw, 8);
	for (int i = 0; i < RING; i++) {
		ring_req[i] = MPI_REQUEST_NULL;
		ring_buf[i] = ring ? &ring[(size_t)i * pbw] : NULL;
	}
}

/* settle completes the send of slot k, or lets it go (a piggyback to this
 * rank not received yet: 0, the slot's buffer is then the MPI's); 1 if
 * done. */
static int settle(unsigned k)
{
	if (ring_req[k] == MPI_REQUEST_NULL)
		return 1;
	if (!ring_self[k]) {
		mpivet_pmpi_Wait(&ring_req[k], MPI_STATUS_IGNORE);
		return 1;
	}
	int done = 0;
	if (PMPI_Test(&ring_req[k], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
		return 1;
	if (!spill(ring_req[k])) {
		mpivet_pmpi_Wait(&ring_req[k], MPI_STATUS_IGNORE);
		return 1;
	}
	ring_req[k] = MPI_REQUEST_NULL;
	return 0;
}

/* ck_ring_flush completes the piggybacks still being sent (MPI_Finalize). */
void ck_ring_flush(void)
{
	for (unsigned k = 0; k < RING; k++)
		settle(k);
}

/* ck_send_pb counts a message to dest and sends its piggyback ahead of it
 * (sig: the signature of the send's datatype). */
void ck_send_pb(int dest, int tag, MPI_Comm c, uint64_t sig)
{
	struct shadow *s;
	if (dest == MPI_PROC_NULL)
		return;
	nsent++;
	if (!clocking || !(s = ck_find(c)))
		return;
	unsigned k = ring_next++ % RING;
	if (!settle(k))
		ring_buf[k] = malloc((size_t)pbw * 8); /* the old one stays the MPI's */
	uint64_t *pb = ring_buf[k];
	if (!pb)
		return;
	ring_self[k] = dest == s->me;
	memcpy(pb, clk, pbn * 8);
	pb[pbn] = sig;
	pb[pbn + 1] = mpivet_call_pc;
	PMPI_Isend(pb, pbw, MPI_UINT64_T, dest, tag, s->sh, &ring_req[k]);
	ck_pb_msgs++, ck_pb_bytes += (uint64_t)pbw * 8;
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
	 * eagerly could need the receive that is posted after its message.
	 * Nor is a piggyback to this rank itself: MPICH completes a send to
	 * self only once it is received, which its message's receive does. */
	if (pbw * 8 <= PB_EAGER && !ring_self[k])
		mpivet_pmpi_Wait(&ring_req[k], MPI_STATUS_IGNORE);
}

/* ck_check_types compares the type signature of a message (in its piggyback)
 * with the signature rs of the datatype it is received with, and logs a
 * mismatch once per pair of call sites. */
void ck_check_types(const uint64_t *pb, uint64_t rs, struct shadow *s, const MPI_Status *st, uint64_t pc)
{
	uint64_t ss = pb[pbn];
	if (!ss || ss == rs || !rs || s->mixed || mpivet_sig_packed(ss) || mpivet_sig_packed(rs))
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
			uint64_t w[] = {ss, rs, (uint64_t)(int64_t)ck_world(s, st->MPI_SOURCE), (uint64_t)(int64_t)st->MPI_TAG, pb[pbn + 1], pc, (uint64_t)bytes};
			ck_log_event(MPIVET_META_TYPES, w, sizeof w / 8);
			return;
		}
	}
}

/* waiting_pb sets the state page's status of the call in progress while it
 * waits for a piggyback that is late: its message was received, and the
 * wait ends by itself (limit), so the rank is not blocked: the deadlock
 * check must not take a receive whose message was sent without a clock
 * (by PMPI_Send, or a call mpivet does not wrap) for a receive that waits
 * forever. 1: back inside the call. */
static void waiting_pb(uint64_t status)
{
	uint64_t *s = mpivet_state_open();
	s[MPIVET_STATE_STATUS] = status;
	mpivet_state_close(s);
}

/* ck_await_pb receives the piggyback from src with tag on shadow sh into pb,
 * waiting for it at most limit seconds; 0 (and pb zero) if it did not come. */
int ck_await_pb(uint64_t *pb, int src, int tag, MPI_Comm sh, double limit)
{
	MPI_Request r;
	int flag = 0;
	PMPI_Irecv(pb, pbw, MPI_UINT64_T, src, tag, sh, &r);
	PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	double t0 = 0;
	struct mpivet_backoff b = {0};
	for (unsigned i = 0; !flag; i++) {
		PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
		if (!flag && ((i & 1023) == 0 || b.ns)) { /* once sleeping, a look at the time costs little */
			double t = PMPI_Wtime();
			if (t0 == 0) {
				t0 = t;
				waiting_pb(MPIVET_STATUS_DECIDING);
			} else if (t - t0 > limit) {
				PMPI_Cancel(&r);
				PMPI_Wait(&r, MPI_STATUS_IGNORE);
				memset(pb, 0, pbw * 8);
				waiting_pb(1);
				return 0;
			}
		}
		if (!flag && mpivet_wait_sleep)
			mpivet_backoff(&b);
	}
	if (t0 != 0)
		waiting_pb(1);
	return 1;
}

/* A piggyback leaves before its message (send_pb), so one that has not come
 * seconds after its message never will: the message was sent by a call the
 * layer did not see (one mpivet does not wrap, such as MPI-4's MPI_Psend_init
 * and its large-count form, or an MPI call made from inside another,
 * as from a reduction operation or an error handler). The rank must not
 * hang for it: it stops expecting piggybacks, and logs why, and the explorer
 * stops trusting this run's potential matches. */
int broken;

void ck_take_pb(uint64_t *pb, int src, int tag, struct shadow *s)
{
	if (broken || !clocking) {
		memset(pb, 0, pbw * 8);
		return;
	}
	if (ck_await_pb(pb, src, tag, s->sh, 5.0))
		return;
	char why[400];
	snprintf(why, sizeof why, "rank %d received a message from rank %d (tag %d) that was sent without its clock, by a call "
		 "mpivet does not see (one it does not wrap, such as MPI_Psend_init, or a send made "
		 "inside another MPI call, from a reduction operation or an error handler); from then on, its matches are not explored",
		 me, ck_world(s, src), tag);
	ck_break(why);
}

/* ck_joined stops expecting piggybacks once call has given this rank a
 * communicator with n processes that mpivet did not launch (mpivet_comm_outside):
 * they are not checked, and their messages, which carry no clock, may
 * decide which message a wildcard receive takes, and bring causality that
 * the clocks miss. */
void ck_joined(int n, unsigned call)
{
	if (broken)
		return;
	const char *how = call == MPIVET_ID_MPI_Comm_spawn ? "spawned by MPI_Comm_spawn"
			  : call == MPIVET_ID_MPI_Comm_spawn_multiple ? "spawned by MPI_Comm_spawn_multiple"
			  : call == MPIVET_ID_MPI_Comm_accept ? "met through MPI_Comm_accept"
			  : call == MPIVET_ID_MPI_Comm_connect ? "met through MPI_Comm_connect"
			  : call == MPIVET_ID_MPI_Comm_join ? "met through MPI_Comm_join"
							    : "in a communicator made from an intercommunicator whose creation mpivet did not see";
	char why[500];
	snprintf(why, sizeof why, "rank %d joined processes that mpivet did not launch (%d, %s), which ran without mpivet's "
		 "layer and were not checked; their messages carry no clock, so from then on this rank's matches are not explored",
		 me, n, how);
	if (!clocking) { /* --clocks=off (deterministic mode's too): the report still says who was not checked */
		char both[600];
		snprintf(both, sizeof both, "--clocks=off; and %s", why);
		broken = 1;
		ck_record_clocks(0, both);
		return;
	}
	ck_break(why);
}

/* ck_break stops expecting piggybacks, for the reason why. */
void ck_break(const char *why)
{
	broken = 1;
	ck_record_clocks(0, why);
}

uint64_t *ck_scratch_pb(void)
{
	static uint64_t *b;
	if (!b)
		b = calloc(pbw, 8);
	return b;
}
