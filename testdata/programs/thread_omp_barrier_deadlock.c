/* MPI_THREAD_FUNNELED with OpenMP: in a parallel region of rank 0, the
 * master thread receives a message rank 1 never sends, while the other
 * OpenMP threads wait at the region's implicit barrier (libgomp sleeps in
 * futex there); rank 1 waits in MPI_Barrier. Every thread of both ranks
 * is blocked: a deadlock, found in the first run.
 * thread_omp_barrier_clean.c has rank 1 send the message.
 * mpivet: np=2 verdict=error interleavings=1 flags=--timeout=60s
 */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
	int provided, rank, x = -1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(3)
		{
#pragma omp master
			MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "deadlock"
		}
	}
	MPI_Barrier(MPI_COMM_WORLD); // want "deadlock"
	MPI_Finalize();
	return 0;
}
