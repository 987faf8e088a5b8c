/* Heap memory freed too early: a send from a block already freed, and a
 * block freed while a send from it is pending. The layer keeps the
 * blocks freed a short while ago (a bounded quarantine) and asks the
 * buffer checker whether a block freed holds a pending buffer: both are
 * reported, with where the block was allocated (and freed).
 * free() itself writes into the block it frees: under MPICH, which copies
 * the message out of the pending buffer itself, the buffer checker has the
 * pages closed to writes and reports that write too (Open MPI lets its
 * peer read them, and leaves them open). heap_clean.c frees its blocks
 * after the operations completed.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int *keep = malloc(64 * sizeof(int)); /* the freed block is not given out again */
	int *x = calloc(64, sizeof(int));
	if (rank == 0) {
		free(x);
		MPI_Send(x, 64, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "freed-buffer"
	} else {
		MPI_Recv(keep, 64, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		free(x);
	}
	double *y = calloc(1000, sizeof(double));
	MPI_Request req;
	if (rank == 1) {
		MPI_Isend(y, 1000, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &req);
		free(y); // want "freed-buffer" want(mpich) "buffer-reuse"
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(y, 1000, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		free(y);
	}
	free(keep);
	MPI_Finalize();
	return 0;
}
