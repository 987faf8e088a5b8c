/* MPI_IN_PLACE in every collective that allows it (MPI 4.0 §6.2.1), blocking
 * and nonblocking, with the send arguments it makes insignificant given as
 * nothing: a NULL count array and MPI_DATATYPE_NULL. Rank 0 prints a
 * checksum of every result; the output must be a native run's.
 * mpivet: np=3 verdict=ok sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>

#define N 16

static long check;

static void fill(int *b, int rank)
{
	for (int i = 0; i < N; i++)
		b[i] = rank * 100 + i;
}

static void add(const int *b)
{
	for (int i = 0; i < N; i++)
		check = check * 31 + b[i];
}

static void reductions(int rank, int size, MPI_Request *q)
{
	int b[N], c[N];
	int rc[8];
	for (int i = 0; i < size; i++)
		rc[i] = 2;
	fill(b, rank), MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Iallreduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), fill(c, rank);
	if (rank == 0)
		MPI_Reduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	else
		MPI_Reduce(b, NULL, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	add(b);
	if (rank == 1)
		MPI_Ireduce(MPI_IN_PLACE, c, N, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, q);
	else
		MPI_Ireduce(c, NULL, N, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, q);
	MPI_Wait(q, MPI_STATUS_IGNORE), add(c);
	fill(b, rank), MPI_Scan(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Iscan(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), MPI_Exscan(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank > 0)
		add(b);
	fill(b, rank), MPI_Iexscan(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE);
	if (rank > 0)
		add(b);
	fill(b, rank), MPI_Reduce_scatter(MPI_IN_PLACE, b, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Ireduce_scatter(MPI_IN_PLACE, b, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Ireduce_scatter_block(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
}

static void gathers(int rank, int size, MPI_Request *q)
{
	int b[N], counts[8], displs[8];
	for (int i = 0; i < size; i++)
		counts[i] = 2, displs[i] = 2 * i;
	/* the root's own block is in place; the others' receive side is unused */
	fill(b, rank);
	if (rank == 0)
		MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, 0, MPI_COMM_WORLD);
	else
		MPI_Gather(b, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
	add(b);
	fill(b, rank);
	if (rank == 2)
		MPI_Igatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, 2, MPI_COMM_WORLD, q);
	else
		MPI_Igatherv(b, 2, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, 2, MPI_COMM_WORLD, q);
	MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank);
	if (rank == 1)
		MPI_Iscatter(b, 2, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 1, MPI_COMM_WORLD, q);
	else
		MPI_Iscatter(NULL, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, 1, MPI_COMM_WORLD, q);
	MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank);
	if (rank == 0)
		MPI_Scatterv(b, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
	else
		MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, b, 2, MPI_INT, 0, MPI_COMM_WORLD);
	add(b);
	fill(b, rank), MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
}

static void alltoalls(int rank, int size, MPI_Request *q)
{
	int b[N], counts[8], displs[8], bytes[8];
	MPI_Datatype types[8];
	for (int i = 0; i < size; i++)
		counts[i] = 2, displs[i] = 2 * i, bytes[i] = 2 * i * (int)sizeof(int), types[i] = MPI_INT;
	fill(b, rank), MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, counts, displs, MPI_INT, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
	fill(b, rank), MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, b, counts, bytes, types, MPI_COMM_WORLD), add(b);
	fill(b, rank), MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, b, counts, bytes, types, MPI_COMM_WORLD, q), MPI_Wait(q, MPI_STATUS_IGNORE), add(b);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Request q;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	reductions(rank, size, &q);
	gathers(rank, size, &q);
	alltoalls(rank, size, &q);
	long all[8];
	MPI_Gather(&check, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (int i = 0; i < size; i++)
			printf("rank %d: %ld\n", i, all[i]);
	MPI_Finalize();
	return 0;
}
