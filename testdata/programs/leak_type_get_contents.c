/* MPI_Type_get_contents gives a struct's derived members as new handles the
 * program must free (MPI 4.0 §5.1.13); this one frees the contiguous member
 * but not the vector. The leak is found at the query's line; the
 * predefined member (MPI_INT), which must not be freed, is no leak.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int ints[4];
	MPI_Aint addrs[4];
	MPI_Datatype vec, pair, st, types[3];
	int bl[3] = {1, 1, 1};
	MPI_Aint disp[3] = {0, 16, 40};
	MPI_Init(&argc, &argv);
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
	MPI_Datatype in[3] = {vec, pair, MPI_INT};
	MPI_Type_create_struct(3, bl, disp, in, &st);
	MPI_Type_free(&vec);
	MPI_Type_free(&pair);
	MPI_Type_get_contents(st, 4, 4, 3, ints, addrs, types); // want "resource-leak"
	MPI_Type_free(&types[1]);
	MPI_Type_free(&st);
	MPI_Finalize();
	return 0;
}
