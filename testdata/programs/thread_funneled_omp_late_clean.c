/* MPI_THREAD_FUNNELED with OpenMP: rank 0's master waits in MPI_Recv
 * inside a parallel region while the region's other threads compute for
 * 3 s (longer than the stall delay) and then reach its implicit barrier;
 * rank 1 computes for 3 s with its own OpenMP threads before its master
 * sends the message. Threads that run count as able to act, and the
 * OpenMP threads that spin at the barrier before they sleep there are not
 * taken for sleepers too early. No finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <omp.h>
#include <time.h>

/* compute runs on the CPU for s seconds. */
static void compute(int s)
{
	volatile double x = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < s);
}

int main(int argc, char **argv)
{
	int provided, rank, x = -1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
#pragma omp parallel num_threads(3)
		{
			if (omp_get_thread_num() == 0)
				MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			else
				compute(3);
		}
	} else if (rank == 1) {
#pragma omp parallel num_threads(2)
		compute(3);
		MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
