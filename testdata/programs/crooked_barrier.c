/* After seed 000, Fig. 1.1: rank 1 aborts when its wildcard receive matched
 * rank 2's message (x == 33). Here rank 0 can only send after the barrier,
 * which rank 1 enters after its first receive, so that receive always
 * matches rank 2 and every run aborts: this checks how MPI_Abort is
 * reported, not exploration.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		x = 22;
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
		if (x == 33)
			MPI_Abort(MPI_COMM_WORLD, 1); // want "program-failure"
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		x = 33;
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
