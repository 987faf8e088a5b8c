/* Generalized active target: rank 1 exposes its window to rank 0 with
 * MPI_Win_post, and reads the bytes rank 0's MPI_Put writes before
 * MPI_Win_wait closes the exposure epoch (MPI 4.0 §12.5.2: the Put is
 * complete at the target only when MPI_Win_wait returns). Then rank 1
 * stores into the bytes rank 0's MPI_Get reads in the next exposure epoch,
 * before its MPI_Win_wait: the Get may return the old or the new value.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, *base, data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, got[4], seen = 0;
	MPI_Win win;
	MPI_Group world, peer;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(1024 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 1024; i++)
		base[i] = -i;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	int other = 1 - rank;
	MPI_Group_incl(world, 1, &other, &peer);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		MPI_Win_post(peer, 0, win);
		seen = base[516]; /* before MPI_Win_wait: the Put may not have landed */ // want "rma-race"
		MPI_Win_wait(win);
		MPI_Win_post(peer, 0, win);
		base[2] = 99; /* the bytes rank 0 gets, before MPI_Win_wait */ // want "rma-race"
		MPI_Win_wait(win);
	} else {
		MPI_Win_start(peer, 0, win);
		MPI_Put(data, 8, MPI_INT, 1, 512, 8, MPI_INT, win);
		MPI_Win_complete(win);
		MPI_Win_start(peer, 0, win);
		MPI_Get(got, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
		MPI_Win_complete(win);
	}
	printf("rank %d saw %d\n", rank, seen);
	MPI_Group_free(&peer);
	MPI_Group_free(&world);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
