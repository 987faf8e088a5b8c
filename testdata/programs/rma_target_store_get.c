/* The target stores into the bytes another rank's MPI_Get reads in the
 * same fence epoch (MPI 4.0 §12.7: the Get may return the old value, the
 * new one, or a mix of both). Rank 0 gets 16 doubles from the start of
 * rank 1's window; rank 1, between the fences, stores into the tenth of
 * them. In the next epoch it stores into another page, into bytes nobody
 * accesses, and after the last fence (MPI_MODE_NOSUCCEED) into the bytes
 * the second Get read: neither is a finding.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank;
	double *base, got[16];
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(4096 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 4096; i++)
		base[i] = i;
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	if (rank == 0)
		MPI_Get(got, 16, MPI_DOUBLE, 1, 1024, 16, MPI_DOUBLE, win);
	if (rank == 1)
		base[1033] = -1; /* a store into the Get's bytes */ // want "rma-race"
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Get(got, 16, MPI_DOUBLE, 1, 2048, 16, MPI_DOUBLE, win);
	if (rank == 1)
		base[2047 + 512] = 3; /* another page, nobody's bytes */
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	if (rank == 1)
		base[2050] = -2; /* after the epoch: fine */
	printf("rank %d: %g\n", rank, rank == 0 ? got[9] : base[1033]);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
