/* A window whose memory one rank never provides (3 ranks): rank 1 never
 * calls MPI_Win_allocate, the collective the others wait in, and goes on
 * to MPI_Finalize. Found as a deadlock as soon as every rank is blocked,
 * not at the time limit.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, *buf;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank != 1) {
		MPI_Win_allocate(16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win); // want "deadlock"
		MPI_Win_fence(0, win);
		MPI_Win_fence(0, win);
		MPI_Win_free(&win);
	}
	MPI_Finalize(); // want "deadlock"
	return 0;
}
