/*
 * How a rank waits in a blocking call (wait.h): under wait=sleep, the
 * call's nonblocking form, then its test form in a loop with a backoff.
 *
 * The backoff polls first for SPIN_NS, giving the core away between polls
 * (sched_yield: a peer rank that shares the core runs at once, and the
 * poll costs nothing when no one else wants the core), then sleeps from
 * FIRST_NS, doubling, to a cap (CAP_NS; MPIVET_WAIT_SPIN_NS and
 * MPIVET_WAIT_CAP_NS override them, to measure). A reply that comes within
 * the spin costs no sleep: the shortest sleep takes about 60 us (the
 * kernel's default timer slack of 50 us included), and a halo exchange of
 * 4 ranks on 2 cores, whose waits last 0.1-1 ms, ran 2.3 times slower per
 * iteration with a spin of 50 us than with one of 1 ms (docs/performance.md,
 * "Real applications"). The cap bounds the latency a long
 * wait adds once its message comes; a sleep costs a system call and the
 * scheduler's wake-up, so a wait of W seconds sleeps about log2(CAP/FIRST)
 * + W/CAP times (docs/design/parallel-replays.md, "Waiting in
 * oversubscribed replays").
 *
 * What each call becomes is what the standard says it is equivalent to
 * (MPI_Send: MPI_Isend then MPI_Wait; MPI_Wait: MPI_Test until the flag is
 * set; MPI_Probe: MPI_Iprobe until it finds a message), so the program sees
 * the same results. Left as they are: MPI_Bsend (it does not wait for a
 * peer), MPI_Sendrecv_replace (its nonblocking form is MPI-4's), the
 * program's blocking collectives (the collective checks compare blocking
 * and nonblocking kinds between ranks, and the workloads measured have
 * none: docs/design/parallel-replays.md), and the MPI's own waits in MPI_Init and MPI_Finalize. The
 * layer's own collective at MPI_Finalize, where every rank waits for the
 * slowest before the MPI's, is waited here, and so is the clock
 * synchronisation of a blocking collective (clocks/events.c).
 */
#define _GNU_SOURCE
#include "wait.h"
#include "../record/record.h"
#include "../record/conf.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define SPIN_NS 1000000L
#define FIRST_NS 8000L
#define CAP_NS 1000000L

int mpivet_wait_sleep;
static long cap_ns = CAP_NS;
static long spin_ns = SPIN_NS;
static uint64_t sleeps;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

void mpivet_backoff(struct mpivet_backoff *b)
{
	if (!b->ns) {
		uint64_t t = now_ns(); /* the vDSO's: no system call */
		if (!b->spun)
			b->spun = t;
		if (t - b->spun < (uint64_t)spin_ns) {
			sched_yield();
			return;
		}
	}
	b->ns = b->ns ? b->ns * 2 : FIRST_NS;
	if (b->ns > cap_ns)
		b->ns = cap_ns;
	struct timespec ts = {0, b->ns};
	nanosleep(&ts, NULL);
	__atomic_fetch_add(&sleeps, 1, __ATOMIC_RELAXED);
}

uint64_t mpivet_wait_sleeps(void) { return __atomic_load_n(&sleeps, __ATOMIC_RELAXED); }

/* ---- Requests ---- */

