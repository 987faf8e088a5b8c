/* Rooted collectives called by every member, with point-to-point messages
 * around them in an order that is safe whether or not the collectives
 * synchronise: the root sends after its MPI_Bcast and rank 1 receives after
 * its own; a Reduce and a Gather to different roots, a Scatter, and the
 * same on a duplicate communicator called by all of its members. Nothing to
 * report, and the run with every blocking collective synchronising (the
 * zero-buffering check) ends too.
 * mpivet: np=3 verdict=ok flags=--buffering-check=run
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, x = 5, y = 0, sum = 0, all[3] = {0}, mine = 0;
	MPI_Comm dup;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	else if (rank == 1)
		MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
	MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Scatter(all, 1, MPI_INT, &mine, 1, MPI_INT, 1, dup);
	MPI_Bcast(&sum, 1, MPI_INT, 2, dup);
	MPI_Comm_free(&dup);
	printf("rank %d: x=%d y=%d sum=%d mine=%d\n", rank, x, y, sum, mine);
	MPI_Finalize();
	return 0;
}
