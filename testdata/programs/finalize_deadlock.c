/* Rank 0 forgets to send and goes to MPI_Finalize while rank 1 still waits
 * for its message: a deadlock at MPI_Finalize (a synchronous send to a rank
 * in MPI_Finalize would hang the same way).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1)
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	MPI_Finalize(); // want "deadlock"
	return 0;
}
