/* A ring exchange completed with MPI_Waitsome: each of ITERS iterations
 * posts receives from both neighbours and sends to both, then completes
 * the four requests with a Waitsome loop. Correct; its nondeterminism is
 * the order in which Waitsome returns the requests, so it has a great
 * many interleavings (the memory test runs 10 and 100 of them).
 * Usage: waitsome_ring [ITERS]   (default 200)
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 200;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double in[2], out[2];
	for (int it = 0; it < iters; it++) {
		MPI_Request rq[4];
		int idx[4], n, done = 0;
		MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[1]);
		out[0] = out[1] = rank + it;
		MPI_Isend(&out[0], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[2]);
		MPI_Isend(&out[1], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[3]);
		while (done < 4) {
			MPI_Waitsome(4, rq, &n, idx, MPI_STATUSES_IGNORE);
			done += n;
		}
	}
	MPI_Finalize();
	return 0;
}
