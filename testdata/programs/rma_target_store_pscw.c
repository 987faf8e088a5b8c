/* The target's own store into a PSCW exposure epoch's Put bytes: rank 1
 * exposes its window to ranks 0 and 2 (MPI_Win_post), rank 0 puts 4 ints
 * at its start, rank 2 puts into other bytes; the origins then tell rank 1
 * by message that they have issued their Puts (which does not complete
 * them), and rank 1 stores into one of rank 0's ints before MPI_Win_wait:
 * a race (MPI 4.0 §12.7), found by value when the wait returns. Its store
 * into bytes nobody puts to is fine.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, *base, data[4] = {1, 2, 3, 4}, other[2] = {7, 8}, one = 1, peer;
	MPI_Win win;
	MPI_Group world, g;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 16; i++)
		base[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		int origins[2] = {0, 2};
		MPI_Group_incl(world, 2, origins, &g);
		MPI_Win_post(g, 0, win);
		MPI_Recv(&one, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&one, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		base[1] = -1; /* the race */
		base[12] = 5; /* fine */
		MPI_Win_wait(win);
	} else {
		peer = 1;
		MPI_Group_incl(world, 1, &peer, &g);
		MPI_Win_start(g, 0, win);
		if (rank == 0)
			MPI_Put(data, 4, MPI_INT, 1, 0, 4, MPI_INT, win); // want "rma-race"
		else
			MPI_Put(other, 2, MPI_INT, 1, 8, 2, MPI_INT, win);
		MPI_Send(&one, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&g);
	MPI_Group_free(&world);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
