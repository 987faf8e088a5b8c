/* Rank 1's MPI_Sendrecv receives from rank 0, which computes for 2.5 s and
 * then calls MPI_Finalize without sending; its send half goes to rank 2,
 * which receives it. Rank 1 waits for rank 0 forever. Not reported while
 * rank 0 computes; once it is in MPI_Finalize, the send half of rank 1's
 * call is taken by rank 2's receive, so the receive half is what keeps it.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, out = 1, in = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		usleep(2500000);
	else if (rank == 1)
		MPI_Sendrecv(&out, 1, MPI_INT, 2, 1, &in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	else
		MPI_Recv(&in, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
