/* Buffers on the stack that a call reads or writes past their end, found
 * from the program's debug information without recompiling it: a receive
 * of up to 8 ints into a local array of 4 (the message holds 4: the call
 * is erroneous, the run goes on as if nothing happened), and a send of 6
 * ints from the middle of a local array, passed down to a function through
 * a pointer. Each is found before the MPI sees the call.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

static void send_tail(int *p)
{
	MPI_Send(p, 6, MPI_INT, 1, 1, MPI_COMM_WORLD); // want "buffer-overrun"
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct {
		int small[4];
		int guard[8];
	} r = {{0}, {0}};
	if (rank == 0) {
		int src[4] = {1, 2, 3, 4};
		MPI_Send(src, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
		int part[8] = {0};
		send_tail(&part[4]);
	} else if (rank == 1) {
		int small[4];
		MPI_Recv(small, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "buffer-overrun"
		MPI_Recv(r.guard, 6, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("%d\n", small[0] + r.small[0]);
	}
	MPI_Finalize();
	return 0;
}
