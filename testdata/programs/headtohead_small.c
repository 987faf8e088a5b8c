/* Seed 003, Fig. 1(c) with one integer: every MPI buffers so small a
 * message, so the run completes; the zero-buffering run mpivet makes after
 * it (standard sends synchronous) shows the reliance on buffering.
 * mpivet: np=2 verdict=error buffering=run
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out = 1, in;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD); // want "unsafe-buffering"
	MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
