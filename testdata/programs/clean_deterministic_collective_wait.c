// mpivet: np=3 flags=--deterministic,--buffering-check=off verdict=ok
/* A correct program whose determinism would deadlock (seed 002 §2.6):
 * rank 0's wildcard receive can only take rank 1's message, but by logical
 * time it must first know that rank 2 sends nothing earlier, and rank 2 is
 * in MPI_Barrier, which waits for rank 0. Deterministic mode must give up
 * that wait (relaxed, and the report says so), never hang; rank 2's message
 * comes after the barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Status st;
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		printf("first from %d\n", st.MPI_SOURCE);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
		printf("second from %d\n", st.MPI_SOURCE);
	} else if (rank == 1) {
		v = 1;
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		v = 2;
		MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
