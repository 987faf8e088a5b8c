/* MPI 4.0 MPI_Isendrecv with a receive from MPI_ANY_SOURCE: each of ranks 1
 * and 2 sends to rank 0, which takes both with two wildcard nonblocking
 * send-receives (sending to MPI_PROC_NULL). A correct program: MPICH 4.0
 * leaves the status of an MPI_Isendrecv request unset, so mpivet cannot
 * learn which message a wildcard one matched: it checks the interleaving
 * that happened and says that rank 0's matches are not explored.
 * mpivet: np=3 verdict=ok mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, in[2] = {0, 0}, none = 0;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		for (int i = 0; i < 2; i++)
			MPI_Isendrecv(&none, 1, MPI_INT, MPI_PROC_NULL, 0, &in[i], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r[i]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
