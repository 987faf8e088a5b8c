/* A long run of small exchanges: ranks in a ring exchange one int each way
 * per iteration with Irecv/Isend/Waitall (5 logged calls per iteration),
 * and an Allreduce every 100 iterations, like the communication of a long
 * simulation with nothing to compute. Correct: no finding expected. Its
 * records grow with the iterations; mpivet's memory must not.
 * Usage: longrun [iterations]. Prints: RESULT iters=<n> sum=<checksum>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	long sum = 0;
	for (long it = 0; it < iters; it++) {
		int in[2], out[2] = {rank, (int)it};
		MPI_Request r[4];
		MPI_Irecv(&in[0], 1, MPI_INT, up, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&in[1], 1, MPI_INT, down, 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&out[0], 1, MPI_INT, down, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&out[1], 1, MPI_INT, up, 1, MPI_COMM_WORLD, &r[3]);
		MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
		sum += in[0] + in[1];
		if (it % 100 == 0) {
			long all;
			MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
			sum = all % 1000003;
		}
	}
	if (rank == 0)
		printf("RESULT iters=%ld sum=%ld\n", iters, sum);
	MPI_Finalize();
	return 0;
}
