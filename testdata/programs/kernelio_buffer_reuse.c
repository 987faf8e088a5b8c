/* System calls on pending buffers: the kernel's access on the program's
 * behalf is the program's. Rank 1 read(2)s into its pending receive
 * buffer, rank 0 write(2)s from its own, both before the MPI_Wait: buffer
 * reuse at the line of the system call, as a store or load there would be.
 * Rank 1's read(2) into other data on the buffer's first page is correct.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static struct {
		int other[16]; /* on the receive buffer's first page */
		int in[1024];
	} __attribute__((aligned(4096))) s;
	static int out[1024];
	int *in = s.in;
	int rank, fds[2];
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (pipe(fds) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < 1024; i++)
		out[i] = rank + i;
	if (write(fds[1], out, 128) != 128)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Irecv(in, 1024, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
	ssize_t n;
	if (rank == 1) {
		n = read(fds[0], s.other, 64);
		n += read(fds[0], &in[1008], 64); // want "buffer-reuse"
	} else
		n = write(fds[1], in, 64); // want "buffer-reuse"
	MPI_Send(out, 1024, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	printf("rank %d: %zd %d\n", rank, n, in[5]);
	MPI_Finalize();
	return 0;
}
