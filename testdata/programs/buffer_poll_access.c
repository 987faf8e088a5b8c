/* Accesses to small pending buffers from inside polling loops. Polls that
 * find nothing run with the pending pages closed (the fast path of polls):
 * the read of a pending receive buffer and the write of a pending send
 * buffer between two such polls are still reported at their lines; the
 * message that arrives during such a poll is delivered into its closed
 * page, and the pages are closed again after that poll, whether it found
 * something or not (the second read: the message arrives in an Iprobe).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, flag = 0, token = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* buffers of their own pages, as a program's arrays mostly are */
	int *buf = aligned_alloc(4096, 4096), *next = aligned_alloc(4096, 4096);
	long sum = 0;
	MPI_Request h;
	if (rank == 0) {
		for (int i = 0; i < 16; i++)
			buf[i] = i;
		MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Isend(buf, 16, MPI_INT, 1, 1, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		for (int i = 0; i < 2000; i++)
			MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		buf[0] = 7; // want "buffer-reuse"
		MPI_Wait(&h, MPI_STATUS_IGNORE); // want "buffer-reuse"
		MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, 16, MPI_INT, 1, 4, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Irecv(buf, 16, MPI_INT, 0, 1, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		for (int i = 0; i < 2000; i++)
			MPI_Test(&h, &flag, MPI_STATUS_IGNORE);
		sum += buf[3]; // want "buffer-reuse"
		MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		while (!flag)
			MPI_Test(&h, &flag, MPI_STATUS_IGNORE); // want "buffer-reuse"
		MPI_Irecv(next, 16, MPI_INT, 0, 4, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		/* the message arrives in one of these polls, which find nothing */
		for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 0.2;)
			MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		sum += next[5]; // want "buffer-reuse"
		MPI_Wait(&h, MPI_STATUS_IGNORE); // want "buffer-reuse"
		for (int i = 0; i < 16; i++)
			sum += buf[i] != i;
	}
	printf("rank %d: %ld\n", rank, sum);
	free(buf);
	free(next);
	MPI_Finalize();
	return 0;
}
