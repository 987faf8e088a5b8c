/*
 * wait/: how a rank waits in the MPI calls that block (wait.c).
 *
 * With wait=sleep in layer.conf (the driver's choice when the ranks of the
 * replays running at once outnumber the cores, --wait=auto), a blocking
 * call the wrappers or the layer make is its nonblocking form and a loop of
 * its test form with a sleeping backoff: a waiting rank gives its core to
 * the rank with work, or to another replay, instead of the MPI's own wait,
 * which polls (Open MPI yields in the loop; MPICH does not even do that).
 * Otherwise (wait=spin) each function is the PMPI call itself.
 *
 * Only the MPI call changes: the wrappers record, clock and check the call
 * the program made, and the test loop leaves no record, so records do not
 * grow with the polls. The lowest layer that needs it: the clock protocol
 * waits for piggybacks through it, the wrappers and the layer's buffering
 * (slack/) for the program's calls.
 */
#ifndef MPIVET_WAIT_H
#define MPIVET_WAIT_H

#include <mpi.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Set from layer.conf when the log opens: blocking calls poll and sleep. */
extern int mpivet_wait_sleep;

/* A backoff: a short spin, then sleeps that grow to a cap. Zero it before
 * the first poll; mpivet_backoff after each poll that found nothing. */
struct mpivet_backoff {
	uint64_t spun; /* when the spin began (CLOCK_MONOTONIC, ns) */
	long ns;       /* the last sleep */
};
void mpivet_backoff(struct mpivet_backoff *b);

/* The blocking calls, with the PMPI signature. */
int mpivet_pmpi_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpivet_pmpi_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpivet_pmpi_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int mpivet_pmpi_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
int mpivet_pmpi_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
			 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
/* mpivet_sendrecv_by is MPI_Sendrecv made of its nonblocking halves, the
 * send started by isend (the zero-buffering Sendrecv's is PMPI_Issend). */
typedef int (*mpivet_isend_fn)(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
			       MPI_Request *request);
int mpivet_sendrecv_by(mpivet_isend_fn isend, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int mpivet_pmpi_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int mpivet_pmpi_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int mpivet_pmpi_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
int mpivet_pmpi_Wait(MPI_Request *request, MPI_Status *status);
int mpivet_pmpi_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int mpivet_pmpi_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int mpivet_pmpi_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]);

/* The layer's own collective where ranks wait for the slowest, at
 * MPI_Finalize (clocks/unreceived.c). Not the program's collectives: the
 * wrappers call those as they are (wait.c says why). */
int mpivet_pmpi_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* mpivet_wait_sleeps is how often this rank slept waiting (MPIVET_TIMING
 * reports it at exit, as "sleeps"). */
uint64_t mpivet_wait_sleeps(void);

#pragma GCC visibility pop

#endif
