/* Seed 000, Fig. 2.8: rank 0 never completes its Isend; neither rank frees
 * the datatype it created.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[8] = {0};
	MPI_Request h;
	MPI_Datatype newtype;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Type_contiguous(8, MPI_INT, &newtype); // want "resource-leak"
		MPI_Type_commit(&newtype);
		MPI_Isend(buf, 1, newtype, 1, 0, MPI_COMM_WORLD, &h); // want "resource-leak" "request-lifecycle"
	} else if (rank == 1) {
		MPI_Type_contiguous(8, MPI_INT, &newtype); // want "resource-leak"
		MPI_Type_commit(&newtype);
		MPI_Recv(buf, 1, newtype, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
