/* Ping-pong latency between ranks 0 and 1 (other ranks idle in a barrier).
 * Usage: pingpong [bytes] [iterations]. Prints: RESULT latency_us=<half round trip>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, bytes = argc > 1 ? atoi(argv[1]) : 8, iters = argc > 2 ? atoi(argv[2]) : 100000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char *buf = calloc(bytes > 0 ? bytes : 1, 1);
	int warm = iters / 10;
	double t0 = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; i < warm + iters; i++) {
		if (i == warm) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	double t = MPI_Wtime() - t0;
	if (rank == 0)
		printf("RESULT latency_us=%.4f\n", t / iters / 2 * 1e6);
	free(buf);
	MPI_Finalize();
	return 0;
}
