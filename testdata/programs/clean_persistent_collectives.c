/* MPI 4.0 persistent collectives used correctly: a barrier, a broadcast and
 * an allreduce made once, started three times each (MPI_Start and
 * MPI_Startall), completed (MPI_Wait, MPI_Waitall) and freed. Their
 * requests are followed as persistent requests: no leak, no lifecycle
 * finding. (Open MPI 4.1 has no persistent collectives.)
 * mpivet: np=3 verdict=ok mpi=mpich sameoutput=1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, x = 0, mine = 0, sum = 0;
	MPI_Request r[3];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
	MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
	MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
	for (int i = 0; i < 3; i++) {
		if (rank == 0)
			x = 10 + i;
		mine = rank + i;
		MPI_Start(&r[0]);
		MPI_Wait(&r[0], MPI_STATUS_IGNORE);
		MPI_Startall(2, &r[1]);
		MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE);
		if (x != 10 + i || sum != size * (size - 1) / 2 + size * i) {
			fprintf(stderr, "wrong: round %d x %d sum %d\n", i, x, sum);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		if (rank == 0)
			printf("round %d: x %d sum %d\n", i, x, sum);
	}
	for (int i = 0; i < 3; i++)
		MPI_Request_free(&r[i]);
	MPI_Finalize();
	return 0;
}
