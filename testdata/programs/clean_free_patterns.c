/* Legal ways to let go of a request, none of which may be reported:
 * MPI_Request_get_status until complete, then MPI_Request_free; MPI_Cancel,
 * then MPI_Request_free; MPI_Test until complete (which frees it). Plus an
 * Ibarrier completed by Waitany among null requests.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, flag = 0, idx, x = 7, y;
	MPI_Request r, rs[3];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;

	MPI_Isend(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r);
	MPI_Recv(&y, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	while (!flag)
		MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
	MPI_Request_free(&r);

	MPI_Irecv(&y, 1, MPI_INT, peer, 123, MPI_COMM_WORLD, &r);
	MPI_Cancel(&r);
	MPI_Request_free(&r);

	MPI_Irecv(&y, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r);
	MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
	for (flag = 0; !flag;)
		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);

	rs[0] = rs[2] = MPI_REQUEST_NULL;
	MPI_Ibarrier(MPI_COMM_WORLD, &rs[1]);
	MPI_Waitany(3, rs, &idx, MPI_STATUS_IGNORE);

	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
