/* A read of a pending receive buffer on the page of a pending small send.
 * A message below the shared-memory transport's eager limit is copied by
 * the sender in its own calls, never by the peer's kernel, so the buffer
 * checker keeps the page closed and catches the read. (Were the transport's
 * single-copy threshold unknown, every send could be read by a peer's
 * kernel, the page would be kept readable, and the read would go unseen.)
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

static struct {
	double recv[4];
	double send[4];
} cell __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	for (int i = 0; i < 4; i++)
		cell.send[i] = rank + i;
	MPI_Request r[2];
	MPI_Irecv(cell.recv, 4, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
	MPI_Isend(cell.send, 4, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
	double seen = *(volatile double *)&cell.recv[1]; // want "buffer-reuse"
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE); // want "buffer-reuse"
	if (rank == 0)
		printf("%g %g\n", seen, cell.recv[1]);
	MPI_Finalize();
	return 0;
}
