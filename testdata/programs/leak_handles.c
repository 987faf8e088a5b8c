/* Communicators, groups, user ops, info objects and error handlers that are
 * created and never freed; a leak inside a loop is one finding with a count.
 * mpivet: np=3 verdict=error
 */
#include <mpi.h>

static void mysum(void *in, void *inout, int *len, MPI_Datatype *t)
{
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void handler(MPI_Comm *c, int *e, ...) {}

int main(int argc, char **argv)
{
	int rank, x = 1, y;
	MPI_Comm dup, split, cart;
	MPI_Group world, first;
	MPI_Op op;
	MPI_Info info;
	MPI_Errhandler eh;
	MPI_Datatype t;
	int dims[1] = {0}, periods[1] = {1}, zero = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup); // want "resource-leak"
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split); // want "resource-leak"
	MPI_Dims_create(3, 1, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart); // want "resource-leak"
	MPI_Comm_group(MPI_COMM_WORLD, &world); // want "resource-leak"
	MPI_Group_incl(world, 1, &zero, &first); // want "resource-leak"
	MPI_Op_create(mysum, 1, &op); // want "resource-leak"
	MPI_Allreduce(&x, &y, 1, MPI_INT, op, dup);
	MPI_Info_create(&info); // want "resource-leak"
	MPI_Comm_create_errhandler(handler, &eh); // want "resource-leak"
	for (int i = 0; i < 10; i++) {
		MPI_Type_vector(2, 1, 2, MPI_INT, &t); // want "resource-leak"
		MPI_Type_commit(&t);
	}
	MPI_Finalize();
	return 0;
}
