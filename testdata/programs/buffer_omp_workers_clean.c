/* MPI_THREAD_FUNNELED in an OpenMP program, kept: while a send (rank 0) or
 * a receive (rank 1) is pending, the threads of a parallel region update
 * other memory; the main thread completes the operation after the region,
 * and only then do the threads read what was received. No finding.
 * (buffer_omp_workers.c has a worker touch the pending buffer.)
 * mpivet: np=2 verdict=ok flags=--buffers=precise
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

int main(int argc, char **argv)
{
	int provided, rank;
	double sum = 0;
	MPI_Request r;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *a = calloc(1024, sizeof *a), *other = calloc(1024, sizeof *other);
	for (int i = 0; i < N; i++)
		a[i] = i;
	if (rank == 0)
		MPI_Isend(a, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
	else
		MPI_Irecv(a, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
#pragma omp parallel for num_threads(2)
	for (int i = 0; i < 1024; i++)
		other[i] += 0.5 * i;
	MPI_Wait(&r, MPI_STATUS_IGNORE);
#pragma omp parallel for num_threads(2) reduction(+ : sum)
	for (int i = 0; i < N; i++)
		sum += a[i] + other[i];
	printf("rank %d: %g\n", rank, sum);
	free(a);
	free(other);
	MPI_Finalize();
	return 0;
}
