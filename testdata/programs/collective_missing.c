/* Rooted collectives that some members of a communicator call and the
 * others never do. The root broadcasts on MPI_COMM_WORLD and the others
 * never join; on a duplicate, ranks 1 and 2 gather to root 0, which never
 * calls MPI_Gather. Both MPIs let the callers of a small Bcast or Gather
 * return at once, so the run ends normally (and the zero-buffering run,
 * where collectives synchronise, deadlocks for that reason only):
 * collective-missing names the callers and the members that reached
 * MPI_Finalize without calling.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, x = 0, part[3] = {0};
	MPI_Comm dup;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	if (rank == 0)
		x = 42;
	if (rank == 0)
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); // want "collective-missing"
	if (rank != 0)
		MPI_Gather(&rank, 1, MPI_INT, part, 1, MPI_INT, 0, dup); // want "collective-missing"
	printf("rank %d: x=%d\n", rank, x);
	MPI_Comm_free(&dup);
	MPI_Finalize(); // want "collective-missing"
	return 0;
}
