/* Derived datatypes whose blocks lie in separate heap blocks, all within
 * them: the footprint of a type is the union of its blocks, not the span
 * from its first byte to its last, and the gaps between blocks are not
 * accessed. A struct of absolute addresses of two malloc'd blocks sent
 * from MPI_BOTTOM (and broadcast), a struct of the addresses relative to
 * the first block sent from that block (as HPL packs a panel: columns of
 * the matrix and a work array), and an hvector whose stride steps from one
 * allocation to the other. The twin of heap_types_overrun.c.
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdlib.h>

#define N 50000

/* two_blocks builds the type of n0 doubles at a and n1 at b: absolute
 * addresses, or relative to a. */
static MPI_Datatype two_blocks(double *a, int n0, double *b, int n1, int absolute)
{
	MPI_Aint disp[2];
	int len[2] = {n0, n1};
	MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, t;
	MPI_Get_address(a, &disp[0]);
	MPI_Get_address(b, &disp[1]);
	if (!absolute)
		disp[1] -= disp[0], disp[0] = 0;
	MPI_Type_create_struct(2, len, disp, types, &t);
	MPI_Type_commit(&t);
	return t;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *a = calloc(N, sizeof(double)), *b = calloc(N / 2, sizeof(double));
	double *all = calloc(N + N / 2, sizeof(double));
	MPI_Datatype abs = two_blocks(a, N, b, N / 2, 1), rel = two_blocks(a, N, b, N / 2, 0), vec;
	MPI_Type_create_hvector(2, N / 2, (char *)b - (char *)a, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	if (rank == 0) {
		MPI_Send(MPI_BOTTOM, 1, abs, 1, 0, MPI_COMM_WORLD);
		MPI_Send(a, 1, rel, 1, 1, MPI_COMM_WORLD);
		MPI_Send(a, 1, vec, 1, 2, MPI_COMM_WORLD);
	} else {
		MPI_Recv(MPI_BOTTOM, 1, abs, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(all, N + N / 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(a, 1, vec, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Bcast(MPI_BOTTOM, 1, abs, 0, MPI_COMM_WORLD);
	MPI_Type_free(&vec);
	MPI_Type_free(&rel);
	MPI_Type_free(&abs);
	free(all);
	free(b);
	free(a);
	MPI_Finalize();
	return 0;
}
