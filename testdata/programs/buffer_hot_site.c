/* A hot call site that errs every time: a loop of 100000 small exchanges
 * with nothing else to do, which the buffer checker cannot watch whole
 * within its cost budget (a fifth of the run). After the first operations
 * of each call site, it watches them in stretches; the write into the
 * pending receive buffer, made in every iteration, is caught in those, at
 * its line, and reported once. (100,000 round trips take seconds on an
 * idle machine, and ten times that when other runs share the cores:
 * hence the time limit.)
 * mpivet: np=2 verdict=error timeout=240s
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 100000

int main(int argc, char **argv)
{
	int rank, in[4] = {0}, out[4] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	long sum = 0;
	for (int it = 0; it < ITERS; it++) {
		MPI_Request r[2];
		MPI_Irecv(in, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]); // want "buffer-reuse"
		out[0] = it;
		MPI_Isend(out, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[1]);
		in[3] = -1; // want "buffer-reuse"
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE); // want "buffer-reuse"
		sum += in[0];
	}
	if (rank == 0)
		printf("%ld\n", sum);
	MPI_Finalize();
	return 0;
}
