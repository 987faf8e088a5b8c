/* Stack buffers that hold what each call reads or writes, though some look
 * close: a receive of exactly the array's length, a send from the middle
 * of an array up to its last element, a buffer that is one member of a
 * structure followed by others (the call stays in the member), a buffer
 * inside a structure given from its first member for the whole structure
 * as bytes, a receive into a variable-length array (its length is not in
 * the debug information: nothing is said), counts of 0 (from one past the
 * array's end: no byte is touched), and an array
 * passed down to a function through a pointer.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

static void pass_down(int *p, int n, int rank)
{
	if (rank == 0)
		MPI_Send(p, n, MPI_INT, 1, 5, MPI_COMM_WORLD);
	else
		MPI_Recv(p, n, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, n = 3;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int a[8] = {0};
	struct {
		int head[2];
		double tail[2];
	} s = {{rank, rank}, {0, 0}};
	double sum[2] = {0}, mine[2] = {rank, rank};
	int vla[n];
	for (int i = 0; i < n; i++)
		vla[i] = rank;
	if (rank == 0) {
		MPI_Send(a, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Send(&a[5], 3, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Send(s.head, 2, MPI_INT, 1, 2, MPI_COMM_WORLD);
		MPI_Send(&s, (int)sizeof s, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
		MPI_Send(vla, n, MPI_INT, 1, 4, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(a, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&a[5], 3, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(s.head, 2, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&s, (int)sizeof s, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(vla, n, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	pass_down(a, 8, rank);
	MPI_Sendrecv(a, 0, MPI_INT, 1 - rank, 6, &a[8], 0, MPI_INT, 1 - rank, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	printf("%d %g\n", a[0] + vla[0], sum[0] + s.tail[0]);
	MPI_Finalize();
	return 0;
}