int mpivet_pmpi_Wait(MPI_Request *request, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Wait(request, status);
	struct mpivet_backoff b = {0};
	for (int flag = 0;; mpivet_backoff(&b)) {
		int rc = PMPI_Test(request, &flag, status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
	}
}

/* Waitall polls each request with MPI_Request_get_status, then waits for
 * them all, done: MPICH 4.0's MPI_Testall fails (MPI_ERR_IN_STATUS, with
 * MPI_ERR_PENDING in the status of a persistent collective still running)
 * where the standard has it return with the flag clear. Requests complete
 * once and stay complete: the poll goes on from the first not done. */
int mpivet_pmpi_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	if (!mpivet_wait_sleep)
		return PMPI_Waitall(count, requests, statuses);
	struct mpivet_backoff b = {0};
	for (int i = 0; i < count; mpivet_backoff(&b)) {
		int flag = 0;
		int rc = PMPI_Request_get_status(requests[i], &flag, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			break; /* the wait says what */
		while (flag && ++i < count)
			if (PMPI_Request_get_status(requests[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				flag = 0, i = count;
	}
	return PMPI_Waitall(count, requests, statuses);
}

int mpivet_pmpi_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Waitany(count, requests, index, status);
	struct mpivet_backoff b = {0};
	for (int flag = 0;; mpivet_backoff(&b)) { /* no active request: flag set, index MPI_UNDEFINED */
		int rc = PMPI_Testany(count, requests, index, &flag, status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
	}
}

int mpivet_pmpi_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
	if (!mpivet_wait_sleep)
		return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
	struct mpivet_backoff b = {0};
	for (;; mpivet_backoff(&b)) { /* no active request: outcount MPI_UNDEFINED */
		int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
		if (rc != MPI_SUCCESS || *outcount != 0)
			return rc;
	}
}

/* ---- Point to point ---- */

int mpivet_pmpi_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	if (!mpivet_wait_sleep)
		return PMPI_Send(buf, count, datatype, dest, tag, comm);
	MPI_Request r;
	int rc = PMPI_Isend(buf, count, datatype, dest, tag, comm, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, MPI_STATUS_IGNORE);
}

int mpivet_pmpi_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	if (!mpivet_wait_sleep)
		return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
	MPI_Request r;
	int rc = PMPI_Issend(buf, count, datatype, dest, tag, comm, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, MPI_STATUS_IGNORE);
}

int mpivet_pmpi_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	if (!mpivet_wait_sleep)
		return PMPI_Rsend(buf, count, datatype, dest, tag, comm);
	MPI_Request r;
	int rc = PMPI_Irsend(buf, count, datatype, dest, tag, comm, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, MPI_STATUS_IGNORE);
}

int mpivet_pmpi_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
	MPI_Request r;
	int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, status);
}

/* As MPICH and Open MPI do it: the receive posted first, then the send
 * (started by isend: PMPI_Isend, or PMPI_Issend for a synchronous one), and
 * both waited for as the layer waits; the first error of the two, as
 * MPI_Sendrecv returns it. */
int mpivet_sendrecv_by(mpivet_isend_fn isend, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Request r[2];
	int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
	if (rc != MPI_SUCCESS)
		return rc;
	if ((rc = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1])) != MPI_SUCCESS) {
		PMPI_Cancel(&r[0]);
		PMPI_Request_free(&r[0]);
		return rc;
	}
	MPI_Status st[2];
	rc = mpivet_pmpi_Waitall(2, r, st);
	if (rc == MPI_ERR_IN_STATUS)
		rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
	if (status != MPI_STATUS_IGNORE)
		*status = st[0];
	return rc;
}

int mpivet_pmpi_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
			 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
				     status);
	return mpivet_sendrecv_by(PMPI_Isend, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
				  recvtag, comm, status);
}

int mpivet_pmpi_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Probe(source, tag, comm, status);
	struct mpivet_backoff b = {0};
	for (int flag = 0;; mpivet_backoff(&b)) {
		int rc = PMPI_Iprobe(source, tag, comm, &flag, status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
	}
}

int mpivet_pmpi_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Mprobe(source, tag, comm, message, status);
	struct mpivet_backoff b = {0};
	for (int flag = 0;; mpivet_backoff(&b)) {
		int rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
	}
}

int mpivet_pmpi_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
	if (!mpivet_wait_sleep)
		return PMPI_Mrecv(buf, count, datatype, message, status);
	MPI_Request r;
	int rc = PMPI_Imrecv(buf, count, datatype, message, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, status);
}

/* ---- The layer's own collective ---- */

/* Every rank makes it, the same way, on the layer's communicator: no check
 * sees it, so its nonblocking form changes nothing but the wait. */
int mpivet_pmpi_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	if (!mpivet_wait_sleep)
		return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
	MPI_Request r;
	int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &r);
	return rc != MPI_SUCCESS ? rc : mpivet_pmpi_Wait(&r, MPI_STATUS_IGNORE);
}

/* ---- Start and end ---- */

static void wait_opened(void)
{
	mpivet_wait_sleep = mpivet_conf_is(MPIVET_CONF_WAIT, "sleep");
	const char *cap = getenv("MPIVET_WAIT_CAP_NS");
	if (cap && atol(cap) > 0)
		cap_ns = atol(cap);
	const char *e = getenv("MPIVET_WAIT_SPIN_NS");
	if (e && atol(e) > 0)
		spin_ns = atol(e);
}

static const struct mpivet_service service = {.log_opened = wait_opened};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void wait_register(void) { mpivet_register(&service); }

__attribute__((destructor)) static void wait_stamp(void)
{
	if (mpivet_wait_sleep)
		mpivet_stamp_count("sleeps", mpivet_wait_sleeps());
}
