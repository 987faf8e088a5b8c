/* Buffers sent and received with a datatype other than their declared
 * type, on both sides alike: the type signatures match each other, so only
 * the program's debug information shows the errors. A global int array
 * moved as MPI_DOUBLE, a stack double array as MPI_INT, stack ints as
 * MPI_LONG, a structure's int member as MPI_FLOAT, a Bcast of a global
 * float array as MPI_INT, and a column of a double matrix as a vector of
 * MPI_INT (a derived datatype over a variable of one basic type); and a
 * long array passed down to a function that moves it as MPI_INT (the
 * caller's local variable), through which an int array moved as MPI_INT
 * says nothing.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int counts[8];
float weights[4];

struct particle {
	double x, y;
	int id;
};

static void relay(int rank, void *buf, int n, MPI_Datatype t, int tag)
{
	if (rank == 0)
		MPI_Send(buf, n, t, 1, tag, MPI_COMM_WORLD); // want "type-mismatch"
	else if (rank == 1)
		MPI_Recv(buf, n, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
}

int main(int argc, char **argv)
{
	int rank;
	double field[6] = {0};
	int ids[4] = {0};
	struct particle p = {0};
	double grid[4][4] = {{0}};
	long stamps[3] = {0};
	MPI_Datatype column;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_vector(4, 2, 8, MPI_INT, &column);
	MPI_Type_commit(&column);
	if (rank == 0) {
		MPI_Send(counts, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Send(field, 6, MPI_INT, 1, 1, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Send(ids, 2, MPI_LONG, 1, 2, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Send(&p.id, 1, MPI_FLOAT, 1, 3, MPI_COMM_WORLD); // want "type-mismatch"
	} else if (rank == 1) {
		MPI_Recv(counts, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Recv(field, 6, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Recv(ids, 2, MPI_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Recv(&p.id, 1, MPI_FLOAT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
	}
	MPI_Bcast(weights, 4, MPI_INT, 0, MPI_COMM_WORLD); // want "type-mismatch"
	MPI_Bcast(&grid[0][1], 1, column, 0, MPI_COMM_WORLD); // want "type-mismatch"
	MPI_Type_free(&column);
	relay(rank, stamps, 6, MPI_INT, 5);
	relay(rank, ids, 4, MPI_INT, 6);
	MPI_Finalize();
	return 0;
}
