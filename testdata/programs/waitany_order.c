/* Which of several requests completes first is nondeterminism, like a
 * wildcard receive: rank 0 waits with MPI_Waitany for a message from rank 1
 * and one from rank 2 and takes the first as the leader's. Rank 2 sends
 * late, so the native run returns rank 1's message first; the program fails
 * only when rank 2's comes first, which exploration forces.
 * mpivet: np=3 verdict=error interleavings=2
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, v[2] = {0, 0}, i;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&v[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&v[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
		MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
		if (v[i] != 1)
			MPI_Abort(MPI_COMM_WORLD, 2); // want "program-failure"
		MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
