/* Completion orders that matter: in each of 6 iterations rank 0 waits with
 * MPI_Waitany for a message from rank 1 and one from rank 2, and tells rank
 * 3 which came first in the tag of a message. Rank 3 fails when rank 2's
 * came first in iteration 4. Rank 2 sends late, so the native run sees rank
 * 1's first every time. The other order of a Waitany changes what rank 0
 * does next (the tag it sends), so the exploration does not stand one
 * iteration for the others: it replays every iteration's other order, and
 * finds iteration 4's.
 * mpivet: np=4 verdict=error interleavings=7
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int it = 0; it < 6; it++) {
		if (rank == 0) {
			int v[2], i;
			MPI_Request r[2];
			MPI_Irecv(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
			MPI_Irecv(&v[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
			MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
			MPI_Send(&it, 1, MPI_INT, 3, i, MPI_COMM_WORLD);
			MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
		} else if (rank == 3) {
			int v;
			MPI_Status st;
			MPI_Recv(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (v == 4 && st.MPI_TAG == 1)
				MPI_Abort(MPI_COMM_WORLD, 2); // want "program-failure"
		} else {
			if (rank == 2)
				usleep(20000);
			MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
