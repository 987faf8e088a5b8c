/* Mismatched PSCW groups (3 ranks): rank 0's MPI_Win_start names ranks 1
 * and 2 as targets, but only rank 1's MPI_Win_post names rank 0; rank 2
 * posts to nobody. Rank 0 waits for a post that never comes, rank 1 for
 * its completion: the run hangs (deadlock), and the unanswered start is
 * named.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, buf[4] = {0}, v = 1, zero = 0;
	MPI_Win win;
	MPI_Group world, targets, origin;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	int two[2] = {1, 2};
	MPI_Group_incl(world, 2, two, &targets);
	MPI_Group_incl(world, 1, &zero, &origin);
	if (rank == 0) {
		MPI_Win_start(targets, 0, win); // want "rma-epoch" "deadlock"
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
		MPI_Win_complete(win);
	} else if (rank == 1) {
		MPI_Win_post(origin, 0, win);
		MPI_Win_wait(win);
	} else {
		MPI_Win_post(MPI_GROUP_EMPTY, 0, win);
		MPI_Win_wait(win);
	}
	MPI_Group_free(&world);
	MPI_Group_free(&targets);
	MPI_Group_free(&origin);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
