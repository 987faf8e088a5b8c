/* An eager MPI_Send that no receive matches, under --clocks=off: the layer
 * still counts and finds the message at MPI_Finalize and reports it with
 * its source, tag and communicator, at rank 1's MPI_Finalize; the line of
 * the send comes with the clock protocol only.
 * mpivet: np=2 verdict=error flags=--clocks=off
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
	MPI_Finalize(); // want "unreceived-message"
	return 0;
}
