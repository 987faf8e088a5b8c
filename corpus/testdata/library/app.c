/* A program that calls a library's wildcard receive (pick.c), then has
 * one of its own, with the same bug behind its other match: rank 0 fails
 * if rank 2's message comes first. */
#include <mpi.h>
#include <unistd.h>

void pick(MPI_Comm comm);

int main(int argc, char **argv)
{
	int rank, v;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pick(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st);
		if (st.MPI_SOURCE == 2)
			MPI_Abort(MPI_COMM_WORLD, 6); /* the program's failure */
		MPI_Recv(&v, 1, MPI_INT, 3 - st.MPI_SOURCE, 6, MPI_COMM_WORLD, &st);
	} else {
		if (rank == 2)
			usleep(200000);
		MPI_Send(&rank, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
