/* headtohead_small.c with the zero-buffering run turned off: the run that
 * happens completes (the MPI buffers the messages) and nothing is reported.
 * mpivet: np=2 flags=--buffering-check=false verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out = 1, in;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
	MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
