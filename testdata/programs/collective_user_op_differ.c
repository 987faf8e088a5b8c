/* Ranks that really pass different user functions to a reduction, in a
 * stripped position-independent executable: the functions are told apart
 * by their address in the executable, not by the address they happen to
 * have in each rank (that differs anyway), and the findings locate their
 * calls by module and offset.
 *   - MPI_COMM_WORLD: rank 0 reduces with its maximum, the others with their sum
 *   - a duplicate: the same function everywhere, created after other
 *     operations in rank 1 only (no finding)
 * mpivet: np=3 verdict=error strip=1
 */
#include <mpi.h>

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void max_ints(void *in, void *inout, int *len, MPI_Datatype *t)
{
	(void)t;
	for (int i = 0; i < *len; i++)
		if (((int *)in)[i] > ((int *)inout)[i])
			((int *)inout)[i] = ((int *)in)[i];
}

int main(int argc, char **argv)
{
	int rank, v, out;
	MPI_Op op, same;
	MPI_Comm dup;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	v = rank;

	MPI_Op_create(rank == 0 ? max_ints : add_ints, 1, &op);
	MPI_Allreduce(&v, &out, 1, MPI_INT, op, MPI_COMM_WORLD); // want "collective-mismatch"

	if (rank == 1) {
		MPI_Op spare;
		MPI_Op_create(max_ints, 1, &spare);
		MPI_Op_free(&spare);
	}
	MPI_Op_create(add_ints, 1, &same);
	MPI_Reduce(&v, &out, 1, MPI_INT, same, 0, dup);

	MPI_Op_free(&op);
	MPI_Op_free(&same);
	MPI_Comm_free(&dup);
	MPI_Finalize();
	return 0;
}
