/* The MPI 4.0 large-count forms of point-to-point, collective, datatype and
 * one-sided calls, used correctly: two wildcard MPI_Recv_c from ranks 1 and
 * 2 (either order is fine: the sum is checked), MPI_Isend_c/MPI_Irecv_c, a
 * ring MPI_Sendrecv_c, MPI_Bcast_c, MPI_Allreduce_c, MPI_Gather_c,
 * MPI_Ibcast_c, a datatype made by MPI_Type_vector_c and freed, and a
 * window made by MPI_Win_create_c with MPI_Put_c and MPI_Get_c to distinct
 * ints in one fence epoch, then MPI_Accumulate_c. Both matches of the
 * wildcard are explored; every interleaving is correct.
 * mpivet: np=3 verdict=ok mpi=mpich sameoutput=1 interleavings=2
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "wrong: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
}

int main(int argc, char **argv)
{
	int rank, size, x = 0, y = 0, sum = 0, all[3] = {0}, v[4] = {0}, w[16] = {0}, got = 0;
	MPI_Count n = 1;
	MPI_Request r[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	if (rank == 0) {
		MPI_Recv_c(&x, n, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv_c(&y, n, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		expect(x + y == 3, "wildcard sum");
	} else {
		MPI_Send_c(&rank, n, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}

	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Irecv_c(&x, n, MPI_INT, left, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Isend_c(&rank, n, MPI_INT, right, 2, MPI_COMM_WORLD, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	expect(x == left, "ring Isend_c/Irecv_c");
	MPI_Sendrecv_c(&rank, n, MPI_INT, right, 3, &y, n, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(y == left, "ring Sendrecv_c");

	x = rank == 0 ? 42 : 0;
	MPI_Bcast_c(&x, n, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Allreduce_c(&rank, &sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Gather_c(&rank, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD);
	expect(x == 42 && sum == size * (size - 1) / 2, "Bcast_c, Allreduce_c");
	y = rank == 0 ? 7 : 0;
	MPI_Ibcast_c(&y, n, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	expect(y == 7, "Ibcast_c");

	MPI_Datatype every_other;
	MPI_Type_vector_c(2, 1, 2, MPI_INT, &every_other);
	MPI_Type_commit(&every_other);
	MPI_Win win;
	MPI_Win_create_c(w, sizeof w, (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	v[0] = v[1] = 10 + rank;
	if (rank > 0)
		MPI_Put_c(v, 2, MPI_INT, 0, 4 * rank, 1, every_other, win);
	if (rank == 1)
		MPI_Get_c(&got, 1, MPI_INT, 2, 15, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Accumulate_c(&rank, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Type_free(&every_other);
	if (rank == 0) {
		expect(w[4] == 11 && w[6] == 11 && w[8] == 12 && w[10] == 12 && w[1] == 3, "Put_c, Accumulate_c");
		printf("gathered %d %d %d, sum %d\n", all[0], all[1], all[2], sum);
	}
	MPI_Finalize();
	return 0;
}
