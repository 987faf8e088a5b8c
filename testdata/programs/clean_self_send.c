/* Messages a rank sends itself: a blocking send to a receive it posted
 * before, a synchronous one, and a sendrecv with itself. Correct; MPICH
 * completes a send to self only once it is received, so a layer that waits
 * for its own message (the clock protocol's piggyback) before the send
 * would hang here.
 * mpivet: np=1 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, in[4] = {0}, out[4] = {1, 2, 3, 4}, back[4] = {0};
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Irecv(in, 4, MPI_INT, rank, 7, MPI_COMM_WORLD, &r);
	MPI_Send(out, 4, MPI_INT, rank, 7, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Irecv(in, 4, MPI_INT, rank, 8, MPI_COMM_WORLD, &r);
	MPI_Ssend(out, 4, MPI_INT, rank, 8, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Sendrecv(out, 4, MPI_INT, rank, 9, back, 4, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("sum %d\n", in[0] + in[3] + back[1] + back[2]);
	MPI_Finalize();
	return 0;
}
