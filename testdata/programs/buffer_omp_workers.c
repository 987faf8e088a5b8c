/* MPI_THREAD_FUNNELED in an OpenMP program: the main thread starts a send
 * (rank 0) or a receive (rank 1) and completes it after a parallel region,
 * in which the worker thread (OpenMP thread 1) writes the pending send
 * buffer on rank 0 and reads the pending receive buffer on rank 1. Page
 * protection is process-wide: the workers' accesses fault like the main
 * thread's would, and each is reported at its line, naming the thread.
 * (buffer_omp_workers_clean.c has the workers touch other memory.)
 * Under --buffers=precise, so that the lines do not depend on the load of
 * the machine.
 * mpivet: np=2 verdict=error flags=--buffers=precise
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

int main(int argc, char **argv)
{
	int provided, rank;
	double seen = 0;
	MPI_Request r;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *a = calloc(1024, sizeof *a);
	if (rank == 0)
		MPI_Isend(a, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	else
		MPI_Irecv(a, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
#pragma omp parallel num_threads(2) reduction(+ : seen)
	{
		if (omp_get_thread_num() == 1) {
			if (rank == 0)
				a[1] = 2.5; // want "buffer-reuse"
			else
				seen += a[1]; // want "buffer-reuse"
		}
	}
	MPI_Wait(&r, MPI_STATUS_IGNORE); // want "buffer-reuse"
	printf("rank %d: %g %g\n", rank, a[1], seen);
	free(a);
	MPI_Finalize();
	return 0;
}
