/* A race that only one interleaving of a wildcard receive shows (3 ranks):
 * ranks 1 and 2 each send rank 0 a message; rank 0 puts into the window of
 * whichever rank's message it received first, at int 0, and rank 1 puts to
 * int 0 of rank 2, in the same fence interval. When rank 1's message comes
 * first, rank 0 writes to rank 1 and there is no conflict; when rank 2's
 * does, rank 0 and rank 1 both write int 0 of rank 2. The exploration runs
 * both.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1, msg = 0;
	MPI_Status st;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank == 0) {
		MPI_Recv(&msg, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		MPI_Recv(&msg, 1, MPI_INT, 3 - st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Put(&v, 1, MPI_INT, st.MPI_SOURCE, 0, 1, MPI_INT, win); // want "rma-race"
	} else {
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		if (rank == 1)
			MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win); // want "rma-race"
	}
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
