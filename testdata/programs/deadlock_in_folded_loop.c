/* A loop of identical exchanges between two ranks, whose records the
 * layer folds (layer/src/record/fold.c): rank 1 makes one iteration fewer
 * than rank 0 and calls MPI_Finalize, so rank 0 waits for good in the
 * MPI_Waitall of its last iteration, a call the same as those folded
 * before it: the wait state must read it, and the requests it waits for,
 * from the repetition the log holds unfinished.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, in = 0, out = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank, n = rank == 0 ? 500 : 499;
	for (int i = 0; i < n; i++) {
		MPI_Request r[2];
		MPI_Irecv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE); // want "deadlock"
	}
	MPI_Finalize();
	return 0;
}
