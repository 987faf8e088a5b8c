/* A declared-type mismatch (a double array sent and received as MPI_INT)
 * in a program stripped of its debug information, as distributions ship
 * binaries: without it the buffer's type is not known, and nothing is
 * said rather than guessed (the signatures of the send and the receive
 * match each other).
 * mpivet: np=2 verdict=ok strip=1
 */
#include <mpi.h>

double values[8];

int main(int argc, char **argv)
{
	int rank;
	double local[4] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(values, 16, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Send(local, 8, MPI_INT, 1, 1, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(values, 16, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(local, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
