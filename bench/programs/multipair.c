/* Multi-pair latency (after the OSU multi-pair latency test): rank i of the
 * first half ping-pongs 4-byte messages with rank i + size/2, all pairs at
 * once. Usage: multipair [iterations]. Prints: RESULT latency_us=<mean half
 * round trip over the pairs>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int half = size / 2, peer = rank < half ? rank + half : rank - half;
	char buf[4] = {0};
	int warm = iters / 10;
	double t0 = 0;
	for (int i = 0; i < warm + iters; i++) {
		if (i == warm) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank < half) {
			MPI_Send(buf, 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (peer < half) {
			MPI_Recv(buf, 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
		}
	}
	double t = (MPI_Wtime() - t0) / iters / 2 * 1e6, sum = 0;
	MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("RESULT latency_us=%.4f\n", sum / size);
	MPI_Finalize();
	return 0;
}
