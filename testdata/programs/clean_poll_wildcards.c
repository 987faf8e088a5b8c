/* The correct twin of poll_wildcard_deadlock: rank 1 takes two messages
 * from anyone, the first by MPI_Irecv and an MPI_Testany loop over it and
 * a null request, the second found by an MPI_Iprobe loop and received
 * from the source it names; then MPI_Request_get_status and MPI_Test on
 * null requests. The poll that completes the wildcard receive is one of
 * thousands that found nothing: its match must be known all the same, so
 * that exploration runs the other order too (2 interleavings). Either
 * order is fine, and no poll is reported.
 * mpivet: np=3 verdict=ok interleavings=2
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0, y = 0, flag = 0, idx;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		MPI_Status st;
		MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r[1]);
		while (!flag || idx == MPI_UNDEFINED)
			MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE);
		for (flag = 0; !flag;)
			MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, &st);
		MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Request_get_status(r[1], &flag, MPI_STATUS_IGNORE);
		MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
		if (x + y != 2)
			printf("rank 1: received %d and %d\n", x, y);
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
