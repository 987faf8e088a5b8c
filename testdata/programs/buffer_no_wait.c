/* Seed 000, Fig. 2.9 with the Waits removed: the completion check is missing
 * altogether (five of the seven real bugs SyncChecker found were of this
 * kind). The accesses are reported, and so are the operations left pending.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf = 0, a = 0;
	MPI_Request h;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse" "request-lifecycle" "resource-leak"
		*(volatile int *)&buf = 1; // want "buffer-reuse"
	} else if (rank == 1) {
		MPI_Irecv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse" "request-lifecycle" "resource-leak"
		a = *(volatile int *)&buf; // want "buffer-reuse"
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	printf("%d\n", a);
	return 0;
}
