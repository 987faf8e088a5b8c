/* Buffers that run out of the global arrays they start in: an
 * MPI_Allgather of 5 ints from each of 2 ranks into a global of 5 ints,
 * and a receive of 12 doubles into a global of 8. The globals' sizes come
 * from the executable's ELF symbol table (no debug information needed):
 * both are reported at the call's line, naming the variable.
 * (heap_clean.c gathers into a global of the right size.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int gathered[5];
double received[8];
double spare[64]; /* what the overruns write over */

int main(int argc, char **argv)
{
	int rank, mine[5] = {0};
	double x[12] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allgather(mine, 5, MPI_INT, gathered, 5, MPI_INT, MPI_COMM_WORLD); // want "buffer-overrun"
	if (rank == 0)
		MPI_Send(x, 12, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(received, 12, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "buffer-overrun"
	spare[0] = 1;
	MPI_Finalize();
	return 0;
}
