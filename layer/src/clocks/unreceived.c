/*
 * Messages never received, found at MPI_Finalize (or at the MPI_Comm_free
 * of their communicator).
 */
#define _GNU_SOURCE
#include "protocol.h"
#include "../wait/wait.h"

#include <stdlib.h>

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

MPI_Comm fin_comm = MPI_COMM_NULL;
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

/* ck_claim_unreceived claims (MPI_Improbe) every message waiting on s's
 * communicator, logs it, and receives it, or keeps it for MPI_Finalize
 * (freed: the communicator is being freed). It returns how many it found. */
int64_t ck_claim_unreceived(struct shadow *s, int freed)
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
			uint64_t *pb = ck_scratch_pb();
			ck_settle_before(seqs + 1, s, st.MPI_SOURCE, st.MPI_TAG);
			if (ck_await_pb(pb, st.MPI_SOURCE, st.MPI_TAG, s->sh, UNRECEIVED_WAIT))
				pc = pb[pbn + 1];
		}
		if (nlogged++ < UNRECEIVED_LOGGED) {
			uint64_t w[] = {(uint64_t)(int64_t)ck_world(s, st.MPI_SOURCE), (uint64_t)(int64_t)st.MPI_SOURCE, (uint64_t)(int64_t)st.MPI_TAG,
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

/* ck_unreceived runs at MPI_Finalize, before the MPI's. */
void ck_unreceived(void)
{
	if (fin_comm == MPI_COMM_NULL)
		return;
	for (size_t i = 0; i < nclaimed; i++)
		drain(&claimed[i].m, claimed[i].bytes);
	int64_t l[2] = {(int64_t)nsent, (int64_t)nreceived}, g[2];
	if (mpivet_pmpi_Allreduce(l, g, 2, MPI_INT64_T, MPI_SUM, fin_comm) != MPI_SUCCESS || g[0] <= g[1])
		return;
	int64_t missing = g[0] - g[1], found = 0;
	double t0 = PMPI_Wtime();
	for (;;) {
		for (size_t i = 0; i < capshadows; i++)
			if (shadows[i] && shadows[i] != &ck_tomb)
				found += ck_claim_unreceived(shadows[i], 0);
		l[0] = found, l[1] = PMPI_Wtime() - t0 > UNRECEIVED_WAIT;
		if (mpivet_pmpi_Allreduce(l, g, 2, MPI_INT64_T, MPI_SUM, fin_comm) != MPI_SUCCESS || g[0] >= missing || g[1])
			return;
	}
}
