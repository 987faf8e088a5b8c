/* A ring with the MPI 4.0 nonblocking send-receive: each rank passes a value
 * to its right neighbour and takes its left one's with MPI_Isendrecv, then
 * shifts a second value in place with MPI_Isendrecv_replace, computing
 * between start and wait on buffers the requests do not use. Requests
 * completed, buffers untouched while pending: no finding. (Open MPI 4.1 has
 * no MPI_Isendrecv.)
 * mpivet: np=3 verdict=ok mpi=mpich
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, out, in = -1, shift, other = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	for (int i = 0; i < 3; i++) {
		out = 10 * rank + i;
		MPI_Isendrecv(&out, 1, MPI_INT, right, i, &in, 1, MPI_INT, left, i, MPI_COMM_WORLD, &r);
		other += i;
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		shift = in;
		MPI_Isendrecv_replace(&shift, 1, MPI_INT, right, 100 + i, left, 100 + i, MPI_COMM_WORLD, &r);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		if (in != 10 * left + i || shift != 10 * ((left + size - 1) % size) + i)
			printf("rank %d round %d: got %d and %d\n", rank, i, in, shift);
	}
	if (rank == 0)
		printf("done %d\n", other);
	MPI_Finalize();
	return 0;
}
