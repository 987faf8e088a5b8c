/* A ring exchange completed with MPI_Waitsome, as stencil and FDTD codes
 * exchange their boundaries: each of 4 ranks posts receives from both
 * neighbours and sends to both, then completes the four requests with a
 * Waitsome loop, 200 times. Which requests a Waitsome returns first is
 * nondeterministic, but every receive names its source: the completion
 * orders change nothing the program does next, so the default run replays
 * one other order per call site and context, finds the same calls, and
 * leaves the others out as equivalent: a complete verdict in a few
 * interleavings instead of one per Waitsome call.
 * mpivet: np=4 verdict=ok atmost=12
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 200

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double mine[2], theirs[2], sum = 0;
	for (int it = 0; it < ITERS; it++) {
		MPI_Request r[4];
		int done = 0, n, idx[4];
		mine[0] = mine[1] = rank + it;
		MPI_Irecv(&theirs[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&theirs[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&mine[0], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&mine[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
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
