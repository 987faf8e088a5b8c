/*
 * mpivet interposition layer: the buffering mpivet supplies to standard-mode
 * sends (slack.c). The wrappers of MPI_Send and MPI_Isend call
 * mpivet_std_send instead of the MPI when mpivet_slack_on is set.
 */
#ifndef MPIVET_SLACK_H
#define MPIVET_SLACK_H

#include <mpi.h>

/* Set once MPI is initialised if the wrappers must go through
 * mpivet_std_send: --buffering=zero or infinite, or a guided replay that
 * buffers some sends. */
extern int mpivet_slack_on;

/* mpivet_std_send makes the standard-mode send of MPI_Send (req NULL) or
 * MPI_Isend: synchronous under --buffering=zero, buffered by the layer when
 * this send is to be (every one under --buffering=infinite, those a
 * decision names otherwise), as the MPI does it otherwise. */
int mpivet_std_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *req);

/* mpivet_slack_next counts a standard-mode send (MPI_Send, MPI_Isend) and
 * says whether the layer buffers it; mpivet_slack_send then sends it so: a
 * copy, sent nonblocking, and for MPI_Isend (req not NULL) a request that
 * is complete already. The Fortran wrappers use them with their C views. */
int mpivet_slack_next(int dest);
int mpivet_slack_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *req);

/* mpivet_zero_sendrecv and mpivet_zero_sendrecv_replace are MPI_Sendrecv
 * and MPI_Sendrecv_replace under --buffering=zero: the send half is
 * standard-mode, so it becomes synchronous like MPI_Send's (MPI_Issend),
 * posted with the receive half and completed with it. There is no
 * synchronous MPI_Sendrecv to call instead. _replace receives into a packed
 * copy (MPI_PACKED matches any send type) while the send reads buf. */
int mpivet_zero_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
			 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int mpivet_zero_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
				 MPI_Status *status);

/* mpivet_slack_finalize completes the layer's buffered sends before
 * MPI_Finalize (for at most a few seconds: a message nobody receives is
 * the unreceived-message check's business, not a reason to hang). */
void mpivet_slack_finalize(void);

#endif
