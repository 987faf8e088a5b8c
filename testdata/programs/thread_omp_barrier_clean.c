/* MPI_THREAD_FUNNELED with OpenMP: as thread_omp_barrier_deadlock.c, but
 * rank 1 sends the message, late (after the stall delay): meanwhile rank
 * 0's master waits in MPI_Recv and its other OpenMP threads at the
 * region's implicit barrier. No finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int provided, rank, x = -1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(3)
		{
#pragma omp master
			MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	} else {
		sleep(2); /* computes: the run makes no MPI progress meanwhile */
		MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
