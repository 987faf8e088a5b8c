/* Collectives whose calls agree in name, root and operation but not in the
 * data the ranks give them (MPI 3.1 §5.1: the type signatures must match).
 * Each mismatch is on a communicator of its own, and each moves the same
 * number of bytes, so the MPI runs them without complaint.
 *   - Bcast: the root sends 4 MPI_INT, the others receive 2 MPI_2INT
 *   - Allgather: rank 0 sends 1 MPI_DOUBLE, the others 2 MPI_FLOAT
 *   - Gatherv: the root expects 3 ints from each rank, each sends 2
 *   - Allreduce: rank 0 reduces with one user function, the others another
 *   - Alltoall: a struct {int, double} against 2 x {double, int}
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

static void add(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void biggest(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		if (((int *)in)[i] > ((int *)inout)[i])
			((int *)inout)[i] = ((int *)in)[i];
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm c[5];
	for (int i = 0; i < 5; i++)
		MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);

	int ints[4] = {1, 2, 3, 4};
	if (rank == 0)
		MPI_Bcast(ints, 4, MPI_INT, 0, c[0]); // want "collective-mismatch"
	else
		MPI_Bcast(ints, 2, MPI_2INT, 0, c[0]); // want "collective-mismatch"

	double d[64];
	float f[128];
	if (rank == 0)
		MPI_Allgather(d, 1, MPI_DOUBLE, d + 8, 1, MPI_DOUBLE, c[1]); // want "collective-mismatch"
	else
		MPI_Allgather(f, 2, MPI_FLOAT, f + 8, 2, MPI_FLOAT, c[1]); // want "collective-mismatch"

	int *all = calloc(3 * size, sizeof(int)), *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
	for (int i = 0; i < size; i++)
		counts[i] = 3, displs[i] = 3 * i;
	MPI_Gatherv(ints, 2, MPI_INT, all, counts, displs, MPI_INT, 0, c[2]); // want "collective-mismatch"

	MPI_Op op;
	MPI_Op_create(rank == 0 ? add : biggest, 1, &op);
	int x = rank, y = 0;
	MPI_Allreduce(&x, &y, 1, MPI_INT, op, c[3]); // want "collective-mismatch"
	MPI_Op_free(&op);

	struct pair {
		int i;
		double d;
	} p[2 * 8];
	MPI_Datatype one, two, blocks[2] = {MPI_INT, MPI_DOUBLE}, rblocks[2] = {MPI_DOUBLE, MPI_INT};
	int lens[2] = {1, 1};
	MPI_Aint offs[2] = {0, 8};
	MPI_Type_create_struct(2, lens, offs, blocks, &one);
	MPI_Type_create_resized(one, 0, sizeof(struct pair), &two);
	MPI_Type_free(&one);
	MPI_Type_create_struct(2, lens, offs, rblocks, &one);
	MPI_Type_commit(&two);
	MPI_Type_commit(&one);
	MPI_Alltoall(p, 1, two, p + 8, 1, rank == 0 ? one : two, c[4]); // want "collective-mismatch"
	MPI_Type_free(&one);
	MPI_Type_free(&two);

	for (int i = 0; i < 5; i++)
		MPI_Comm_free(&c[i]);
	free(all);
	free(counts);
	free(displs);
	MPI_Finalize();
	return 0;
}
