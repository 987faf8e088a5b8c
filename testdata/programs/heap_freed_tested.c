/* A block freed while a send from inside it is pending, after an MPI_Test
 * that found the send unfinished: a Test that returns flag=0 completes
 * nothing, and the send is completed only by the Wait after the free (the
 * pattern of a solver that sends pieces of a work array up a tree, tests
 * each send once, frees the array and only then waits for the sends). The
 * message is past the eager limits of both MPIs and rank 1 posts its
 * receive after the barrier, which rank 0 enters after its Test: the Test
 * cannot complete the send. free() writes only at the block's start, before
 * the piece sent: no buffer-reuse under MPICH either. heap_clean_tested.c
 * frees after sends that MPI_Test, MPI_Testall and MPI_Testsome completed.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

enum { N = 12000, PIECE = 10000 }; /* 96,000 bytes: a block of the heap, not a mapping of its own */

int main(int argc, char **argv)
{
	int rank, flag = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *work = calloc(N, sizeof(double));
	MPI_Request req;
	if (rank == 0) {
		MPI_Isend(work + 1000, PIECE, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		free(work); // want "freed-buffer"
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Recv(work, PIECE, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		free(work);
	}
	MPI_Finalize();
	return 0;
}
