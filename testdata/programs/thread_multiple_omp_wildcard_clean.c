/* The correct twin of thread_multiple_omp_wildcard.c: the master thread
 * of rank 0 takes two messages from any source and adds them up, which
 * gives the same in either order; OpenMP thread 1 receives a message of
 * its own from rank 1 meanwhile. Both orders are explored.
 * mpivet: np=3 verdict=ok interleavings=2
 */
#include <assert.h>
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(2)
		{
			int x = -1, y = -1;
			if (omp_get_thread_num() == 0) {
				MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				assert(x + y == 3);
			} else {
				MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
	} else {
		if (rank == 1)
			MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
		else
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
