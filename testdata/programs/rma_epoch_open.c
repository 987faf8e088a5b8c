/* Epochs left open (2 ranks): rank 0 frees a window while it still holds
 * a lock on rank 1 (MPI_ERRORS_RETURN on it: the MPIs refuse), and opens an
 * MPI_Win_lock_all epoch on a second window that it never closes, a window
 * no rank frees (resource-leak). MPICH refuses the free, and rank 1 waits
 * in it for rank 0 forever (deadlock).
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, a[4] = {0}, b[4] = {0}, v = 1;
	MPI_Win wa, wb;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(a, sizeof a, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wa);
	MPI_Win_create(b, sizeof b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wb); // want "resource-leak"
	MPI_Win_set_errhandler(wa, MPI_ERRORS_RETURN);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, wa); // want "rma-epoch"
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, wa);
		MPI_Win_lock_all(0, wb); // want "rma-epoch"
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, wb);
		MPI_Win_flush_all(wb);
	}
	MPI_Win_free(&wa); // want "rma-epoch" want(mpich) "mpi-error" "deadlock"
	MPI_Finalize(); // want "resource-leak" "rma-epoch"
	return 0;
}
