/* The correct twin of rma_target_load_fence.c, rma_target_load_pscw.c and
 * rma_target_store_get.c: the target computes on its own window during
 * exposure epochs, but never on the bytes a remote operation of the epoch
 * accesses. A halo ring (a block of N x N doubles per rank with a ghost row
 * above and below, the ghost rows on the same pages as interior rows):
 * between the fences the target updates its interior rows (rows 2 to N-1:
 * not the ghost rows the neighbours' Puts write, nor rows 1 and N, the
 * Puts' origin rows), and reads the ghost rows only after the closing
 * fence, which asserts MPI_MODE_NOSUCCEED: no epoch is open while it reads
 * them (with a plain fence the next epoch would be open, and the next
 * iteration's Puts in it would race with those reads: mpivet found that
 * in this very program's first version). The opening fence asserts
 * MPI_MODE_NOPRECEDE. An epoch with MPI_MODE_NOPUT in which the neighbours
 * get rows the target reads (two reads). A PSCW epoch in which the target
 * reads its interior before MPI_Win_wait and the Put's bytes after it.
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

int main(int argc, char **argv)
{
	int rank, size;
	double *u, got[N], sum = 0;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int up = (rank + size - 1) % size, down = (rank + 1) % size;
	MPI_Win_allocate((MPI_Aint)(N + 2) * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &u, &win);
	for (size_t i = 0; i < (size_t)(N + 2) * N; i++)
		u[i] = rank;
	for (int it = 0; it < 4; it++) {
		MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
		MPI_Put(&u[N], N, MPI_DOUBLE, up, (MPI_Aint)(N + 1) * N, N, MPI_DOUBLE, win);
		MPI_Put(&u[(size_t)N * N], N, MPI_DOUBLE, down, 0, N, MPI_DOUBLE, win);
		for (int i = 2; i < N; i++) /* the interior, on the ghost rows' pages too */
			for (int j = 0; j < N; j++)
				u[(size_t)i * N + j] = 0.5 * u[(size_t)i * N + j] + 0.25;
		MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
		for (int j = 0; j < N; j++) /* the ghost rows, after the closing fence */
			sum += u[j] + u[(size_t)(N + 1) * N + j];
	}
	/* gets only: the target's loads of the bytes they read are no race */
	MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, win);
	MPI_Get(got, N, MPI_DOUBLE, up, N, N, MPI_DOUBLE, win);
	for (int j = 0; j < N; j++)
		sum += u[N + j];
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	/* PSCW: rank 0 puts into rank 1's first ghost row */
	MPI_Group world, peer;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	int other = rank == 0 ? 1 : 0;
	MPI_Group_incl(world, 1, &other, &peer);
	if (rank == 1) {
		MPI_Win_post(peer, 0, win);
		for (int j = 0; j < N; j++)
			sum += u[2 * N + j];
		MPI_Win_wait(win);
		sum += u[5];
	} else if (rank == 0) {
		MPI_Win_start(peer, 0, win);
		MPI_Put(got, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&peer);
	MPI_Group_free(&world);
	printf("rank %d: %g\n", rank, sum);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
