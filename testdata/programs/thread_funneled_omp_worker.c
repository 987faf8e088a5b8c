/* MPI_THREAD_FUNNELED in an OpenMP program: inside a parallel region, the
 * worker thread (OpenMP thread 1) of rank 0, not the main one, sends to
 * rank 1, whose main thread receives. Only the main thread may
 * call MPI under FUNNELED: the send is reported at its line, naming the
 * thread. (thread_funneled_omp_clean.c sends from the master thread.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int provided, rank, in = -1, out;
	double sum = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	out = rank;
#pragma omp parallel num_threads(2) reduction(+ : sum)
	{
		for (int i = 0; i < 1000; i++)
			sum += i * 0.5;
		if (rank == 0 && omp_get_thread_num() == 1)
			MPI_Send(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "thread-level"
	}
	if (rank == 1)
		MPI_Recv(&in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d got %d (%g)\n", rank, in, sum);
	MPI_Finalize();
	return 0;
}
