/* An MPI 4.0 persistent allreduce, started in a loop: in the second round
 * rank 2 skips its start and waits for a message rank 0 sends only once the
 * allreduce completes. A started persistent collective is the nonblocking
 * collective it describes: rank 0 and rank 1 wait for rank 2's start, rank 2
 * for rank 0's message, a deadlock of the three.
 * mpivet: np=3 verdict=error mpi=mpich timeout=60s
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, mine = 1, sum = 0, v = 0;
	MPI_Request a;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &a);
	for (int i = 0; i < 2; i++) {
		if (rank == 2 && i == 1) {
			MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
			continue;
		}
		MPI_Start(&a);
		MPI_Wait(&a, MPI_STATUS_IGNORE); // want "deadlock"
	}
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
	MPI_Request_free(&a);
	MPI_Finalize();
	return 0;
}
