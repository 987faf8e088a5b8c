/* The correct twin of rma_target_store_pscw.c: rank 1 stores into the
 * bytes rank 0 puts to only after MPI_Win_wait has closed the exposure
 * epoch (and into other bytes during it), over three PSCW epochs; the
 * values are checked.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, *base, data[4], peer;
	MPI_Win win;
	MPI_Group world, g;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	peer = 1 - rank;
	MPI_Group_incl(world, 1, &peer, &g);
	MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int i = 0; i < 16; i++)
		base[i] = 0;
	for (int it = 0; it < 3; it++) {
		if (rank == 1) {
			MPI_Win_post(g, 0, win);
			base[12] = it; /* other bytes */
			MPI_Win_wait(win);
			if (base[0] != it || base[3] != it + 3) {
				fprintf(stderr, "wrong values\n");
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			base[1] = -1; /* after the epoch */
		} else {
			for (int i = 0; i < 4; i++)
				data[i] = it + i;
			MPI_Win_start(g, 0, win);
			MPI_Put(data, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
			MPI_Win_complete(win);
		}
	}
	MPI_Group_free(&g);
	MPI_Group_free(&world);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
