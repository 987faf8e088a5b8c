/* Correct general active-target synchronisation (post, start, complete,
 * wait; 4 ranks): each rank exposes its window to its left neighbour and
 * accesses its right neighbour's, and then every rank but 0 puts to its own
 * slot of rank 0 in an epoch rank 0 ends with an MPI_Win_test loop. Three
 * rounds write the same bytes: each round's complete and wait order it
 * before the next. Values are checked.
 * mpivet: np=4 verdict=ok
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int buf[8] = {0};
	MPI_Win win;
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Group world, left_g, right_g, others, zero;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	int left = (rank + size - 1) % size, right = (rank + 1) % size, z = 0;
	MPI_Group_incl(world, 1, &left, &left_g);
	MPI_Group_incl(world, 1, &right, &right_g);
	MPI_Group_excl(world, 1, &z, &others);
	MPI_Group_incl(world, 1, &z, &zero);

	for (int round = 0; round < 3; round++) {
		int v = rank * 10 + round;
		MPI_Win_post(left_g, 0, win);
		MPI_Win_start(right_g, 0, win);
		MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
		MPI_Win_complete(win);
		MPI_Win_wait(win);
		if (buf[0] != left * 10 + round) {
			fprintf(stderr, "rank %d: round %d: %d\n", rank, round, buf[0]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	if (rank == 0) {
		int flag = 0;
		MPI_Win_post(others, 0, win);
		while (!flag)
			MPI_Win_test(win, &flag);
		for (int r = 1; r < size; r++)
			if (buf[r] != r) {
				fprintf(stderr, "rank 0: slot %d: %d\n", r, buf[r]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		printf("ok\n");
	} else {
		MPI_Win_start(zero, 0, win);
		MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&world);
	MPI_Group_free(&left_g);
	MPI_Group_free(&right_g);
	MPI_Group_free(&others);
	MPI_Group_free(&zero);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
