/* Seed 000's Fig. 2.7 with the MPI 4.0 large-count forms: rank 0 receives
 * from anyone with MPI_Recv_c, then from rank 2; ranks 1 and 2 send with
 * MPI_Send_c. When the wildcard receive takes rank 2's message, the second
 * receive waits forever. The large-count sends carry the clocks as MPI_Send
 * does, so the wildcard's other match is explored and the deadlock found.
 * (Open MPI 4.1 has no large-count forms.)
 * mpivet: np=3 verdict=error mpi=mpich
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv_c(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv_c(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send_c(&rank, (MPI_Count)1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize(); // want "deadlock"
	return 0;
}
