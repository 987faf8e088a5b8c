/* Derived datatypes whose blocks lie in separate heap blocks, one of which
 * runs out of its block: a struct of absolute addresses sent from
 * MPI_BOTTOM whose second block holds N/2 doubles and is given N/2 + 8,
 * and an hvector whose stride steps from one allocation to the other with
 * blocks of N/2 + 8 doubles (the second runs out of the smaller block).
 * Each is found at its call's line, against the block its bytes start in.
 * (The blocks are large enough for the allocator to map them whole: the
 * 64 bytes too many are read from the last page's slack.)
 * heap_types_clean.c does the same within the blocks.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdlib.h>

#define N 50000

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *a = calloc(N, sizeof(double)), *b = calloc(N / 2, sizeof(double));
	double *all = calloc(2 * N, sizeof(double));
	MPI_Aint disp[2];
	int len[2] = {N, N / 2 + 8};
	MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, abs, vec;
	MPI_Get_address(a, &disp[0]);
	MPI_Get_address(b, &disp[1]);
	MPI_Type_create_struct(2, len, disp, types, &abs);
	MPI_Type_commit(&abs);
	MPI_Type_create_hvector(2, N / 2 + 8, (char *)b - (char *)a, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	if (rank == 0) {
		MPI_Send(MPI_BOTTOM, 1, abs, 1, 0, MPI_COMM_WORLD); // want "buffer-overrun"
		MPI_Send(a, 1, vec, 1, 1, MPI_COMM_WORLD); // want "buffer-overrun"
	} else {
		MPI_Recv(all, N + N / 2 + 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(all, N + 16, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Type_free(&vec);
	MPI_Type_free(&abs);
	free(all);
	free(b);
	free(a);
	MPI_Finalize();
	return 0;
}
