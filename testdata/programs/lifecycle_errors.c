/* Request life-cycle errors. Rank 1 frees an active receive with
 * MPI_Request_free (a warning: legal, but it cannot know when the data
 * arrives) and cancels a receive without ever completing it. Then rank 0
 * starts a persistent send again while it is still active: MPICH detects
 * that too and ends the job there (so MPI_Finalize is never reached); Open
 * MPI carries on with a new request.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, sbuf = 1, rbuf[2];
	MPI_Request p, r, c;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(&sbuf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Send(&sbuf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else {
		MPI_Recv(&rbuf[0], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(&rbuf[1], 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
		MPI_Request_free(&r); // want "request-lifecycle"
		MPI_Irecv(&rbuf[0], 1, MPI_INT, 0, 42, MPI_COMM_WORLD, &c); // want(openmpi) "request-lifecycle" "resource-leak"
		MPI_Cancel(&c);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Send_init(&sbuf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &p);
		MPI_Start(&p);
		MPI_Start(&p); // want "request-lifecycle" want(mpich) "program-failure"
		MPI_Wait(&p, MPI_STATUS_IGNORE);
		MPI_Request_free(&p);
	} else {
		MPI_Recv(&rbuf[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&rbuf[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
