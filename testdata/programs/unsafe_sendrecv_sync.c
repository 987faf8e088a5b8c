/* The send half of MPI_Sendrecv is a standard-mode send: the standard lets
 * it wait for its receive, as MPI_Send may. Rank 0's Sendrecv sends tag 1,
 * which rank 1 receives only after its own Sendrecv, and that one waits for
 * tag 3, which rank 0 sends only after its Sendrecv. The messages are small:
 * both MPIs buffer them and the run ends, but without buffering each rank
 * waits in its Sendrecv for the other (unsafe-buffering). mpivet's run with
 * --buffering=zero confirms it only if it makes the send half synchronous
 * too, as it does MPI_Send's. Its correct twin is clean_sendrecv_sync.c.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 1, y = 2, z = 3, in = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Sendrecv(&x, 1, MPI_INT, 1, 1, &in, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "unsafe-buffering"
		MPI_Send(&z, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
	} else {
		MPI_Sendrecv(&y, 1, MPI_INT, 0, 2, &in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "unsafe-buffering"
		MPI_Recv(&in, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
