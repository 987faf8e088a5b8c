/*
 * mpivet interposition layer: slack, the buffering mpivet supplies to
 * standard-mode sends. Whether the MPI buffers a standard send changes which
 * sends can race for a wildcard receive (seed 001): a send that returns at
 * once lets its rank issue later sends that a synchronous one would hold
 * back. So a send can be made to complete at once, whatever the MPI's eager
 * limit: every one under --buffering=infinite (layer.conf buffering=infinite),
 * or those a guided replay names, decision lines "RANK ORDINAL 0 4"
 * (MPIVET_WILD_BUFFER) where ORDINAL numbers the rank's MPI_Send and
 * MPI_Isend calls from 0, in program order (explore.Decision).
 *
 * A buffered send packs its data into a buffer the layer owns and sends it
 * with MPI_Isend as MPI_PACKED (which any receive type matches, MPI 4.0
 * §5.2.2 "type matching"), a request the layer completes later: at the next
 * buffered send that finds it done, or in MPI_Finalize. MPI_Isend's caller
 * gets a generalized request that is already complete. Not MPI_Bsend with a
 * buffer the layer attaches: a process has one attached buffer, which the
 * program may attach itself (and then sees MPI_ERR_BUFFER), and an attached
 * buffer cannot grow while messages are in it, where "infinite" slack means
 * one copy per message pending. The copy goes out in the order the program
 * sends, on the program's communicator and tag, so matching and
 * non-overtaking are those of the unbuffered send; MPI_Ssend, MPI_Issend,
 * MPI_Bsend and persistent sends are never routed here.
 */
#define _GNU_SOURCE
#include "slack.h"
#include "../record/record.h"
#include "../wait/wait.h"
#include "../record/conf.h"
#include "../generated/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mpivet_slack_on;

static int infinite;
static uint64_t ordinal;     /* the rank's standard sends so far */
static uint64_t *buffer_at;  /* the ordinals to buffer, ascending */
static size_t nbuffer, next; /* buffer_at[next] is the next one to come */

static struct pending {
	MPI_Request r;
	void *copy;
} *pend;
static size_t npend, cappend;

/* load reads this rank's buffering decisions (kind MPIVET_WILD_BUFFER) from
 * the decision file of a guided replay; the clock protocol reads the rest. */
static void load(int me)
{
	const char *path = mpivet_conf(MPIVET_CONF_DECISIONS);
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	size_t cap = 0;
	char line[128];
	while (fgets(line, sizeof line, f)) {
		long rank, src, kind = 0;
		unsigned long long n;
		if (sscanf(line, "%ld %llu %ld %ld", &rank, &n, &src, &kind) < 4 || rank != me || kind != MPIVET_WILD_BUFFER)
			continue;
		if (nbuffer == cap) {
			cap = cap ? cap * 2 : 16;
			buffer_at = realloc(buffer_at, cap * sizeof *buffer_at);
		}
		buffer_at[nbuffer++] = n;
	}
	fclose(f);
}

static void initialized(int me)
{
	infinite = mpivet_conf_is(MPIVET_CONF_BUFFERING, "infinite");
	load(me);
	mpivet_slack_on = mpivet_zero_buffering || infinite || nbuffer > 0;
}

static const struct mpivet_service service = {.initialized = initialized};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void slack_register(void) { mpivet_register(&service); }

/* reap frees the copies of the buffered sends that are done. */
static void reap(void)
{
	size_t j = 0;
	for (size_t i = 0; i < npend; i++) {
		int done = 0;
		PMPI_Test(&pend[i].r, &done, MPI_STATUS_IGNORE);
		if (done)
			free(pend[i].copy);
		else
			pend[j++] = pend[i];
	}
	npend = j;
}

static int query_fn(void *extra, MPI_Status *st)
{
	(void)extra;
	PMPI_Status_set_elements(st, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

/* mpivet_slack_send sends a copy of the message and returns at once. */
int mpivet_slack_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
	int size = 0, pos = 0, rc;
	if ((rc = PMPI_Pack_size(count, datatype, comm, &size)) != MPI_SUCCESS)
		return rc;
	void *copy = malloc(size > 0 ? (size_t)size : 1);
	if (!copy)
		return req ? PMPI_Isend(buf, count, datatype, dest, tag, comm, req) : PMPI_Send(buf, count, datatype, dest, tag, comm);
	if ((rc = PMPI_Pack(buf, count, datatype, copy, size, &pos, comm)) != MPI_SUCCESS) {
		free(copy);
		return rc;
	}
	reap();
	if (npend == cappend) {
		cappend = cappend ? cappend * 2 : 16;
		pend = realloc(pend, cappend * sizeof *pend);
	}
	if ((rc = PMPI_Isend(copy, pos, MPI_PACKED, dest, tag, comm, &pend[npend].r)) != MPI_SUCCESS) {
		free(copy);
		return rc;
	}
	pend[npend++].copy = copy;
	if (req) {
		if ((rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, req)) != MPI_SUCCESS)
			return rc;
		return PMPI_Grequest_complete(*req);
	}
	return MPI_SUCCESS;
}

int mpivet_slack_next(int dest)
{
	uint64_t n = ordinal++;
	while (next < nbuffer && buffer_at[next] < n)
		next++;
	return dest != MPI_PROC_NULL && (infinite || (next < nbuffer && buffer_at[next] == n));
}

int mpivet_std_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
	if (mpivet_slack_next(dest))
		return mpivet_slack_send(buf, count, datatype, dest, tag, comm, req);
	if (mpivet_zero_buffering)
		return req ? PMPI_Issend(buf, count, datatype, dest, tag, comm, req) : mpivet_pmpi_Ssend(buf, count, datatype, dest, tag, comm);
	return req ? PMPI_Isend(buf, count, datatype, dest, tag, comm, req) : mpivet_pmpi_Send(buf, count, datatype, dest, tag, comm);
}

/* The send half synchronous: the MPI has no synchronous MPI_Sendrecv. */
int mpivet_zero_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
			 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return mpivet_sendrecv_by(PMPI_Issend, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
				  recvtag, comm, status);
}

int mpivet_zero_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
				 MPI_Status *status)
{
	int size = 0, pos = 0, rc = PMPI_Pack_size(count, datatype, comm, &size);
	if (rc != MPI_SUCCESS)
		return rc;
	void *tmp = malloc(size > 0 ? (size_t)size : 1);
	if (!tmp) /* no room for the copy: the MPI's own, buffered as it does */
		return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
	MPI_Status st;
	rc = mpivet_zero_sendrecv(buf, count, datatype, dest, sendtag, tmp, size, MPI_PACKED, source, recvtag, comm, &st);
	if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
		int got = 0;
		PMPI_Get_count(&st, MPI_PACKED, &got);
		rc = PMPI_Unpack(tmp, got, &pos, buf, count, datatype, comm);
	}
	free(tmp);
	if (status != MPI_STATUS_IGNORE)
		*status = st;
	return rc;
}

void mpivet_slack_finalize(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (reap(); npend > 0; reap()) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 3)
			break; /* never received: left to the MPI */
		struct timespec nap = {0, 1000000};
		nanosleep(&nap, NULL);
	}
}
