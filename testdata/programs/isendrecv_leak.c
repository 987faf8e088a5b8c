/* MPI 4.0 MPI_Isendrecv whose request rank 1 never completes nor frees: a
 * leaked request, still pending at MPI_Finalize. Rank 0's is waited for.
 * mpivet: np=2 verdict=error mpi=mpich
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, out, in = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	out = rank;
	if (rank == 0) {
		MPI_Isendrecv(&out, 1, MPI_INT, 1, 0, &in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	} else {
		MPI_Isendrecv(&out, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); // want "resource-leak" "request-lifecycle"
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
