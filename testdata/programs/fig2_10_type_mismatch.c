/* Seed 000, Fig. 2.10: 4 MPI_BYTE sent, received as one MPI_INT. The sizes
 * agree and the run "works", but the types do not match (the result depends
 * on both ranks sharing a representation). The same with two doubles
 * received as four floats through nonblocking calls, and unsigned ints
 * received as signed ones by a Sendrecv.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, data = 5;
	double d[2] = {1.5, 2.5};
	float f[4];
	unsigned u = 7;
	int v = 0;
	MPI_Request r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Send(&data, 4, MPI_BYTE, 1, 0, MPI_COMM_WORLD); // want "type-mismatch"
		MPI_Isend(d, 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r); // want "type-mismatch"
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u, 1, MPI_UNSIGNED, 1, 2, &v, 1, MPI_UNSIGNED, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
	} else if (rank == 1) {
		MPI_Recv(&data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
		MPI_Irecv(f, 4, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &r); // want "type-mismatch"
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u, 1, MPI_UNSIGNED, 0, 2, &v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // want "type-mismatch"
	}
	MPI_Finalize();
	return 0;
}
