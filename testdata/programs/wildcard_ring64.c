/* 64 ranks, wildcard-heavy: in each of three rounds every rank receives its
 * two neighbours' messages with MPI_ANY_SOURCE (either order), then an
 * Allreduce; finally rank 0 collects a value from everyone with wildcard
 * receives. Far too many interleavings to cover: the test runs the first
 * three the explorer picks, at 64 ranks, oversubscribed (so the verdict is
 * incomplete).
 * mpivet: np=64 mpi=openmpi verdict=incomplete interleavings=3 flags=--max-interleavings=3
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	for (int round = 0; round < 3; round++) {
		int in[2], out = rank * 100 + round, sum = 0;
		MPI_Request r[4];
		MPI_Status st[4];
		MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &r[1]);
		MPI_Isend(&out, 1, MPI_INT, left, round, MPI_COMM_WORLD, &r[2]);
		MPI_Isend(&out, 1, MPI_INT, right, round, MPI_COMM_WORLD, &r[3]);
		MPI_Waitall(4, r, st);
		for (int i = 0; i < 2; i++)
			if (in[i] != st[i].MPI_SOURCE * 100 + round) {
				fprintf(stderr, "rank %d: wrong value %d from %d\n", rank, in[i], st[i].MPI_SOURCE);
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		MPI_Allreduce(&in[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
	if (rank == 0) {
		for (int i = 1; i < size; i++) {
			int v;
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	} else
		MPI_Send(&rank, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
