/* Rank 0 computes for about 4 seconds (twice the time after which mpivet
 * looks for deadlocks) while the others wait for its message: that is no
 * deadlock, and the correct program gives no finding.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, x = 42;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		double t0 = MPI_Wtime();
		volatile double s = 0;
		while (MPI_Wtime() - t0 < 4.0)
			for (int i = 0; i < 100000; i++)
				s += i * 1e-9;
		for (int r = 1; r < size; r++)
			MPI_Send(&x, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
	} else {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
