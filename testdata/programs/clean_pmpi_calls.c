/* A program that calls the profiling interface itself, as tools and some
 * libraries do: PMPI_* calls bypass mpivet's wrappers. A message sent with
 * PMPI_Send carries no clock (the receive's matches are then not explored,
 * and the report says so); one received with PMPI_Recv is not seen
 * received; a datatype made with PMPI_Type_contiguous is adopted at its
 * first use, and freed with MPI_Type_free as often as the MPI gives its
 * handle again. None of this is an error of the program: no finding. (The
 * records miss the PMPI_Send, so the offline replay with zero buffering
 * cannot vouch for the run: the program is run again, as --buffering=zero
 * would, and prints its output twice.)
 * mpivet: np=2 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, buf[8] = {0}, got[8] = {0};
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 8; i++)
		buf[i] = rank * 10 + i;
	for (int round = 0; round < 3; round++) {
		MPI_Datatype pair;
		PMPI_Type_contiguous(2, MPI_INT, &pair);
		PMPI_Type_commit(&pair);
		if (rank == 0) {
			PMPI_Send(buf, 2, pair, 1, round, MPI_COMM_WORLD);
			MPI_Send(buf, 1, pair, 1, 10 + round, MPI_COMM_WORLD);
		} else {
			MPI_Recv(got, 2, pair, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			PMPI_Recv(got + 4, 1, pair, 0, 10 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Type_free(&pair);
	}
	if (rank == 1)
		printf("%d %d %d %d\n", got[0], got[3], got[4], got[5]);
	MPI_Finalize();
	return 0;
}
