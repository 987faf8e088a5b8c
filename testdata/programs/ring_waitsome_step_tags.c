/* A ring exchange completed with MPI_Waitsome whose messages are tagged
 * with the step they belong to (tag = 2 * step, 2 * step + 1), as
 * time-stepping codes tag their halos: 4 ranks, 60 steps. Every step posts
 * the same requests with other tags; the completion orders change nothing
 * the program does next, so the steps share their context (tags are
 * compared relative to each other) and the default run gives a complete
 * verdict in a few interleavings instead of one per Waitsome call. (Under
 * MPICH only: the contexts are the explorer's, the same for every MPI;
 * ring_waitsome.c runs under both.)
 * mpivet: np=4 verdict=ok atmost=12 mpi=mpich
 */
#include <mpi.h>
#include <stdio.h>

#define STEPS 60

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double mine[2], theirs[2], sum = 0;
	for (int step = 0; step < STEPS; step++) {
		MPI_Request r[4];
		int done = 0, n, idx[4];
		mine[0] = mine[1] = rank + step;
		MPI_Irecv(&theirs[0], 1, MPI_DOUBLE, left, 2 * step, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&theirs[1], 1, MPI_DOUBLE, right, 2 * step + 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&mine[0], 1, MPI_DOUBLE, right, 2 * step, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&mine[1], 1, MPI_DOUBLE, left, 2 * step + 1, MPI_COMM_WORLD, &r[3]);
		while (done < 4) {
			MPI_Waitsome(4, r, &n, idx, MPI_STATUSES_IGNORE);
			for (int j = 0; j < n; j++)
				if (idx[j] < 2)
					sum += theirs[idx[j]];
			done += n;
		}
	}
	double total;
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("total %g\n", total);
	MPI_Finalize();
	return 0;
}
