/* Blocks freed after the sends from inside them were completed by a
 * successful MPI_Test, MPI_Testall and MPI_Testsome, each polled until it
 * says so (rank 1 posts its receives after the barrier, so the first polls
 * find the sends unfinished). The twin of heap_freed_tested.c: no finding.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdlib.h>

enum { N = 12000, PIECE = 10000 };

int main(int argc, char **argv)
{
	int rank, flag = 0, done = 0, idx[1];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *w[3];
	for (int i = 0; i < 3; i++)
		w[i] = calloc(N, sizeof(double));
	MPI_Request req[3];
	if (rank == 0) {
		for (int i = 0; i < 3; i++)
			MPI_Isend(w[i] + 1000, PIECE, MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &req[i]);
		MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
		while (!flag)
			MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
		free(w[0]);
		for (flag = 0; !flag;)
			MPI_Testall(1, &req[1], &flag, MPI_STATUSES_IGNORE);
		free(w[1]);
		while (!done)
			MPI_Testsome(1, &req[2], &done, idx, MPI_STATUSES_IGNORE);
		free(w[2]);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 0; i < 3; i++) {
			MPI_Recv(w[i], PIECE, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			free(w[i]);
		}
	}
	MPI_Finalize();
	return 0;
}
