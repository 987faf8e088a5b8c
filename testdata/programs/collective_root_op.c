/* On each half of a split communicator the members disagree on the root of
 * a reduction (rank 0 of the half says 0, rank 1 says 1); on the world
 * everybody agrees. The reductions can never match, so the run also hangs:
 * a deadlock caused by the mismatch.
 * mpivet: np=4 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, x = 1, y = 0;
	MPI_Comm half;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	int hrank;
	MPI_Comm_rank(half, &hrank);
	MPI_Reduce(&x, &y, 1, MPI_INT, MPI_MAX, hrank == 0 ? 0 : 1, half); // want "collective-mismatch" "deadlock"
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
