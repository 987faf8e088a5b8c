/* Collectives whose ranks give matching data in every way the standard
 * allows, none of which is a collective-mismatch:
 *   - a Bcast of 4 MPI_INT received as one contiguous type of 4 MPI_INT,
 *     and of 2 MPI_INT as 2 MPI_INT32_T
 *   - Gather and Scatter whose non-root receive/send arguments are garbage
 *     (they are not significant there), and in-place roots
 *   - Gatherv, Scatterv, Allgatherv and Alltoallv with uneven counts, in
 *     place too, and a vector type for a column
 *   - Reduce_scatter with per-rank counts, Reduce with MPI_IN_PLACE
 *   - the same user-defined operation on every rank, created twice
 *   - MPI_PACKED received as typed data, zero counts of different types
 * mpivet: np=3 verdict=ok
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void add(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int a[64] = {0}, b[64] = {0};
	MPI_Datatype four;
	MPI_Type_contiguous(4, MPI_INT, &four);
	MPI_Type_commit(&four);
	if (rank == 0)
		MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD);
	else
		MPI_Bcast(a, 1, four, 0, MPI_COMM_WORLD);
	MPI_Bcast(a, 2, rank == 1 ? MPI_INT32_T : MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Type_free(&four);

	/* rooted: the other side's arguments are not significant off the root */
	if (rank == 0)
		MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD);
	else
		MPI_Gather(a, 2, MPI_INT, NULL, 7, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
	if (rank == 1)
		MPI_Scatter(a, 3, MPI_INT, MPI_IN_PLACE, 3, MPI_INT, 1, MPI_COMM_WORLD);
	else
		MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, b, 3, MPI_INT, 1, MPI_COMM_WORLD);

	/* vector variants: rank i gives i + 1 ints */
	int counts[16], displs[16], total = 0;
	for (int i = 0; i < size; i++)
		counts[i] = i + 1, displs[i] = total, total += i + 1;
	MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 2, MPI_COMM_WORLD);
	if (rank == 2)
		MPI_Gatherv(MPI_IN_PLACE, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 2, MPI_COMM_WORLD);
	else
		MPI_Gatherv(a, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, 2, MPI_COMM_WORLD);
	MPI_Scatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Allgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
	/* Alltoallv: rank i sends j + 1 to rank j, receives i + 1 from each */
	int sc[16], sd[16], rc[16], rd[16];
	for (int j = 0; j < size; j++)
		sc[j] = j + 1, sd[j] = 4 * j, rc[j] = rank + 1, rd[j] = 4 * j;
	MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
	for (int j = 0; j < size; j++)
		rc[j] = 2;
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_INT, MPI_COMM_WORLD);

	/* a column of a 4 x 3 matrix against 4 contiguous doubles */
	double m[12] = {0}, col[4 * 16];
	MPI_Datatype column;
	MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &column);
	MPI_Type_commit(&column);
	MPI_Allgather(m, 1, column, col, 4, MPI_DOUBLE, MPI_COMM_WORLD);
	MPI_Type_free(&column);

	int rs[16];
	for (int i = 0; i < size; i++)
		rs[i] = i + 1;
	MPI_Reduce_scatter(a, b, rs, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Reduce(MPI_IN_PLACE, a, 5, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	else
		MPI_Reduce(a, NULL, 5, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

	for (int k = 0; k < 2; k++) {
		MPI_Op op;
		MPI_Op_create(add, 1, &op);
		MPI_Allreduce(a, b, 3, MPI_INT, op, MPI_COMM_WORLD);
		MPI_Op_free(&op);
	}

	/* packed data received as typed data */
	char packed[64];
	int pos = 0;
	if (rank == 0)
		MPI_Pack(a, 3, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
	MPI_Bcast(rank == 0 ? (void *)packed : (void *)b, rank == 0 ? pos : 3, rank == 0 ? MPI_PACKED : MPI_INT, 0, MPI_COMM_WORLD);
	/* nothing at all, in different types */
	MPI_Bcast(a, 0, rank == 0 ? MPI_INT : MPI_DOUBLE, 0, MPI_COMM_WORLD);

	/* nonblocking */
	MPI_Request r;
	MPI_Iallgather(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
