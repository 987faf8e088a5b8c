/* Loops over a pending receive buffer (the Wait comes too late). Each
 * access faults; after a few from one instruction in one window, mpivet
 * stops single-stepping them: the read is reported at its line once, and
 * the page stays open until the next MPI call, where the bytes of the
 * pending buffer are compared. So the loop that then writes the buffer is
 * reported as a write between the two MPI calls around it.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(int argc, char **argv)
{
	int rank, ack = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *in = calloc(N, sizeof *in), s = 0;
	if (rank == 0) {
		MPI_Request r;
		MPI_Irecv(in, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); // want "buffer-reuse"
		for (int rep = 0; rep < 200; rep++)
			for (int i = 0; i < N; i++)
				s += in[i]; // want "buffer-reuse"
		for (int i = 0; i < N; i++)
			in[i] = s + i + 1;
		MPI_Send(&ack, 1, MPI_INT, 1, 1, MPI_COMM_WORLD); // want "buffer-reuse"
		MPI_Wait(&r, MPI_STATUS_IGNORE); // want "buffer-reuse"
	} else if (rank == 1) {
		for (int i = 0; i < N; i++)
			in[i] = i;
		MPI_Recv(&ack, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(in, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%g %g\n", s, in[N - 1]);
	free(in);
	MPI_Finalize();
	return 0;
}
