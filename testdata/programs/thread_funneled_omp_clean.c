/* MPI_THREAD_FUNNELED in an OpenMP program, kept: inside a parallel region
 * only the master thread (the main one) calls MPI, exchanging with the
 * other rank while the worker computes; the barrier after it orders the
 * workers' use of what was received. No finding.
 * (thread_funneled_omp_worker.c sends from the worker.)
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int provided, rank, in = -1, out;
	double part[2] = {0, 0};
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	out = rank;
#pragma omp parallel num_threads(2)
	{
		int me = omp_get_thread_num();
#pragma omp master
		MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 0, &in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int i = 0; i < 1000; i++)
			part[me] += i * 0.5;
#pragma omp barrier
		part[me] += in;
	}
	printf("rank %d got %d (%g)\n", rank, in, part[0] + part[1]);
	MPI_Finalize();
	return 0;
}
