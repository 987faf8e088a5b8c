/* The clean twin of deadlock_in_folded_loop.c: both ranks make the same
 * 500 identical exchanges, whose records the layer folds, and end; the
 * calls read back from the folded records hold no error.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, in = 0, out = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int peer = 1 - rank;
	for (int i = 0; i < 500; i++) {
		MPI_Request r[2];
		MPI_Irecv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
