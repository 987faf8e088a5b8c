/* Nonblocking neighbourhood collectives are nonblocking operations like any
 * other: their buffers may not be touched before the Wait. On a periodic
 * ring, every rank writes the send buffer of an MPI_Ineighbor_alltoall and
 * reads the receive buffer of an MPI_Ineighbor_allgather while they are
 * pending.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, dims[1] = {0}, periods[1] = {1};
	int out[2] = {1, 2}, in[2] = {0, 0}, mine = 7, theirs[2] = {0, 0}, a = 0;
	MPI_Comm ring;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 1, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Comm_rank(ring, &rank);
	out[0] = out[1] = rank;
	MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring, &r[0]); // want "buffer-reuse"
	*(volatile int *)&out[1] = 5; // want "buffer-reuse"
	MPI_Ineighbor_allgather(&mine, 1, MPI_INT, theirs, 1, MPI_INT, ring, &r[1]); // want "buffer-reuse"
	a = *(volatile int *)&theirs[0]; // want "buffer-reuse"
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	printf("rank %d: %d %d %d %d %d\n", rank, in[0], in[1], theirs[0], theirs[1], a);
	MPI_Comm_free(&ring);
	MPI_Finalize();
	return 0;
}
