/* MPI_THREAD_MULTIPLE with OpenMP: in a parallel region of rank 0, OpenMP
 * thread 1 sends to rank 1 and reaches the region's implicit barrier,
 * while the master receives a message rank 1 never sends; rank 1 receives
 * thread 1's message and waits in MPI_Barrier. Thread 1 has called MPI and
 * waits outside it, at the barrier, for the master: every thread of both
 * ranks is blocked, a deadlock found in the first run, which names the
 * barrier's wait in the OpenMP runtime.
 * mpivet: np=2 verdict=error interleavings=1 says=OpenMP
 */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
	int provided, rank, x = -1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		MPI_Finalize(); /* the MPI cannot run this test; nothing to check */
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(2)
		{
			if (omp_get_thread_num() == 1)
				MPI_Send(&rank, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
			else
				MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
		}
	} else
		MPI_Recv(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
