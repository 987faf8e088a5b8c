/* Fig. 2.9 with a Test loop that completes the operations only after the
 * accesses: each access is reported with the Test that completed it.
 * mpivet: np=2 verdict=error
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, flag = 0;
	int *buf = calloc(64, sizeof *buf), sum = 0;
	MPI_Request h;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Isend(buf, 64, MPI_INT, 1, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		for (int i = 0; i < 64; i++)
			buf[i] = i; // want "buffer-reuse"
	} else if (rank == 1) {
		MPI_Irecv(buf, 64, MPI_INT, 0, 0, MPI_COMM_WORLD, &h); // want "buffer-reuse"
		for (int i = 0; i < 64; i++)
			sum += buf[i]; // want "buffer-reuse"
	}
	if (rank < 2)
		while (!flag)
			MPI_Test(&h, &flag, MPI_STATUS_IGNORE); // want "buffer-reuse"
	printf("rank %d: %d\n", rank, sum);
	free(buf);
	MPI_Finalize();
	return 0;
}
