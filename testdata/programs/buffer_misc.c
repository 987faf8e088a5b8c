/* Other ways to touch pending buffers: memcpy into a pending receive buffer
 * (reported at the line that calls memcpy), two pending receives into the
 * same memory, a persistent send whose buffer is written after MPI_Start,
 * and reading the result of a nonblocking reduction before its Wait.
 * Under --buffers=precise, so that the lines do not depend on the load of
 * the machine (by default the single-step budget is a share of the run).
 * mpivet: np=2 verdict=error flags=--buffers=precise
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, peer;
	int a[16] = {0}, b[16] = {0}, src[16] = {1};
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;

	MPI_Irecv(a, 16, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
	memcpy(a, src, sizeof a); // want "buffer-reuse"
	MPI_Send(src, 16, MPI_INT, peer, 0, MPI_COMM_WORLD);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE); // want "buffer-reuse"

	MPI_Irecv(b, 16, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
	MPI_Irecv(b + 8, 8, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[1]); // want "buffer-reuse"
	MPI_Send(src, 16, MPI_INT, peer, 1, MPI_COMM_WORLD);
	MPI_Send(src, 8, MPI_INT, peer, 2, MPI_COMM_WORLD);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

	MPI_Request p;
	MPI_Send_init(a, 16, MPI_INT, peer, 3, MPI_COMM_WORLD, &p); // want "buffer-reuse"
	MPI_Start(&p); // want "buffer-reuse"
	a[3] = 7; // want "buffer-reuse"
	MPI_Recv(b, 16, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Wait(&p, MPI_STATUS_IGNORE); // want "buffer-reuse"
	MPI_Request_free(&p);

	int x = rank, sum = 0, seen;
	MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
	seen = *(volatile int *)&sum; // want "buffer-reuse"
	MPI_Wait(&r[0], MPI_STATUS_IGNORE); // want "buffer-reuse"
	printf("rank %d: %d %d %d\n", rank, a[0], b[0], seen + sum);
	MPI_Finalize();
	return 0;
}
