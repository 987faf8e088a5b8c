/* Seed 000, Fig. 2.9: rank 0 writes its send buffer and rank 1 reads its
 * receive buffer while the Isend / Irecv are pending; both Waits come after.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf = 0, a = 0;
	MPI_Request h;
	MPI_Status status;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		buf = 42;
		MPI_Isend(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		*(volatile int *)&buf = 1; // want "buffer-reuse"
		MPI_Wait(&h, &status);
	} else if (rank == 1) {
		MPI_Irecv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		a = *(volatile int *)&buf; // want "buffer-reuse"
		MPI_Wait(&h, &status);
	}
	printf("rank %d: %d %d\n", rank, buf, a);
	MPI_Finalize();
	return 0;
}
