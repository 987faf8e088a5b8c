/* A library with a wildcard receive: rank 0 takes one message from each
 * of ranks 1 and 2, the first from whichever sends first, and fails if
 * that is rank 2 (a bug of the library's, behind its other match). Rank 2
 * sends late, so a run matches rank 1 first. */
#include <mpi.h>
#include <unistd.h>

void pick(MPI_Comm comm)
{
	int rank, v;
	MPI_Status st;
	MPI_Comm_rank(comm, &rank);
	if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, comm, &st);
		if (st.MPI_SOURCE == 2)
			MPI_Abort(comm, 5); /* the library's failure */
		MPI_Recv(&v, 1, MPI_INT, 3 - st.MPI_SOURCE, 5, comm, &st);
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 5, comm);
	}
}
