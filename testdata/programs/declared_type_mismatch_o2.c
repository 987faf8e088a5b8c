/* Declared-type mismatches in an optimised build (-O2): a global array has
 * one address, and GCC keeps a stack array whose address a call takes in
 * memory at one offset from the frame's CFA, so both are found as at -O0.
 * A double array moved as MPI_INT and a global int array as MPI_FLOAT, both
 * sides alike. The correct calls say nothing: an int array as MPI_INT, and
 * arrays of three types in disjoint blocks of an inlined function, which
 * GCC lays in the same stack slot (each call is compared with the variable
 * whose block holds it).
 * mpivet: np=2 verdict=error cflags=-O2
 */
#include <mpi.h>

int table[16];

static void fill(void *p, int n)
{
	volatile char *c = p;
	for (int i = 0; i < n; i++)
		c[i] = 0;
}

static void blocks(int rank)
{
	{
		double a[4];
		fill(a, sizeof a);
		if (rank == 0)
			MPI_Send(a, 4, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(a, 4, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	{
		int b[8];
		fill(b, sizeof b);
		if (rank == 0)
			MPI_Send(b, 8, MPI_INT, 1, 4, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(b, 8, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	for (int k = 0; k < 2; k++) {
		float c[8];
		fill(c, sizeof c);
		if (rank == 0)
			MPI_Send(c, 8, MPI_FLOAT, 1, 5, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(c, 8, MPI_FLOAT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

int main(int argc, char **argv)
{
	int rank, good[4] = {1, 2, 3, 4};
	double samples[8] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(samples, 8, MPI_INT, 1, 0, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Send(table, 16, MPI_FLOAT, 1, 1, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Send(good, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(samples, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Recv(table, 16, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Recv(good, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	blocks(rank);
	MPI_Finalize();
	return good[0] + (int)samples[0] - 1;
}
