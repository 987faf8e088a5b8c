/* A program that relies on MPI_Bcast not synchronising: rank 1 receives,
 * before its own MPI_Bcast, a message the root sends after its MPI_Bcast.
 * Both MPIs let the root of a small broadcast return at once, so the run
 * ends; the standard lets any collective synchronise (MPI 4.0 §6.1), and
 * where it does, the root waits in MPI_Bcast for rank 1, which waits for
 * the root's message. The offline zero-buffering replay suspects it, and
 * the run that confirms it (every blocking collective with data
 * synchronising, as under --buffering=zero) deadlocks: unsafe-buffering.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, x = 5, y = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "unsafe-buffering"
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
	} else
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
	printf("rank %d: x=%d y=%d\n", rank, x, y);
	MPI_Finalize();
	return 0;
}
