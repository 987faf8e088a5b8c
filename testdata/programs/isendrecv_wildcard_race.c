/* Seed 000's Fig. 2.7 with the messages sent by the MPI 4.0 nonblocking
 * send-receive: rank 0 receives from anyone, then from rank 2, then answers
 * both; ranks 1 and 2 send to rank 0 and take its answer with one
 * MPI_Isendrecv_replace each. Their messages carry their clocks, so the
 * exploration sees that rank 2's message could have been the first one
 * received: then rank 0's second receive waits forever, and so do ranks 1
 * and 2 for the answer. Rank 2 sends late: the native run matches rank 1
 * and ends well; a replay finds the hang. It is reported at the time limit,
 * not as a deadlock: the send half of a pending MPI_Isendrecv_replace
 * counts as a send in progress (its message may not have been taken yet),
 * which the wait-for analysis takes as able to release rank 0.
 * mpivet: np=3 verdict=error mpi=mpich timeout=8s
 */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x = 0, y = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "timeout"
		MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Send(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
	} else {
		if (rank == 2)
			usleep(200000);
		y = rank;
		MPI_Isendrecv_replace(&y, 1, MPI_INT, 0, 0, 0, 1, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "timeout"
	}
	MPI_Finalize();
	return 0;
}
