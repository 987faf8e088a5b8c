/* Declared-type mismatches in an optimised build (-O2): a global array has
 * one address, and GCC keeps a stack array whose address a call takes in
 * memory at one offset from the frame's CFA, so both are found as at -O0.
 * A double array moved as MPI_INT and a global int array as MPI_FLOAT, both
 * sides alike; an int array sent right, as MPI_INT, says nothing.
 * mpivet: np=2 verdict=error cflags=-O2
 */
#include <mpi.h>

int table[16];

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
	MPI_Finalize();
	return good[0] + (int)samples[0] - 1;
}
