/* A persistent barrier (MPI 4.0) started in a loop orders messages: in
 * each round rank 1 sends before the barrier and rank 2 after it, and rank
 * 0 receives from MPI_ANY_SOURCE once before and once after. The first
 * receive can only take rank 1's message: the started barrier carries the
 * ranks' clocks, so the exploration sees that rank 2's message comes after
 * the receive and forces no replay that cannot happen (one interleaving).
 * mpivet: np=3 verdict=ok mpi=mpich interleavings=1
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, v = 0, from[2];
	MPI_Request bar;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &bar);
	for (int i = 0; i < 3; i++) {
		if (rank == 0) {
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, &st);
			from[0] = st.MPI_SOURCE;
			MPI_Start(&bar);
			MPI_Wait(&bar, MPI_STATUS_IGNORE);
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, &st);
			from[1] = st.MPI_SOURCE;
			if (from[0] != 1 || from[1] != 2)
				printf("round %d: unexpected order %d %d\n", i, from[0], from[1]);
		} else if (rank == 1) {
			MPI_Send(&rank, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
			MPI_Start(&bar);
			MPI_Wait(&bar, MPI_STATUS_IGNORE);
		} else {
			MPI_Start(&bar);
			MPI_Wait(&bar, MPI_STATUS_IGNORE);
			MPI_Send(&rank, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
		}
	}
	MPI_Request_free(&bar);
	MPI_Finalize();
	return 0;
}
